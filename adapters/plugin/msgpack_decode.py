"""Reading cty's MessagePack encoding back into ctl values (see ``msgpack_codec`` for the format).

One C ``msgpack`` unpack, then one walk over the result guided by the type: numbers sent as text
become ints (any size) or floats, sets become ``SetValue`` in ctl's element order, objects get every
attribute, dynamic values are unwrapped with the type they carry. Any extension value is an unknown
value; newer providers send type 12 with refinements (not null, a string prefix, number or length
bounds), which ctl's value model has no place for, so they read as plain unknown after the payload
is checked to be the small map the format promises.
"""

from __future__ import annotations

from typing import Any

import msgpack

from adapters.plugin.dynamic_types import DynamicTypes, record_wire_types
from vocab.conversion.convert import as_set
from vocab.conversion.numbers import NotANumber, from_wire_float, parse_number
from vocab.conversion.value_errors import DECODE_HINT, Misfit, PluginValueError
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    TypeSpecError,
    parse_type,
)
from vocab.values import ListValue, MapValue, Path, Unknown, apply_paths

REFINED_UNKNOWN_EXT_TYPE = 12
_MAX_REFINEMENT_BYTES = 1024


class _WireUnknown:
    """Internal: what an extension value unpacks to before the type walk turns it into Unknown."""

    __slots__ = ()


_WIRE_UNKNOWN = _WireUnknown()


def _ext_hook(code: int, payload: bytes) -> Any:
    if len(payload) <= 1:
        return _WIRE_UNKNOWN
    if code != REFINED_UNKNOWN_EXT_TYPE:
        raise PluginValueError(
            f"unsupported extension type 0x{code:02x} with {len(payload)} bytes", hint=DECODE_HINT
        )
    if len(payload) > _MAX_REFINEMENT_BYTES:
        raise PluginValueError("oversize refinements of an unknown value", hint=DECODE_HINT)
    try:
        refinements = msgpack.unpackb(payload, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        refinements = None
    if not isinstance(refinements, dict):
        raise PluginValueError("refinements of an unknown value are not a map", hint=DECODE_HINT)
    return _WIRE_UNKNOWN


def decode(
    data: bytes,
    ty: CtyType,
    *,
    sensitive: list[Path] | None = None,
    dynamic_types: DynamicTypes | None = None,
) -> Any:
    """The value of type ``ty`` that ``data`` encodes; values at ``sensitive`` paths come back marked.

    A ``dynamic_types`` dict is filled with the exact type of each dynamic value, by path, for a
    later ``encode`` to send them back unchanged.
    """
    try:
        raw = msgpack.unpackb(data, raw=False, ext_hook=_ext_hook, strict_map_key=False)
    except PluginValueError:
        raise
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as e:
        # TypeError: a map key that cannot be one (a list or a map)
        raise PluginValueError(
            f"the provider sent a malformed msgpack value: {e}", hint=DECODE_HINT
        ) from None
    try:
        value = from_wire(raw, ty)
    except Misfit as e:
        raise e.error(DECODE_HINT) from None
    if dynamic_types is not None:
        dynamic_types.update(record_wire_types(raw, ty, _WIRE_UNKNOWN))
    return apply_paths(value, list(sensitive)) if sensitive else value


def from_wire(raw: Any, ty: CtyType) -> Any:
    """A ctl value from unpacked msgpack data (``Misfit`` on a mismatch)."""
    if raw is None:
        return None
    if raw is _WIRE_UNKNOWN:
        return Unknown(None if ty is DYNAMIC else ty.friendly_name)
    kind = ty.kind
    if kind == "string":
        if type(raw) is str:
            return raw
        raise Misfit("string is required")
    if kind == "number":
        if type(raw) is int:
            return raw
        if type(raw) is float:
            try:
                return from_wire_float(raw)
            except NotANumber:
                raise Misfit("number is required") from None
        if type(raw) is str:
            try:
                return parse_number(raw)
            except NotANumber:
                raise Misfit("number is required") from None
        raise Misfit("number is required")
    if kind == "bool":
        if raw is True or raw is False:
            return raw
        raise Misfit("bool is required")
    if isinstance(ty, ObjectType):
        return _object_from_wire(raw, ty)
    if isinstance(ty, Collection) and kind in ("list", "set"):
        if type(raw) is not list:
            raise Misfit(f"a {kind} is required")
        element = ty.element
        out = []
        for i, x in enumerate(raw):
            try:
                out.append(from_wire(x, element))
            except Misfit as e:
                e.reversed_path.append(i)
                raise
        # Sets follow ctl's element order (as ``toset`` gives it), so equal sets compare equal.
        return as_set(out) if kind == "set" else ListValue(out)  # typed: an output of it is a list
    if isinstance(ty, Collection) and kind == "map":
        if type(raw) is not dict:
            raise Misfit("a map is required")
        element = ty.element
        out_map = {}
        for k, x in raw.items():
            if type(k) is not str:
                raise Misfit("non-string key in map")
            try:
                out_map[k] = from_wire(x, element)
            except Misfit as e:
                e.reversed_path.append(k)
                raise
        return MapValue(out_map)
    if isinstance(ty, TupleType):
        return _tuple_from_wire(raw, ty)
    if kind == "dynamic":
        return _dynamic_from_wire(raw)
    raise Misfit(f"unsupported type {ty.friendly_name}")


def _object_from_wire(raw: Any, ty: ObjectType) -> dict[str, Any]:
    if type(raw) is not dict:
        raise Misfit("an object is required")
    attributes = ty.attributes
    out = {}
    for k, x in raw.items():
        aty = attributes.get(k) if type(k) is str else None
        if aty is None:
            if type(k) is not str:
                raise Misfit("all keys must be strings")
            e = Misfit("unsupported attribute")
            e.reversed_path.append(k)
            raise e
        tx = type(x)
        if (
            x is None
            or (tx is str and aty is STRING)
            or (tx is bool and aty is BOOL)
            or (tx is int and aty is NUMBER)
        ):
            out[k] = x  # the common case, without a call
            continue
        try:
            out[k] = from_wire(x, aty)
        except Misfit as e:
            e.reversed_path.append(k)
            raise
    if len(out) != len(attributes):
        for name in ty.names:
            out.setdefault(name, None)  # providers send every attribute; tolerate one that does not
    return out


def _tuple_from_wire(raw: Any, ty: TupleType) -> list[Any]:
    if type(raw) is not list:
        raise Misfit("a tuple is required")
    if len(raw) != len(ty.elements):
        raise Misfit(f"a tuple of length {len(ty.elements)} is required")
    out = []
    for i, (x, t) in enumerate(zip(raw, ty.elements, strict=True)):
        try:
            out.append(from_wire(x, t))
        except Misfit as e:
            e.reversed_path.append(i)
            raise
    return out


_TYPE_CACHE: dict[bytes, CtyType] = {}


def _dynamic_from_wire(raw: Any) -> Any:
    if type(raw) is not list or len(raw) != 2:
        raise Misfit("dynamic value array must have exactly two elements")
    type_bytes, inner = raw
    if not isinstance(type_bytes, bytes | str):
        raise Misfit("the type of a dynamic value must be JSON bytes")
    key = type_bytes.encode() if isinstance(type_bytes, str) else type_bytes
    actual = _TYPE_CACHE.get(key)
    if actual is None:
        try:
            actual = parse_type(key)
        except TypeSpecError as e:
            raise Misfit(e.summary) from None
        if len(_TYPE_CACHE) < 4096:
            _TYPE_CACHE[key] = actual
    return from_wire(inner, actual)
