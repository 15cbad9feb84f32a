"""cty's JSON encoding of values: ``DynamicValue.json``, ``RawState.json`` and Terraform's state.

Older providers may answer in JSON, state upgrades hand a provider the stored JSON, and Terraform's
state file holds each instance's attributes in this encoding. It is plain JSON shaped by the type:
objects list every attribute (absent ones read as null), numbers are written as exact decimals
without exponent, and a value of the ``dynamic`` pseudo-type is wrapped as
``{"value": …, "type": <type JSON>}``. Unknown values cannot be written (they never reach state).
"""

from __future__ import annotations

import json
import unicodedata
from decimal import Decimal
from typing import Any

from adapters.plugin.dynamic_types import DynamicTypes, overrides_for, record_json_types
from adapters.plugin.msgpack_codec import UNKNOWN_WIRE, to_wire
from adapters.plugin.set_order import set_order
from vocab.conversion.convert import ConversionError, as_set, convert
from vocab.conversion.numbers import NotANumber, number_text, parse_number
from vocab.conversion.value_errors import PathSteps, PluginValueError
from vocab.types import (
    BOOL,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    TypeSpecError,
    go_json_string,
    parse_type,
    type_of_value,
    type_to_json_value,
)
from vocab.values import Marked, Unknown


def encode_json(value: Any, ty: CtyType, *, dynamic_types: DynamicTypes | None = None) -> bytes:
    """``value`` in cty's JSON encoding for ``ty``, byte for byte as cty writes it."""
    overrides = overrides_for(value, dynamic_types) if dynamic_types else {}
    return _write(_to_json(value, ty, (), overrides)).encode()


def decode_json(data: bytes | str, ty: CtyType, *, dynamic_types: DynamicTypes | None = None) -> Any:
    """The value of type ``ty`` that cty JSON ``data`` encodes (see ``from_json_value``)."""
    try:
        doc = json.loads(data, parse_float=Decimal)
    except (ValueError, RecursionError) as e:  # also: too deep, or an integer of too many digits
        raise PluginValueError(f"the provider sent malformed JSON: {e}") from None
    return from_json_value(doc, ty, dynamic_types=dynamic_types)


class _Number:
    """Internal: a number already spelled as cty writes it, so the writer copies it verbatim."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def to_json_value(value: Any, ty: CtyType, *, dynamic_types: DynamicTypes | None = None) -> Any:
    """``value`` as JSON data shaped by ``ty`` (numbers as ``int``/``float``; marks dropped)."""
    overrides = overrides_for(value, dynamic_types) if dynamic_types else {}
    return _unwrap_numbers(_to_json(value, ty, (), overrides))


def _to_json(value: Any, ty: CtyType, path: PathSteps, overrides: dict[int, CtyType]) -> Any:
    if isinstance(value, Marked):
        value = value.value
    if isinstance(value, Unknown):
        raise PluginValueError("value is not known", path)
    if value is None:
        return None
    kind = ty.kind
    if kind == "dynamic":
        actual = overrides.get(id(value)) or type_of_value(value)
        return {"value": _to_json(value, actual, path, overrides), "type": type_to_json_value(actual)}
    if kind in ("string", "number", "bool"):
        converted = convert(value, ty, path)
        if kind == "string" and not converted.isascii():
            return unicodedata.normalize("NFC", converted)  # cty holds every string in NFC
        if kind == "number":
            try:
                return _Number(number_text(converted))
            except NotANumber as e:
                raise PluginValueError(f"cannot serialize {e}", path) from None
        return converted
    if isinstance(ty, Collection) and kind in ("list", "set"):
        if not isinstance(value, list):
            raise ConversionError(f"{ty.friendly_name} required", path)
        element = ty.element
        items = [_to_json(x, element, (*path, i), overrides) for i, x in enumerate(value)]
        if kind == "set":
            # cty writes a set's members in its own order, the one the msgpack encoding uses.
            wires = [to_wire(x, element) for x in value]
            items = [items[i] for i in set_order(wires, element, UNKNOWN_WIRE)]
        return items
    if isinstance(ty, Collection) and kind == "map":
        if not isinstance(value, dict):
            raise ConversionError(f"{ty.friendly_name} required", path)
        element = ty.element
        return {k: _to_json(value[k], element, (*path, k), overrides) for k in sorted(value)}
    if isinstance(ty, ObjectType):
        if not isinstance(value, dict):
            raise ConversionError("object required", path)
        extra = sorted(k for k in value if k not in ty.attributes)
        if extra:
            raise PluginValueError("unsupported attribute", (*path, extra[0]))
        return {n: _to_json(value.get(n), ty.attributes[n], (*path, n), overrides) for n in ty.names}
    assert isinstance(ty, TupleType)
    if not isinstance(value, list) or len(value) != len(ty.elements):
        raise ConversionError(f"a tuple of {len(ty.elements)} elements is required", path)
    return [
        _to_json(x, t, (*path, i), overrides) for i, (x, t) in enumerate(zip(value, ty.elements, strict=True))
    ]


def _unwrap_numbers(doc: Any) -> Any:
    if isinstance(doc, _Number):
        return parse_number(doc.text)
    if isinstance(doc, list):
        return [_unwrap_numbers(x) for x in doc]
    if isinstance(doc, dict):
        return {k: _unwrap_numbers(v) for k, v in doc.items()}
    return doc


def _write(doc: Any) -> str:
    # Written by hand rather than json.dumps: cty writes numbers without exponent and strings
    # with Go's escaping, and the bytes must match what Terraform writes.
    if doc is None:
        return "null"
    if doc is True:
        return "true"
    if doc is False:
        return "false"
    if isinstance(doc, int):
        return str(doc)
    if isinstance(doc, float):
        return number_text(doc)
    if isinstance(doc, _Number):
        return doc.text
    if isinstance(doc, str):
        return go_json_string(doc)
    if isinstance(doc, list):
        return "[" + ",".join(_write(x) for x in doc) + "]"
    return "{" + ",".join(f"{go_json_string(k)}:{_write(v)}" for k, v in doc.items()) + "}"


def from_json_value(doc: Any, ty: CtyType, *, dynamic_types: DynamicTypes | None = None) -> Any:
    """A ctl value of type ``ty`` from JSON data (as ``json.loads`` gives it).

    A ``dynamic_types`` dict is filled with the exact type of each dynamic value, by path.
    """
    value = _from_json(doc, ty, ())
    if dynamic_types is not None:
        dynamic_types.update(record_json_types(doc, ty))
    return value


def _from_json(doc: Any, ty: CtyType, path: PathSteps) -> Any:
    if doc is None:
        return None
    kind = ty.kind
    if kind == "dynamic":
        return _dynamic_from_json(doc, path)
    if kind == "string":
        if isinstance(doc, bool):
            return "true" if doc else "false"
        if isinstance(doc, int | float | Decimal):
            return number_text(_json_number(doc, path))
        if isinstance(doc, str):
            return doc
        raise PluginValueError("string is required", path)
    if kind == "number":
        if isinstance(doc, bool) or not isinstance(doc, int | float | Decimal | str):
            raise PluginValueError("number is required", path)
        return _json_number(doc, path)
    if kind == "bool":
        if isinstance(doc, bool):
            return doc
        if isinstance(doc, str):
            return convert(doc, BOOL, path)
        raise PluginValueError("bool is required", path)
    if isinstance(ty, Collection) and kind in ("list", "set"):
        if not isinstance(doc, list):
            raise PluginValueError(f"a {kind} is required", path)
        element = ty.element
        items = [_from_json(x, element, (*path, i)) for i, x in enumerate(doc)]
        return as_set(items) if kind == "set" else items
    if isinstance(ty, Collection) and kind == "map":
        if not isinstance(doc, dict):
            raise PluginValueError("a map is required", path)
        element = ty.element
        return {k: _from_json(v, element, (*path, k)) for k, v in doc.items()}
    if isinstance(ty, ObjectType):
        if not isinstance(doc, dict):
            raise PluginValueError("an object is required", path)
        for k in doc:
            if k not in ty.attributes:
                raise PluginValueError("unsupported attribute", (*path, k))
        return {n: _from_json(doc.get(n), ty.attributes[n], (*path, n)) for n in ty.names}
    assert isinstance(ty, TupleType)
    if not isinstance(doc, list) or len(doc) != len(ty.elements):
        raise PluginValueError(f"a tuple of length {len(ty.elements)} is required", path)
    return [_from_json(x, t, (*path, i)) for i, (x, t) in enumerate(zip(doc, ty.elements, strict=True))]


def _json_number(doc: Any, path: PathSteps) -> int | float:
    try:
        if isinstance(doc, int):
            return doc
        return parse_number(
            doc if isinstance(doc, str) else format(doc, "f") if isinstance(doc, Decimal) else repr(doc)
        )
    except NotANumber:
        raise PluginValueError("number is required", path) from None


def _dynamic_from_json(doc: Any, path: PathSteps) -> Any:
    if not isinstance(doc, dict):
        raise PluginValueError('a dynamically-typed value must be {"value": ..., "type": ...}', path)
    for key in doc:
        if key not in ("value", "type"):
            raise PluginValueError(f'invalid key "{key}" in dynamically-typed value', path)
    if "type" not in doc:
        raise PluginValueError("missing type in dynamically-typed value", path)
    if "value" not in doc:
        raise PluginValueError("missing value in dynamically-typed value", path)
    try:
        actual = parse_type(json.dumps(doc["type"]))
    except TypeSpecError as e:
        raise PluginValueError(f"failed to decode type for dynamic value: {e.summary}", path) from None
    return _from_json(doc["value"], actual, path)
