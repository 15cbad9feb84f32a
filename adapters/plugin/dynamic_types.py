"""The exact types of ``dynamic`` attribute values, kept beside ctl's plain values.

A value of the ``dynamic`` pseudo-type travels with its type: ``["list","string"]`` or
``["tuple",["string","string"]]`` for the same two strings. ctl's value model holds both as a
Python list, so a provider's list would come back to it as a tuple, a map as an object — a
different value to the provider, and not what Terraform writes in state. Decoding can therefore
report the type of every dynamic value by path, and encoding can take those types back: a value
that still fits its recorded type exactly is sent with it, anything else with the type it implies.
"""

from __future__ import annotations

import json
from typing import Any

from vocab.types import ObjectType, TupleType, TypeSpecError, has_dynamic, parse_type
from vocab.values import Marked, Path, SetValue, Unknown

DynamicTypes = dict[Path, Any]  # path -> CtyType


def record_wire_types(raw: Any, ty: Any, unknown: Any, path: Path = ()) -> DynamicTypes:
    """Types of the dynamic values in unpacked msgpack ``raw`` (``[type JSON, value]`` pairs)."""
    out: DynamicTypes = {}
    _walk(raw, ty, path, out, lambda r: _wire_type(r, unknown))
    return out


def record_json_types(doc: Any, ty: Any, path: Path = ()) -> DynamicTypes:
    """Types of the dynamic values in a cty JSON document (``{"value":…,"type":…}`` objects)."""
    out: DynamicTypes = {}
    _walk(doc, ty, path, out, _json_type)
    return out


def _wire_type(raw: Any, unknown: Any) -> Any:
    if raw is unknown or not isinstance(raw, list) or len(raw) != 2:
        return None
    return _parse(raw[0])


def _json_type(doc: Any) -> Any:
    if not isinstance(doc, dict) or "type" not in doc:
        return None
    return _parse(json.dumps(doc["type"]))


def _parse(spec: Any) -> Any:
    try:
        return parse_type(spec)
    except TypeSpecError:
        return None


def _walk(raw: Any, ty: Any, path: Path, out: DynamicTypes, read: Any) -> None:
    if raw is None or not has_dynamic(ty):
        return
    kind = ty.kind
    if kind == "dynamic":
        actual = read(raw)
        if actual is not None and actual.kind in ("list", "set", "map", "object", "tuple"):
            out[path] = actual
        return
    if kind in ("list", "map") and isinstance(raw, list | dict):
        items = raw.items() if isinstance(raw, dict) else enumerate(raw)
        for key, item in items:
            _walk(item, ty.element, (*path, key), out, read)
    elif isinstance(ty, TupleType) and isinstance(raw, list):
        for i, (item, t) in enumerate(zip(raw, ty.elements, strict=False)):
            _walk(item, t, (*path, i), out, read)
    elif isinstance(ty, ObjectType) and isinstance(raw, dict):
        for name, t in ty.fields:
            if name in raw:
                _walk(raw[name], t, (*path, name), out, read)
    # Sets are left out: Terraform forbids dynamic types in them, and their order is ctl's.


def overrides_for(value: Any, dynamic_types: DynamicTypes) -> dict[int, Any]:
    """``id`` of each value at a recorded path that still fits its recorded type -> that type."""
    out: dict[int, Any] = {}
    for path, ty in dynamic_types.items():
        found = _at(value, path)
        if isinstance(found, list | dict) and conforms(found, ty):
            out[id(found)] = ty
    return out


def _at(value: Any, path: Path) -> Any:
    for step in path:
        if isinstance(value, Marked):
            value = value.value
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            return None
    return value.value if isinstance(value, Marked) else value


def conforms(value: Any, ty: Any) -> bool:
    """True when ``value`` is of type ``ty`` as it stands, with no conversion."""
    if isinstance(value, Marked):
        value = value.value
    if value is None or isinstance(value, Unknown):
        return True
    kind = ty.kind
    if kind == "dynamic":
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list) and not isinstance(value, SetValue) and _all(value, ty.element)
    if kind == "set":
        return isinstance(value, list) and _all(value, ty.element)
    if kind == "map":
        return isinstance(value, dict) and _all(value.values(), ty.element)
    if isinstance(ty, TupleType):
        return (
            isinstance(value, list)
            and len(value) == len(ty.elements)
            and all(conforms(v, t) for v, t in zip(value, ty.elements, strict=True))
        )
    assert isinstance(ty, ObjectType)
    return (
        isinstance(value, dict)
        and value.keys() <= ty.attributes.keys()
        and all(conforms(v, ty.attributes[k]) for k, v in value.items())
    )


def _all(values: Any, ty: Any) -> bool:
    return all(conforms(v, ty) for v in values)
