"""Functions that reduce a collection to one value: alltrue anytrue coalesce coalescelist length sum.

``length`` is ``unknown_ok``: a list whose elements are unknown still has a known length. (Set
algebra is in ``sets.py``; the other collection functions are in ``maps``, ``lists``,
``list_shapes`` and ``list_search``.)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from engine.lang import numbers
from engine.lang.functions._args import (
    unify,
    want_bool,
    want_list,
    want_num,
)
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from engine.lang.functions._text import char_count
from vocab.values import UNKNOWN, Null, SetValue, Unknown, contains_unknown


def _alltrue(a: Args, _c: FunctionContext) -> bool:
    return all(x is not None and want_bool(x, 0) for x in want_list(a[0], 0, "list of bool"))


def _anytrue(a: Args, _c: FunctionContext) -> bool:
    return any(x is not None and want_bool(x, 0) for x in want_list(a[0], 0, "list of bool"))


def _coalesce(a: Args, _c: FunctionContext) -> object:
    if not a:  # no type to unify to, as cty words it
        raise CallError("all arguments must have the same type")
    try:
        args = unify(list(a), 0)
    except ArgError as exc:
        raise CallError("all arguments must have the same type") from exc
    for v in args:
        if v is not None and v != "":
            return v
    raise CallError("no non-null, non-empty-string arguments")


def _coalescelist(a: Args, _c: FunctionContext) -> list[Any]:
    if not a:
        raise CallError("at least one argument is required")
    for i, v in enumerate(a):
        if v is None or type(v) is Null:
            continue
        items = want_list(v, i)
        if items:
            return items
    raise CallError("no non-null arguments")


def _length(a: Args, _c: FunctionContext) -> object:
    v = a[0]
    if isinstance(v, Unknown):
        return UNKNOWN
    if isinstance(v, str):
        return char_count(v)
    if isinstance(v, SetValue) and any(contains_unknown(x) for x in v):
        return UNKNOWN  # an unknown element may turn out equal to another one
    if isinstance(v, list | dict):
        return len(v)
    if v is None:
        raise ArgError(0, "argument must not be null")
    raise CallError("argument must be a string, a collection type, or a structural type")


def _sum(a: Args, _c: FunctionContext) -> int | float:
    if not isinstance(a[0], list):
        raise ArgError(0, "cannot sum noniterable")
    items = a[0]
    if not items:
        raise ArgError(0, "cannot sum an empty list")
    total = Fraction(0)
    for x in items:
        if x is None:
            raise ArgError(0, "argument must be a list of numbers without nulls")
        try:
            number = want_num(x, 0)
        except ArgError:
            raise ArgError(0, "argument must be list, set, or tuple of number values") from None
        total = numbers.rounded(total + numbers.exact(number))  # one addition at a time
    if total == 0 and all(numbers.is_negative_zero(x) for x in items):
        return numbers.NEGATIVE_ZERO  # only negative zeros add up to one, as IEEE adds them
    return numbers.make(total)


FUNCTIONS = {
    "alltrue": fn(_alltrue, "list"),
    "anytrue": fn(_anytrue, "list"),
    "coalesce": fn(_coalesce, variadic="vals"),
    "coalescelist": fn(_coalescelist, variadic="vals", typed_nulls=True),
    "length": fn(_length, "value", unknown_ok=True, element_marks=True),
    "sum": fn(_sum, "list"),
}
