"""Set functions: setintersection setproduct setsubtract setunion.

Sets are lists without duplicates in a stable order (strings lexically, numbers numerically), so
``for_each = setunion(...)`` produces the same instance keys on every run. Element types are
unified first, so ``setunion(["a"], [1])`` is ``["1", "a"]`` as in Terraform.
"""

from __future__ import annotations

import math
from typing import Any

from engine.lang.functions._args import make_set, typed_key, unify, want_list
from engine.lang.functions._core import Args, CallError, FunctionContext, fn
from vocab.limits import MAX_COLLECTION_LENGTH
from vocab.values import SetValue

_SET = "set of dynamic"  # the parameters' type, as a refusal names it


def _setintersection(a: Args, _c: FunctionContext) -> list[Any]:
    first = make_set(want_list(a[0], 0, _SET), 0)
    for i in range(1, len(a)):
        other = {typed_key(x) for x in make_set(want_list(a[i], i, _SET), i)}
        first = SetValue(x for x in first if typed_key(x) in other)
    return first


def _setsubtract(a: Args, _c: FunctionContext) -> list[Any]:
    remove = {typed_key(x) for x in make_set(want_list(a[1], 1, _SET), 1)}
    return SetValue(x for x in make_set(want_list(a[0], 0, _SET), 0) if typed_key(x) not in remove)


def _setunion(a: Args, _c: FunctionContext) -> list[Any]:
    items: list[Any] = []
    for i, v in enumerate(a):
        items.extend(want_list(v, i, _SET))
    return make_set(items, 0)


def _setproduct(a: Args, _c: FunctionContext) -> list[Any]:
    if len(a) < 2:
        raise CallError("at least two arguments are required")
    inputs = [unify(list(want_list(v, i, _SET)), i) for i, v in enumerate(a)]
    size = math.prod(len(items) for items in inputs)
    if size > MAX_COLLECTION_LENGTH:
        raise CallError(f"the product would have {size:,} elements; at most {MAX_COLLECTION_LENGTH:,} are "
                        "allowed (MAX_COLLECTION_LENGTH)")
    product: list[list[Any]] = [[]]
    for items in inputs:
        product = [[*prefix, x] for prefix in product for x in items]
    return product


FUNCTIONS = {
    "setintersection": fn(_setintersection, "first_set", variadic="other_sets"),
    "setproduct": fn(_setproduct, variadic="sets"),
    "setsubtract": fn(_setsubtract, "a", "b"),
    "setunion": fn(_setunion, "first_set", variadic="other_sets"),
}
