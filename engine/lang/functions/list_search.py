"""Functions that find elements in a list: contains element index matchkeys one.

Elements are compared by value and type (``index`` and ``contains`` never take ``"1"`` for ``1``);
``matchkeys`` unifies the element types of its lists first. ``element`` and ``one`` are
``unknown_ok``: they need only the list's shape and the index.
"""

from __future__ import annotations

from typing import Any

from engine.lang import numbers
from engine.lang.functions._args import (
    NOT_WHOLE,
    describe,
    typed_key,
    unify,
    values_equal,
    want_list,
    want_num,
)
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn, returns_list
from vocab.values import UNKNOWN, Null, SetValue, Unknown, contains_unknown, type_name


def _contains(a: Args, _c: FunctionContext) -> bool:
    if a[1] is None:
        raise ArgError(1, "argument must not be null")
    if not isinstance(a[0], list):
        raise CallError("argument must be list, tuple, or set")
    key = typed_key(a[1])
    return any(typed_key(x) == key for x in a[0])


def _element(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], SetValue):  # a set has no order to index by, as both references say
        of = type_name(a[0][0]) if a[0] else "dynamic"
        raise CallError(f"cannot read elements from set of {of}")
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    if not isinstance(a[0], list):
        raise CallError(f"cannot read elements from {describe(a[0])}")
    items, number = a[0], want_num(a[1], 1)
    # A Go int, as the references convert it: a fraction (by its exact value: 1e-400 is one) or a
    # number past ±2^63 (1e400) is refused.
    index = int(numbers.exact(number)) if numbers.is_whole(number) else None
    if index is None or not -(1 << 63) <= index < 1 << 63:
        raise CallError(f"invalid index: {NOT_WHOLE}")
    if not items:
        raise CallError("cannot use element function with an empty list")
    # A negative index counts from the end and wraps like a positive one (-1 is the last element),
    # as in the newest language (OpenTofu 1.12); Terraform 1.0.3 refused it.
    return items[index % len(items)]


def _index(a: Args, _c: FunctionContext) -> int:
    if not isinstance(a[0], list) or isinstance(a[0], SetValue):
        raise CallError("argument must be a list or tuple")
    for n, x in enumerate(a[0]):
        if values_equal(x, a[1]):
            return n
    raise CallError("item not found")


def _matchkeys(a: Args, _c: FunctionContext) -> list[Any]:
    vals, keys, search = want_list(a[0], 0), want_list(a[1], 1), want_list(a[2], 2)
    if len(vals) != len(keys):
        raise CallError("length of keys and values should be equal")
    wanted = {typed_key(x) for x in unify(list(search), 2)}
    keys = unify(list(keys), 1)
    return [v for v, k in zip(vals, keys, strict=True) if typed_key(k) in wanted]


def _one(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    items = want_list(a[0], 0) if a[0] is None or type(a[0]) is Null else a[0]
    if not isinstance(items, list) or len(items) > 1:
        raise ArgError(0, "must be a list, set, or tuple value with either zero or one elements")
    return items[0] if items else None


FUNCTIONS = {
    "contains": fn(_contains, "list", "value"),
    "element": fn(_element, "list", "index", unknown_ok=True, element_marks=True, typed_nulls=True),
    "index": fn(_index, "list", "value"),
    "matchkeys": fn(returns_list(_matchkeys), "values", "keys", "searchset"),
    "one": fn(_one, "list", unknown_ok=True),
}
