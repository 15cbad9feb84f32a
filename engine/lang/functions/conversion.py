"""Type conversion and sensitivity functions: issensitive nonsensitive sensitive tobool tolist tomap
tonumber toset tostring.

``type()`` is not here: as in OpenTofu it is the console's own (``engine.console``), whose answer
is a type rather than a value, so a configuration that calls it is told there is no such function.

The ``to*`` functions turn ``null`` into a null of their type (``tostring(null)`` is a null string,
``tolist(null)`` a null list of dynamic), as OpenTofu and Terraform since 1.1 do, and convert only
where Terraform's conversion rules allow it (``tonumber("5")`` works, ``tostring([])`` does not).
``sensitive``/``nonsensitive``/``issensitive`` are the only functions that see marks: for every
other function the registry removes marks before the call and puts them back on the result.
"""

from __future__ import annotations

from engine.lang.functions._args import describe, make_set, parse_number, unify, want_str
from engine.lang.functions._core import ArgError, Args, FunctionContext, fn
from vocab import types as cty
from vocab.values import (
    SENSITIVE,
    UNKNOWN,
    ListValue,
    MapValue,
    Null,
    SetValue,
    Unknown,
    contains_unknown,
    deep_unmark,
    mark,
    unmark,
)


def _sensitive(a: Args, _c: FunctionContext) -> object:
    plain, marks = deep_unmark(a[0])
    return mark(plain, marks | {SENSITIVE})


def _nonsensitive(a: Args, _c: FunctionContext) -> object:
    plain, marks = deep_unmark(a[0])
    return mark(plain, marks - {SENSITIVE})


def _issensitive(a: Args, _c: FunctionContext) -> object:
    """Whether the value itself is sensitive, not something inside it, as OpenTofu and Terraform
    answer: ``issensitive([var.secret])`` is false, ``issensitive([var.secret][0])`` true."""
    plain, marks = unmark(a[0])
    if SENSITIVE in marks:
        return True
    return UNKNOWN if isinstance(plain, Unknown) else False


def _null_of(ty: cty.CtyType, given: object) -> Null:
    """The null a conversion to ``ty`` gives: a list, set or map keeps the element type the null it
    was given had (``tolist(toset(null))`` is a null list of dynamic)."""
    if isinstance(ty, cty.Collection) and isinstance(given, Null) and isinstance(given.type, cty.Collection | cty.Repeated):
        return Null(cty.Collection(ty.kind, given.type.element))
    return Null(ty)


def _is_null(v: object) -> bool:
    return v is None or type(v) is Null


def _tobool(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if _is_null(v):
        return _null_of(cty.BOOL, v)
    if isinstance(v, bool):
        return v
    if v in ("true", "false", "1", "0"):  # cty's string-to-bool conversion accepts "1" and "0" too
        return v in ("true", "1")
    if isinstance(v, str):
        raise ArgError(0, f'cannot convert "{v}" to bool; only the strings "true" or "false" are allowed')
    raise ArgError(0, f"cannot convert {describe(v)} to bool")


def _tonumber(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if _is_null(v):
        return _null_of(cty.NUMBER, v)
    if isinstance(v, int | float) and not isinstance(v, bool):
        return v
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            raise ArgError(
                0, f'cannot convert "{v}" to number; given string must be a decimal representation of a number'
            )
        return n
    raise ArgError(0, f"cannot convert {describe(v)} to number")


def _tostring(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if _is_null(v):
        return _null_of(cty.STRING, v)
    if isinstance(v, list | dict):
        raise ArgError(0, f"cannot convert {describe(v)} to string")
    return want_str(v, 0)


def _tolist(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if _is_null(v):
        return _null_of(cty.list_of(cty.DYNAMIC), v)
    if isinstance(v, Unknown):
        return v
    if not isinstance(v, list):
        raise ArgError(0, f"cannot convert {describe(v)} to list of any single type")
    if isinstance(v, SetValue) and contains_unknown(v):
        return UNKNOWN  # a set's order is not known while an element is not
    return ListValue(unify(list(v), 0))


def _toset(a: Args, _c: FunctionContext) -> object:
    """Known elements as a set; elements not known yet stay, as unknown members after them (as
    Terraform keeps ``toset([x, "b"])`` a set holding "b" and one unknown element)."""
    v = a[0]
    if _is_null(v):
        return _null_of(cty.set_of(cty.DYNAMIC), v)
    if isinstance(v, Unknown):
        return v
    if not isinstance(v, list):
        raise ArgError(0, f"cannot convert {describe(v)} to set of any single type")
    unknown = [x for x in v if contains_unknown(x)]
    if not unknown:
        return make_set(v, 0)
    known = make_set([x for x in v if not contains_unknown(x)], 0)
    return SetValue([*known, *unknown])


def _tomap(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if _is_null(v):
        return _null_of(cty.map_of(cty.DYNAMIC), v)
    if isinstance(v, Unknown):
        return v
    if not isinstance(v, dict):
        raise ArgError(0, f"cannot convert {describe(v)} to map of any single type")
    keys = list(v)
    return MapValue(zip(keys, unify([v[k] for k in keys], 0, "map"), strict=True))


FUNCTIONS = {
    "issensitive": fn(_issensitive, "value", raw=True),
    "nonsensitive": fn(_nonsensitive, "value", raw=True),
    "sensitive": fn(_sensitive, "value", raw=True),
    "tobool": fn(_tobool, "v", typed_nulls=True),
    "tolist": fn(_tolist, "v", typed_nulls=True, unknown_ok=True, element_marks=True),
    "tomap": fn(_tomap, "v", typed_nulls=True, unknown_ok=True, element_marks=True),
    "tonumber": fn(_tonumber, "v", typed_nulls=True),
    "toset": fn(_toset, "v", typed_nulls=True, unknown_ok=True),
    "tostring": fn(_tostring, "v", typed_nulls=True),
}
