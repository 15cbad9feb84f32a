"""cty's MessagePack encoding of values, both ways: what ``DynamicValue.msgpack`` carries.

The format (go-cty's ``cty/msgpack``): null is nil; an unknown value is an extension value (type 0
with one zero byte, ``d4 00 00``; newer providers send type 12 with a map of refinements, read here
as plain unknown because ctl's value model has no refinements); numbers are int64 when integral and
in range, float64 when that is exact, else the decimal's text; lists, sets and tuples are arrays
(sets in cty's element order); maps and objects are maps with sorted keys and every object attribute
present; a value of the ``dynamic`` pseudo-type is the two-element array ``[type JSON (bin), value]``
unless it is null or unknown.

Encoding converts where Terraform would (``"5"`` for a number, ``5`` for a string, a tuple for a
list) and strips marks, reporting the path of every secret so the caller can mark what comes back.
Everything else is a ``PluginValueError`` naming the attribute path. The walk is one Python pass
over plain data plus one C ``msgpack`` call each way; types are shared objects, so nothing is
allocated per value beyond the output.
"""

from __future__ import annotations

import unicodedata
from typing import Any, NoReturn

import msgpack

from adapters.plugin.convert import ConversionError, as_set, to_bool, to_number, to_string
from adapters.plugin.cty_types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    CtyType,
    ObjectType,
    TupleType,
    parse_type,
    type_json,
    type_of_value,
)
from adapters.plugin.dynamic_types import DynamicTypes, overrides_for, record_wire_types
from adapters.plugin.numbers import NotANumber, from_wire_float, number_wire, parse_number
from adapters.plugin.set_order import sort_set
from adapters.plugin.value_errors import PluginValueError, TypeSpecError
from engine.lang.values import Marked, Path, Unknown, apply_paths, deep_unmark

UNKNOWN_EXT_TYPE = 0
REFINED_UNKNOWN_EXT_TYPE = 12
_MAX_REFINEMENT_BYTES = 1024
UNKNOWN_WIRE = msgpack.ExtType(UNKNOWN_EXT_TYPE, b"\x00")
_ABSENT = object()


class _Options:
    """Internal: what one encode call was asked for, handed down the walk as one argument."""

    __slots__ = ("overrides", "strict")

    def __init__(self, strict: bool, overrides: dict[int, CtyType]) -> None:
        self.strict = strict
        self.overrides = overrides


class _Misfit(Exception):
    """Internal: a value that does not fit; containers add their step while it unwinds."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.reversed_path: list[str | int] = []


def encode(
    value: Any, ty: CtyType, *, strict: bool = False, dynamic_types: DynamicTypes | None = None
) -> tuple[bytes, list[Path]]:
    """``value`` as cty msgpack of type ``ty``, and the paths of the sensitive values it held.

    With ``strict`` an object attribute that is absent (and not optional) is an error; otherwise it
    is sent as null, as Terraform does for an attribute nobody set. Attributes the type does not
    know are an error either way. ``dynamic_types`` (from ``decode``) gives dynamic values back the
    exact types they arrived with, where they still fit.
    """
    found: list[list[str | int]] = []
    opts = _Options(strict, overrides_for(value, dynamic_types) if dynamic_types else {})
    try:
        wire = _prepare(value, ty, found, opts)
    except _Misfit as e:
        raise PluginValueError(e.message, list(reversed(e.reversed_path))) from None
    paths = [tuple(reversed(p)) for p in found]
    return msgpack.packb(wire, use_bin_type=True), paths


def to_wire(
    value: Any, ty: CtyType, *, strict: bool = False, dynamic_types: DynamicTypes | None = None
) -> Any:
    """The msgpack-ready form of ``value`` (marks dropped): for callers embedding it elsewhere."""
    opts = _Options(strict, overrides_for(value, dynamic_types) if dynamic_types else {})
    try:
        return _prepare(value, ty, [], opts)
    except _Misfit as e:
        raise PluginValueError(e.message, list(reversed(e.reversed_path))) from None


def _prepare(v: Any, ty: CtyType, found: list[list[str | int]], opts: _Options) -> Any:
    if type(v) is Marked:
        found.append([])
        v = deep_unmark(v.value)[0]
    if v is None:
        return None
    kind = ty.kind
    if isinstance(v, Unknown):
        return UNKNOWN_WIRE
    if kind == "string":
        if type(v) is str:
            return v if v.isascii() else unicodedata.normalize("NFC", v)
        return _scalar_to_string(v)
    if kind == "number":
        if type(v) is int:
            return v if -(2**63) <= v < 2**63 else str(v)
        return _to_number_wire(v)
    if kind == "bool":
        if v is True or v is False:
            return v
        if v == "true":
            return True
        if v == "false":
            return False
        _refuse_bool(v)
    if kind == "object":
        return _prepare_object(v, ty, found, opts)  # type: ignore[arg-type]
    if kind in ("list", "set"):
        if not isinstance(v, list):
            raise _Misfit(f"{ty.friendly_name} required")
        element = ty.element  # type: ignore[attr-defined]
        out = []
        for i, x in enumerate(v):
            n = len(found)
            try:
                out.append(_prepare(x, element, found, opts))
            except _Misfit as e:
                e.reversed_path.append(i)
                raise
            for p in found[n:]:
                p.append(i)
        return sort_set(out, element, UNKNOWN_WIRE) if kind == "set" else out
    if kind == "map":
        if not isinstance(v, dict):
            raise _Misfit(f"{ty.friendly_name} required")
        element = ty.element  # type: ignore[attr-defined]
        out_map = {}
        for k in sorted(v):
            n = len(found)
            try:
                if not isinstance(k, str):
                    raise _Misfit("map keys must be strings")
                out_map[k] = _prepare(v[k], element, found, opts)
            except _Misfit as e:
                e.reversed_path.append(k)
                raise
            for p in found[n:]:
                p.append(k)
        return out_map
    if kind == "tuple":
        return _prepare_tuple(v, ty, found, opts)  # type: ignore[arg-type]
    if kind == "dynamic":
        actual = opts.overrides.get(id(v)) if opts.overrides else None
        if actual is None:
            try:
                actual = type_of_value(v)
            except TypeSpecError as e:
                raise _Misfit(e.summary) from None
        return [type_json(actual), _prepare(v, actual, found, opts)]
    raise _Misfit(f"cannot encode a value of type {ty.friendly_name}")


def _prepare_object(v: Any, ty: ObjectType, found: list[list[str | int]], opts: _Options) -> dict:
    if not isinstance(v, dict):
        raise _Misfit("object required")
    out: dict[str, Any] = {}
    present = 0
    for name, aty in ty.fields:
        x = v.get(name, _ABSENT)
        if x is _ABSENT:
            if opts.strict and name not in ty.optional:
                raise _Misfit(f'attribute "{name}" is required')
            out[name] = None
            continue
        present += 1
        # Plain scalars that already have the attribute's type are most of every object: they
        # skip the general walk (and its bookkeeping for marks and error paths).
        tx = type(x)
        if x is None or (tx is str and aty is STRING and x.isascii()) or (tx is bool and aty is BOOL):
            out[name] = x
            continue
        if tx is int and aty is NUMBER and -(2**63) <= x < 2**63:
            out[name] = x
            continue
        n = len(found)
        try:
            out[name] = _prepare(x, aty, found, opts)
        except _Misfit as e:
            e.reversed_path.append(name)
            raise
        if len(found) != n:
            for p in found[n:]:
                p.append(name)
    if len(v) != present:
        extra = sorted(str(k) for k in v if k not in ty.attributes)
        raise _Misfit(f'unsupported attribute "{extra[0]}"')
    return out


def _prepare_tuple(v: Any, ty: TupleType, found: list[list[str | int]], opts: _Options) -> list:
    if not isinstance(v, list):
        raise _Misfit("tuple required")
    if len(v) != len(ty.elements):
        raise _Misfit(f"a tuple of {len(ty.elements)} elements is required, got {len(v)}")
    out = []
    for i, (x, t) in enumerate(zip(v, ty.elements, strict=True)):
        n = len(found)
        try:
            out.append(_prepare(x, t, found, opts))
        except _Misfit as e:
            e.reversed_path.append(i)
            raise
        for p in found[n:]:
            p.append(i)
    return out


def _to_number_wire(v: Any) -> Any:
    try:
        return number_wire(to_number(v))
    except ConversionError as e:
        raise _Misfit(e.message) from None
    except NotANumber:
        raise _Misfit("a number is required") from None


def _scalar_to_string(v: Any) -> str:
    try:
        return to_string(v)
    except ConversionError as e:
        raise _Misfit(e.message) from None


def _refuse_bool(v: Any) -> NoReturn:
    try:
        to_bool(v)
    except ConversionError as e:
        raise _Misfit(e.message) from None
    raise AssertionError("unreachable: the value converts")


# ---- decoding ---------------------------------------------------------------------------------


class _WireUnknown:
    """Internal: what an extension value unpacks to before the type walk turns it into Unknown."""

    __slots__ = ()


_WIRE_UNKNOWN = _WireUnknown()


def _ext_hook(code: int, payload: bytes) -> Any:
    if len(payload) <= 1:
        return _WIRE_UNKNOWN
    if code != REFINED_UNKNOWN_EXT_TYPE:
        raise PluginValueError(f"unsupported extension type 0x{code:02x} with {len(payload)} bytes")
    if len(payload) > _MAX_REFINEMENT_BYTES:
        raise PluginValueError("oversize refinements of an unknown value")
    try:
        refinements = msgpack.unpackb(payload, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        refinements = None
    if not isinstance(refinements, dict):
        raise PluginValueError("refinements of an unknown value are not a map")
    return _WIRE_UNKNOWN


def decode(
    data: bytes, ty: CtyType, *, sensitive: list[Path] | None = None, dynamic_types: DynamicTypes | None = None
) -> Any:
    """The value of type ``ty`` that ``data`` encodes; values at ``sensitive`` paths come back marked.

    A ``dynamic_types`` dict is filled with the exact type of each dynamic value, by path, for a
    later ``encode`` to send them back unchanged.
    """
    try:
        raw = msgpack.unpackb(data, raw=False, ext_hook=_ext_hook, strict_map_key=False)
    except PluginValueError:
        raise
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as e:
        raise PluginValueError(f"the provider sent a malformed msgpack value: {e}") from None
    try:
        value = from_wire(raw, ty)
    except _Misfit as e:
        raise PluginValueError(e.message, list(reversed(e.reversed_path))) from None
    if dynamic_types is not None:
        dynamic_types.update(record_wire_types(raw, ty, _WIRE_UNKNOWN))
    return apply_paths(value, list(sensitive)) if sensitive else value


def from_wire(raw: Any, ty: CtyType) -> Any:
    """A ctl value from unpacked msgpack data (``_Misfit`` on a mismatch)."""
    if raw is None:
        return None
    if raw is _WIRE_UNKNOWN:
        return Unknown(None if ty is DYNAMIC else ty.friendly_name)
    kind = ty.kind
    if kind == "string":
        if type(raw) is str:
            return raw
        raise _Misfit("string is required")
    if kind == "number":
        if type(raw) is int:
            return raw
        if type(raw) is float:
            try:
                return from_wire_float(raw)
            except NotANumber:
                raise _Misfit("number is required") from None
        if type(raw) is str:
            try:
                return parse_number(raw)
            except NotANumber:
                raise _Misfit("number is required") from None
        raise _Misfit("number is required")
    if kind == "bool":
        if raw is True or raw is False:
            return raw
        raise _Misfit("bool is required")
    if kind == "object":
        return _object_from_wire(raw, ty)  # type: ignore[arg-type]
    if kind in ("list", "set"):
        if type(raw) is not list:
            raise _Misfit(f"a {kind} is required")
        element = ty.element  # type: ignore[attr-defined]
        out = []
        for i, x in enumerate(raw):
            try:
                out.append(from_wire(x, element))
            except _Misfit as e:
                e.reversed_path.append(i)
                raise
        # Sets follow ctl's element order (as ``toset`` gives it), so equal sets compare equal.
        return as_set(out) if kind == "set" else out
    if kind == "map":
        if type(raw) is not dict:
            raise _Misfit("a map is required")
        element = ty.element  # type: ignore[attr-defined]
        out_map = {}
        for k, x in raw.items():
            if type(k) is not str:
                raise _Misfit("non-string key in map")
            try:
                out_map[k] = from_wire(x, element)
            except _Misfit as e:
                e.reversed_path.append(k)
                raise
        return out_map
    if kind == "tuple":
        return _tuple_from_wire(raw, ty)  # type: ignore[arg-type]
    if kind == "dynamic":
        return _dynamic_from_wire(raw)
    raise _Misfit(f"unsupported type {ty.friendly_name}")


def _object_from_wire(raw: Any, ty: ObjectType) -> dict:
    if type(raw) is not dict:
        raise _Misfit("an object is required")
    attributes = ty.attributes
    out = {}
    for k, x in raw.items():
        aty = attributes.get(k) if type(k) is str else None
        if aty is None:
            if type(k) is not str:
                raise _Misfit("all keys must be strings")
            e = _Misfit("unsupported attribute")
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
        except _Misfit as e:
            e.reversed_path.append(k)
            raise
    if len(out) != len(attributes):
        for name in ty.names:
            out.setdefault(name, None)  # providers send every attribute; tolerate one that does not
    return out


def _tuple_from_wire(raw: Any, ty: TupleType) -> list:
    if type(raw) is not list:
        raise _Misfit("a tuple is required")
    if len(raw) != len(ty.elements):
        raise _Misfit(f"a tuple of length {len(ty.elements)} is required")
    out = []
    for i, (x, t) in enumerate(zip(raw, ty.elements, strict=True)):
        try:
            out.append(from_wire(x, t))
        except _Misfit as e:
            e.reversed_path.append(i)
            raise
    return out


_TYPE_CACHE: dict[bytes, CtyType] = {}


def _dynamic_from_wire(raw: Any) -> Any:
    if type(raw) is not list or len(raw) != 2:
        raise _Misfit("dynamic value array must have exactly two elements")
    type_bytes, inner = raw
    if not isinstance(type_bytes, bytes | str):
        raise _Misfit("the type of a dynamic value must be JSON bytes")
    key = type_bytes.encode() if isinstance(type_bytes, str) else type_bytes
    actual = _TYPE_CACHE.get(key)
    if actual is None:
        try:
            actual = parse_type(key)
        except TypeSpecError as e:
            raise _Misfit(e.summary) from None
        if len(_TYPE_CACHE) < 4096:
            _TYPE_CACHE[key] = actual
    return from_wire(inner, actual)
