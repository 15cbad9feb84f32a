"""Converting a ctl value to a cty type where Terraform would, and refusing where it would.

Terraform converts a configured value to the attribute's type before a provider sees it: ``"5"``
becomes the number 5, a number or bool becomes a string, a tuple becomes a list or set, an object
becomes a map. What cannot convert is refused with cty's wording (``a number is required``,
``list of string required``, ``attribute "name" is required``), which Terraform users know from
"Inappropriate value for attribute" errors. Marks survive conversion; unknown values stay unknown.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from vocab.conversion.mismatch import constraint_name, convertible
from vocab.conversion.mismatch import mismatch_message as type_mismatch_message
from vocab.conversion.numbers import NotANumber, number_text, parse_number
from vocab.conversion.value_errors import PathSteps, PluginValueError, format_path
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
    type_of_value,
)
from vocab.values import (
    ListValue,
    MapValue,
    Marked,
    SetValue,
    Unknown,
    contains_unknown,
    deep_unmark,
    mark,
)

_PLAIN_TYPES: dict[CtyType, type] = {STRING: str, NUMBER: int, BOOL: bool}


class ConversionError(PluginValueError):
    """A value Terraform would refuse for an attribute of this type."""

    def __init__(self, message: str, path: PathSteps = ()) -> None:
        super().__init__(message, path)
        where = format_path(path)
        self.summary = (
            f'Inappropriate value for attribute "{where}": {message}.'
            if where
            else f"Inappropriate value: {message}."
        )
        self.args = (self.summary,)


def convert(value: Any, ty: CtyType, path: PathSteps = ()) -> Any:
    """``value`` converted to ``ty``; ``path`` names where it sits, for the error message.

    As in cty, the value's type must be able to convert before any value is looked at, so a type
    that cannot convert is reported where cty reports it (with the offending step in the message).
    """
    if value is None or type(value) is _PLAIN_TYPES.get(ty):
        return value  # already a plain value of the type: nothing to check or convert
    if ty is not DYNAMIC:
        try:
            got = type_of_value(value)
        except TypeSpecError as e:
            raise ConversionError(e.summary, path) from None
        if not convertible(got, ty):
            raise ConversionError(type_mismatch_message(got, ty), path)
    return _convert(value, ty, path)


def _convert(value: Any, ty: CtyType, path: PathSteps) -> Any:
    if isinstance(value, Marked):
        return mark(_convert(value.value, ty, path), value.marks)
    if value is None:
        return None
    if isinstance(value, Unknown):
        return value if ty.kind == "dynamic" else Unknown(ty.friendly_name)
    kind = ty.kind
    if kind == "dynamic":
        return value
    if kind == "string":
        return to_string(value, path)
    if kind == "number":
        return to_number(value, path)
    if kind == "bool":
        return to_bool(value, path)
    if isinstance(ty, Collection) and kind in ("list", "set"):
        if not isinstance(value, list):
            raise ConversionError(mismatch_message(value, ty), path)
        if kind == "list" and isinstance(value, SetValue) and contains_unknown(value):
            return Unknown(ty.friendly_name)  # a set's order is not known while an element is not
        element = ty.element
        items = [_convert(x, element, (*path, i)) for i, x in enumerate(value)]
        return as_set(items) if kind == "set" else items
    if isinstance(ty, Collection) and kind == "map":
        if not isinstance(value, dict):
            raise ConversionError(mismatch_message(value, ty), path)
        element = ty.element
        # In key order, like cty, so the first problem reported is the one cty would report.
        return {k: _convert(value[k], element, (*path, k)) for k in sorted(value)}
    if isinstance(ty, ObjectType):
        return _to_object(value, ty, path)
    if isinstance(ty, TupleType):
        if not isinstance(value, list) or len(value) != len(ty.elements):
            raise ConversionError(mismatch_message(value, ty), path)
        return [_convert(x, t, (*path, i)) for i, (x, t) in enumerate(zip(value, ty.elements, strict=True))]
    raise ConversionError(mismatch_message(value, ty), path)


def mismatch_message(value: Any, want: CtyType) -> str:
    """Why ``value`` cannot be of type ``want`` at all, in cty's words."""
    try:
        got = type_of_value(value)
    except TypeSpecError:
        return f"{constraint_name(want)} required"
    return type_mismatch_message(got, want)


def to_string(value: Any, path: PathSteps = ()) -> str:
    """A known, unmarked scalar as a string: numbers as cty spells them, bools as true/false."""
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        try:
            return number_text(value)
        except NotANumber as e:
            raise ConversionError(str(e), path) from None
    raise ConversionError(mismatch_message(value, STRING), path)


def to_number(value: Any, path: PathSteps = ()) -> int | float:
    """A known, unmarked value as a number; strings must spell one exactly."""
    if isinstance(value, bool):
        raise ConversionError(mismatch_message(value, NUMBER), path)
    if isinstance(value, int | float):
        return value
    if isinstance(value, Decimal):
        return parse_number(format(value, "f")) if value.is_finite() else _refuse_number(value, path)
    if isinstance(value, str):
        try:
            return parse_number(value)
        except NotANumber:
            raise ConversionError("a number is required", path) from None
    raise ConversionError(mismatch_message(value, NUMBER), path)


def _refuse_number(value: Any, path: PathSteps) -> int:
    raise ConversionError(f"{value} is not a number cty can hold", path)


def to_bool(value: Any, path: PathSteps = ()) -> bool:
    """A known, unmarked value as a bool; of strings only "true"/"1" and "false"/"0" convert."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "1"):
            return True
        if value in ("false", "0"):
            return False
        lowered = value.lower()
        if lowered in ("true", "false"):
            raise ConversionError(
                f'a bool is required; to convert from string, use lowercase "{lowered}"', path
            )
        raise ConversionError("a bool is required", path)
    raise ConversionError(mismatch_message(value, BOOL), path)


def _to_object(value: Any, ty: ObjectType, path: PathSteps) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConversionError(mismatch_message(value, ty), path)
    missing = [n for n in ty.names if n not in value and n not in ty.optional]
    if len(missing) == 1:
        raise ConversionError(f'attribute "{missing[0]}" is required', path)
    if len(missing) == 2:
        raise ConversionError(f'attributes "{missing[0]}" and "{missing[1]}" are required', path)
    if missing:
        names = "".join(f'"{n}", ' for n in missing[:-1])
        raise ConversionError(f'attributes {names}and "{missing[-1]}" are required', path)
    # Attributes the type does not name are dropped, as cty's conversion does.
    return {n: _convert(value.get(n), t, (*path, n)) for n, t in ty.fields}


def as_set(items: list[Any]) -> SetValue:
    """ctl's set convention: known elements sorted without duplicates, unknown ones last."""
    known: dict[tuple[Any, ...], Any] = {}
    unknown = []
    for x in items:
        if contains_unknown(x):
            unknown.append(x)
            continue
        key = _set_key(x)
        known[key] = mark(known[key], frozenset(_marks(x))) if key in known else x
    return SetValue([known[k] for k in sorted(known)] + unknown)


def _marks(v: Any) -> frozenset[str]:
    return v.marks if isinstance(v, Marked) else frozenset()


def _set_key(v: Any) -> tuple[Any, ...]:
    plain, _ = deep_unmark(v)
    if isinstance(plain, bool):
        return (2, plain)
    if isinstance(plain, int | float):
        return (0, plain)
    if isinstance(plain, str):
        return (1, plain)
    return (3, json.dumps(plain, sort_keys=True, default=repr))


def with_collection_kinds(value: Any, ty: CtyType) -> Any:
    """``value`` as state holds it (plain JSON data) with its lists, sets and maps made the
    collections ``ty`` says they are, as a provider's answer decodes to.

    A resource that a run does not refresh or change is read from the state file, where a list, a
    set and a tuple are all JSON arrays; without this, ``for_each`` over its set attribute would
    refuse a list, and an output of its map would be typed an object. Returns ``value`` itself when
    nothing in it needed a change.
    """
    if value is None or type(value) in _SCALARS:
        return value
    if isinstance(value, Marked):
        inner = with_collection_kinds(value.value, ty)
        return value if inner is value.value else mark(inner, value.marks)
    kind = ty.kind
    if isinstance(ty, Collection) and kind in ("list", "set") and isinstance(value, list):
        element = ty.element
        items = [with_collection_kinds(x, element) for x in value]
        if kind == "set":
            return value if isinstance(value, SetValue) and all(map(_same, items, value)) else as_set(items)
        if isinstance(value, ListValue) and all(map(_same, items, value)):
            return value
        return ListValue(items)
    if isinstance(ty, Collection) and kind == "map" and isinstance(value, dict):
        element = ty.element
        entries = {k: with_collection_kinds(x, element) for k, x in value.items()}
        if isinstance(value, MapValue) and all(entries[k] is value[k] for k in value):
            return value
        return MapValue(entries)
    if isinstance(ty, ObjectType) and isinstance(value, dict):
        out: dict[str, Any] | None = None
        for name, x in value.items():
            attribute = ty.attributes.get(name)
            if attribute is None:
                continue
            typed = with_collection_kinds(x, attribute)
            if typed is not x:
                if out is None:
                    out = dict(value)
                out[name] = typed
        return value if out is None else out
    if isinstance(ty, TupleType) and isinstance(value, list) and len(value) == len(ty.elements):
        items = [with_collection_kinds(x, t) for x, t in zip(value, ty.elements, strict=True)]
        return value if all(map(_same, items, value)) else items
    return value


_SCALARS = frozenset({str, int, float, bool})


def _same(a: Any, b: Any) -> bool:
    return a is b
