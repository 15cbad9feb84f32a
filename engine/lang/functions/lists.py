"""Functions that build a list, or filter and order one by its values: compact distinct range sort.

``range`` is limited to 1024 values, as in Terraform, so a typo in a limit cannot exhaust memory.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine.lang import numbers
from engine.lang.functions._args import (
    typed_key,
    unify,
    want_list,
    want_num,
    want_str_list,
)
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn, returns_list
from vocab.types import NUMBER, STRING
from vocab.values import normalize_number

_RANGE_LIMIT = 1024


def _compact(a: Args, _c: FunctionContext) -> list[Any]:
    return [x for x in want_str_list(a[0], 0, allow_null=True) if x]


def _distinct(a: Args, _c: FunctionContext) -> list[Any]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Any] = []
    for x in unify(list(want_list(a[0], 0)), 0):
        k = typed_key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _range(a: Args, _c: FunctionContext) -> list[Any]:
    """cty's ``range``, messages and all: a zero step is let through (cty means to refuse it but
    compares the wrong way), so it gives no values when start is end and too many when start is
    below end."""
    if not 1 <= len(a) <= 3:  # one variadic parameter in cty, counted here
        raise CallError("must have one, two, or three arguments")
    nums = [
        # A fraction's own digits: a double can be 0.0 where the number is not (``1e-400``).
        Decimal(numbers.to_text(n)) if type(n) is numbers.BigFloat else Decimal(repr(n)) if isinstance(n, float)
        else Decimal(n)
        for n in (want_num(x, i) for i, x in enumerate(a))
    ]
    if len(nums) == 1:
        start, limit, step = Decimal(0), nums[0], None
    else:
        start, limit, step = nums[0], nums[1], nums[2] if len(nums) > 2 else None
    if step is None:
        step = Decimal(1) if limit >= start else Decimal(-1)
    down = step < 0
    if down and limit > start:
        raise ArgError(1, "end must be less than start when step is negative")
    if not down and limit < start:
        raise ArgError(1, "end must be greater than start when step is positive")
    out: list[Any] = []
    num = start
    while (num > limit) if down else (num < limit):
        if len(out) >= _RANGE_LIMIT:
            raise CallError(
                "more than 1024 values were generated; either decrease the difference between "
                "start and end or use a smaller step"
            )
        out.append(normalize_number(int(num) if num == num.to_integral_value() else float(num)))
        num += step
    return out


def _sort(a: Args, _c: FunctionContext) -> list[Any]:
    items = want_str_list(a[0], 0, allow_null=True)
    for n, x in enumerate(items):
        if x is None:
            raise ArgError(0, f"given list element {n} is null; a null string cannot be sorted")
    return sorted(items)


FUNCTIONS = {
    "compact": fn(returns_list(_compact, STRING), "list"),
    "distinct": fn(returns_list(_distinct), "list"),
    "range": fn(returns_list(_range, NUMBER), variadic="params"),  # one variadic parameter in cty
    "sort": fn(returns_list(_sort, STRING), "list"),
}
