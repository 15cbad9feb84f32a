"""cty's MessagePack encoding of values: what ``DynamicValue.msgpack`` carries.

The format (go-cty's ``cty/msgpack``): null is nil; an unknown value is an extension value (type 0
with one zero byte, ``d4 00 00``; newer providers send type 12 with a map of refinements, read here
as plain unknown because ctl's value model has no refinements); numbers are int64 when integral and
in range, float64 when that is exact, else the decimal's text; lists, sets and tuples are arrays
(sets in cty's element order); maps and objects are maps with sorted keys and every object attribute
present; a value of the ``dynamic`` pseudo-type is the two-element array ``[type JSON (bin), value]``
unless it is null or unknown.

Encoding converts where Terraform would (``"5"`` for a number, ``5`` for a string, a tuple for a
list) and strips marks, reporting the path of every secret so the caller can mark what comes back.
Everything else is a ``PluginValueError`` naming the attribute path. Decoding is in
``msgpack_decode`` and reached from here as well. The walk is one Python pass
over plain data plus one C ``msgpack`` call each way; types are shared objects, so nothing is
allocated per value beyond the output.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import msgpack

from adapters.plugin.dynamic_types import DynamicTypes, overrides_for
from adapters.plugin.msgpack_decode import decode, from_wire  # decoding, reached from here too
from adapters.plugin.set_order import sort_set
from vocab.conversion.convert import ConversionError, mismatch_message, to_bool, to_number, to_string
from vocab.conversion.numbers import NotANumber, number_wire
from vocab.conversion.value_errors import ENCODE_HINT, Misfit
from vocab.types import (
    BOOL,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    TypeSpecError,
    type_json,
    type_of_value,
)
from vocab.values import Marked, Path, Unknown, deep_unmark

UNKNOWN_EXT_TYPE = 0
UNKNOWN_WIRE = msgpack.ExtType(UNKNOWN_EXT_TYPE, b"\x00")
_ABSENT = object()


class _Options:
    """Internal: what one encode call was asked for, handed down the walk as one argument."""

    __slots__ = ("overrides", "strict")

    def __init__(self, strict: bool, overrides: dict[int, CtyType]) -> None:
        self.strict = strict
        self.overrides = overrides


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
    except Misfit as e:
        raise e.error(ENCODE_HINT) from None
    paths = [tuple(reversed(p)) for p in found]
    return msgpack.packb(wire, use_bin_type=True), paths


def to_wire(
    value: Any, ty: CtyType, *, strict: bool = False, dynamic_types: DynamicTypes | None = None
) -> Any:
    """The msgpack-ready form of ``value`` (marks dropped): for callers embedding it elsewhere."""
    opts = _Options(strict, overrides_for(value, dynamic_types) if dynamic_types else {})
    try:
        return _prepare(value, ty, [], opts)
    except Misfit as e:
        raise e.error(ENCODE_HINT) from None


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
        return _to_bool_wire(v)
    if isinstance(ty, ObjectType):
        return _prepare_object(v, ty, found, opts)
    if isinstance(ty, Collection) and kind in ("list", "set"):
        if not isinstance(v, list):
            raise Misfit(mismatch_message(v, ty))
        element = ty.element
        out = []
        for i, x in enumerate(v):
            n = len(found)
            try:
                out.append(_prepare(x, element, found, opts))
            except Misfit as e:
                e.reversed_path.append(i)
                raise
            for p in found[n:]:
                p.append(i)
        return sort_set(out, element, UNKNOWN_WIRE) if kind == "set" else out
    if isinstance(ty, Collection) and kind == "map":
        if not isinstance(v, dict):
            raise Misfit(mismatch_message(v, ty))
        element = ty.element
        out_map = {}
        for k in sorted(v):
            n = len(found)
            try:
                if not isinstance(k, str):
                    raise Misfit("map keys must be strings")
                out_map[k] = _prepare(v[k], element, found, opts)
            except Misfit as e:
                e.reversed_path.append(k)
                raise
            for p in found[n:]:
                p.append(k)
        return out_map
    if isinstance(ty, TupleType):
        return _prepare_tuple(v, ty, found, opts)
    if kind == "dynamic":
        actual = opts.overrides.get(id(v)) if opts.overrides else None
        if actual is None:
            try:
                actual = type_of_value(v)
            except TypeSpecError as e:
                raise Misfit(e.summary) from None
        return [type_json(actual), _prepare(v, actual, found, opts)]
    raise Misfit(f"cannot encode a value of type {ty.friendly_name}")


def _prepare_object(v: Any, ty: ObjectType, found: list[list[str | int]], opts: _Options) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise Misfit(mismatch_message(v, ty))
    out: dict[str, Any] = {}
    present = 0
    for name, aty in ty.fields:
        x = v.get(name, _ABSENT)
        if x is _ABSENT:
            if opts.strict and name not in ty.optional:
                raise Misfit(f'attribute "{name}" is required')
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
        except Misfit as e:
            e.reversed_path.append(name)
            raise
        if len(found) != n:
            for p in found[n:]:
                p.append(name)
    if len(v) != present:
        extra = sorted(str(k) for k in v if k not in ty.attributes)
        raise Misfit(f'unsupported attribute "{extra[0]}"')
    return out


def _prepare_tuple(v: Any, ty: TupleType, found: list[list[str | int]], opts: _Options) -> list[Any]:
    if not isinstance(v, list):
        raise Misfit(mismatch_message(v, ty))
    if len(v) != len(ty.elements):
        raise Misfit(f"tuple required: {len(ty.elements)} elements, not {len(v)}")
    out = []
    for i, (x, t) in enumerate(zip(v, ty.elements, strict=True)):
        n = len(found)
        try:
            out.append(_prepare(x, t, found, opts))
        except Misfit as e:
            e.reversed_path.append(i)
            raise
        for p in found[n:]:
            p.append(i)
    return out


def _to_number_wire(v: Any) -> Any:
    try:
        return number_wire(to_number(v))
    except ConversionError as e:
        raise Misfit(e.message) from None
    except NotANumber:
        raise Misfit("a number is required") from None


def _scalar_to_string(v: Any) -> str:
    try:
        return to_string(v)
    except ConversionError as e:
        raise Misfit(e.message) from None


def _to_bool_wire(v: Any) -> bool:
    try:
        return to_bool(v)
    except ConversionError as e:
        raise Misfit(e.message) from None


__all__ = ["UNKNOWN_EXT_TYPE", "UNKNOWN_WIRE", "decode", "encode", "from_wire", "to_wire"]
