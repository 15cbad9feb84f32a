"""Functions that reshape a list without looking at its elements: chunklist concat flatten reverse slice.

All of them are ``unknown_ok``: a list whose *elements* are unknown still has a known shape, so the
result is unknown only when the list itself, an index or size, or (for ``flatten``) a nested list is
unknown.
"""

from __future__ import annotations

from typing import Any

from engine.lang.functions._args import (
    describe,
    want_int,
    want_list,
)
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from vocab.values import UNKNOWN, ListValue, Marked, SetValue, Unknown, contains_unknown, mark, unmark


def _flatten_into(items: list[Any], out: list[Any]) -> bool:
    """Append the leaves of ``items``; False when an unknown value hides the shape.

    A sensitive leaf stays a sensitive leaf; the elements of a sensitive list each carry its mark,
    as Terraform flattens them (``flatten([[var.secret], ["x"]])[1]`` is not sensitive).
    """
    for x in items:
        inner, marks = unmark(x) if type(x) is Marked else (x, frozenset[str]())
        if isinstance(inner, Unknown):
            return False
        if isinstance(inner, list):
            if not marks:
                if not _flatten_into(inner, out):
                    return False
                continue
            leaves: list[Any] = []
            if not _flatten_into(inner, leaves):
                return False
            out.extend(mark(leaf, marks) for leaf in leaves)
        else:
            out.append(x)
    return True


def _chunklist(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    items, size = want_list(a[0], 0), want_int(a[1], 1)
    if size < 0:
        raise CallError("the size argument must be positive")
    if not items:
        return ListValue()
    if size == 0:
        return ListValue([ListValue(items)])
    return ListValue(ListValue(items[i : i + size]) for i in range(0, len(items), size))


def _concat(a: Args, _c: FunctionContext) -> object:
    out: list[Any] = []
    for i, v in enumerate(a):
        if isinstance(v, Unknown):
            return UNKNOWN
        if not isinstance(v, list):
            raise ArgError(i, f"all arguments must be lists or tuples; got {describe(v)}")
        out.extend(v)
    return out


def _flatten(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    if not isinstance(a[0], list):
        raise CallError("can only flatten lists, sets and tuples")
    out: list[Any] = []
    return out if _flatten_into(a[0], out) else UNKNOWN


def _reverse(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    if not isinstance(a[0], list):  # a set is reversed in its order, as the references do
        raise ArgError(0, f"can only reverse list or tuple values, not {describe(a[0])}")
    return list(reversed(a[0]))


def _slice(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]) or contains_unknown(a[2]):
        return UNKNOWN
    if isinstance(a[0], SetValue):
        raise ArgError(0, "cannot slice a set, because its elements do not have indices; explicitly convert to a "
                          "list if the ordering of the result is not important")
    if not isinstance(a[0], list):
        raise ArgError(0, "must be a list or tuple value")
    items, start, end = a[0], want_int(a[1], 1), want_int(a[2], 2)
    if start < 0:
        raise ArgError(1, "start index must not be less than zero")
    if start > len(items):
        raise ArgError(1, "start index must not be greater than the length of the list")
    if end > len(items):
        raise ArgError(2, "end index must not be greater than the length of the list")
    if start > end:
        raise ArgError(1, "start index must not be greater than end index")
    return items[start:end]


FUNCTIONS = {
    "chunklist": fn(_chunklist, "list", "size", unknown_ok=True, element_marks=True),
    "concat": fn(_concat, variadic="seqs", unknown_ok=True, element_marks=True, typed_nulls=True),
    "flatten": fn(_flatten, "list", unknown_ok=True, element_marks=True, typed_nulls=True),
    "reverse": fn(_reverse, "list", unknown_ok=True, element_marks=True, typed_nulls=True),
    "slice": fn(_slice, "list", "start_index", "end_index", unknown_ok=True, element_marks=True, typed_nulls=True),
}
