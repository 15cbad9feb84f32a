"""List and map functions: alltrue anytrue chunklist coalesce coalescelist compact concat contains
distinct element flatten index keys length lookup matchkeys merge one range reverse slice sort sum
transpose values zipmap. (Set algebra is in ``sets.py``.)

Several of these are declared ``unknown_ok``: they only rearrange a collection, so a list whose
*elements* are unknown still has a known shape (``length``, ``concat``, ``merge``, ``keys`` …).
They return ``UNKNOWN`` themselves only when the collection itself, or an index, is unknown.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from engine.lang import numbers
from engine.lang.functions._args import (
    describe,
    typed_key,
    unify,
    values_equal,
    want_bool,
    want_int,
    want_list,
    want_map,
    want_num,
    want_str,
    want_str_list,
)
from engine.lang.functions._core import ArgError, CallError, FunctionContext, fn
from engine.lang.functions._text import char_count
from engine.lang.values import UNKNOWN, Unknown, contains_unknown, normalize_number

_RANGE_LIMIT = 1024


def _alltrue(a: list, _c: FunctionContext) -> bool:
    return all(x is not None and want_bool(x, 0) for x in want_list(a[0], 0))


def _anytrue(a: list, _c: FunctionContext) -> bool:
    return any(x is not None and want_bool(x, 0) for x in want_list(a[0], 0))


def _chunklist(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    items, size = want_list(a[0], 0), want_int(a[1], 1)
    if size < 0:
        raise ArgError(1, "the size argument must be positive")
    if not items:
        return []
    if size == 0:
        return [list(items)]
    return [items[i : i + size] for i in range(0, len(items), size)]


def _coalesce(a: list, _c: FunctionContext) -> object:
    try:
        args = unify(list(a), 0)
    except ArgError as exc:
        raise CallError("all arguments must have the same type") from exc
    for v in args:
        if v is not None and v != "":
            return v
    raise CallError("no non-null, non-empty-string arguments")


def _coalescelist(a: list, _c: FunctionContext) -> list:
    for i, v in enumerate(a):
        if v is None:
            continue
        if want_list(v, i):
            return v
    raise CallError("no non-null, non-empty list arguments")


def _compact(a: list, _c: FunctionContext) -> list:
    return [x for x in want_str_list(a[0], 0, allow_null=True) if x]


def _concat(a: list, _c: FunctionContext) -> object:
    out: list = []
    for i, v in enumerate(a):
        if isinstance(v, Unknown):
            return UNKNOWN
        if not isinstance(v, list):
            raise ArgError(i, f"all arguments must be lists or tuples, got {describe(v)}")
        out.extend(v)
    return out


def _contains(a: list, _c: FunctionContext) -> bool:
    if a[1] is None:
        raise ArgError(1, "argument must not be null")
    key = typed_key(a[1])
    return any(typed_key(x) == key for x in want_list(a[0], 0))


def _distinct(a: list, _c: FunctionContext) -> list:
    seen: set[tuple] = set()
    out: list = []
    for x in unify(list(want_list(a[0], 0)), 0):
        k = typed_key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _element(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    items, index = want_list(a[0], 0), want_int(a[1], 1)
    if not items:
        raise ArgError(0, "cannot use element function with an empty list")
    if index < 0:
        raise ArgError(1, "cannot use element function with a negative index")
    return items[index % len(items)]


def _flatten_into(items: list, out: list) -> bool:
    """Append the leaves of ``items``; False when an unknown value hides the shape."""
    for x in items:
        if isinstance(x, Unknown):
            return False
        if isinstance(x, list):
            if not _flatten_into(x, out):
                return False
        else:
            out.append(x)
    return True


def _flatten(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    out: list = []
    return out if _flatten_into(want_list(a[0], 0), out) else UNKNOWN


def _index(a: list, _c: FunctionContext) -> int:
    for n, x in enumerate(want_list(a[0], 0)):
        if values_equal(x, a[1]):
            return n
    raise CallError("item not found")


def _keys(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    return sorted(want_map(a[0], 0))


def _values(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    m = want_map(a[0], 0)
    return [m[k] for k in sorted(m)]


def _length(a: list, _c: FunctionContext) -> object:
    v = a[0]
    if isinstance(v, Unknown):
        return UNKNOWN
    if isinstance(v, str):
        return char_count(v)
    if isinstance(v, list | dict):
        return len(v)
    if v is None:
        raise ArgError(0, "argument must not be null")
    raise ArgError(0, f"argument must be a string, a list or a map, got {describe(v)}")


def _lookup(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    m, key = want_map(a[0], 0), want_str(a[1], 1)
    if key in m:
        return m[key]
    if len(a) > 2:
        return a[2]
    raise CallError(f'lookup failed to find key "{key}"')


def _matchkeys(a: list, _c: FunctionContext) -> list:
    vals, keys, search = want_list(a[0], 0), want_list(a[1], 1), want_list(a[2], 2)
    if len(vals) != len(keys):
        raise CallError("length of keys and values should be equal")
    wanted = {typed_key(x) for x in unify(list(search), 2)}
    keys = unify(list(keys), 1)
    return [v for v, k in zip(vals, keys, strict=True) if typed_key(k) in wanted]


def _merge(a: list, _c: FunctionContext) -> object:
    out: dict = {}
    for i, v in enumerate(a):
        if v is None:
            continue
        if isinstance(v, Unknown):
            return UNKNOWN
        out.update(want_map(v, i))
    return out


def _one(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    items = want_list(a[0], 0)
    if len(items) > 1:
        raise ArgError(0, "must be a list, set, or tuple value with either zero or one elements")
    return items[0] if items else None


def _range(a: list, _c: FunctionContext) -> list:
    nums = [
        Decimal(repr(n)) if isinstance(n, float) else Decimal(n)
        for n in (want_num(x, i) for i, x in enumerate(a))
    ]
    if len(nums) == 1:
        start, limit, step = Decimal(0), nums[0], None
    else:
        start, limit, step = nums[0], nums[1], nums[2] if len(nums) > 2 else None
    if step is None:
        step = Decimal(1) if limit >= start else Decimal(-1)
    if step == 0:
        raise ArgError(2, "step must not be zero")
    if step < 0 and limit > start:
        raise ArgError(1, "limit must be less than start when step is negative")
    if step > 0 and limit < start:
        raise ArgError(1, "limit must be greater than start when step is positive")
    out: list = []
    num = start
    while (num < limit) if step > 0 else (num > limit):
        if len(out) >= _RANGE_LIMIT:
            raise CallError(
                "more than 1024 values were generated; either decrease the difference between "
                "start and limit or use a smaller step"
            )
        out.append(normalize_number(int(num) if num == num.to_integral_value() else float(num)))
        num += step
    return out


def _reverse(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    return list(reversed(want_list(a[0], 0)))


def _slice(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or contains_unknown(a[1]) or contains_unknown(a[2]):
        return UNKNOWN
    items, start, end = want_list(a[0], 0), want_int(a[1], 1), want_int(a[2], 2)
    if start < 0:
        raise ArgError(1, "start index must not be less than zero")
    if end > len(items):
        raise ArgError(2, "end index must not be greater than the length of the list")
    if start > end:
        raise ArgError(1, "start index must not be greater than end index")
    return items[start:end]


def _sort(a: list, _c: FunctionContext) -> list:
    items = want_str_list(a[0], 0, allow_null=True)
    for n, x in enumerate(items):
        if x is None:
            raise ArgError(0, f"given list element {n} is null; a null string cannot be sorted")
    return sorted(items)


def _sum(a: list, _c: FunctionContext) -> int | float:
    items = want_list(a[0], 0)
    if not items:
        raise CallError("cannot sum an empty list")
    total = Fraction(0)
    for x in items:
        if x is None:
            raise ArgError(0, "argument must be a list of numbers without nulls")
        total = numbers.rounded(total + numbers.exact(want_num(x, 0)))  # one addition at a time
    return numbers.make(total)


def _transpose(a: list, _c: FunctionContext) -> dict:
    m = want_map(a[0], 0)
    out: dict[str, list[str]] = {}
    for key in sorted(m):
        if m[key] is None:
            raise ArgError(0, f'the value for key "{key}" is null; a list of strings is required')
        for v in want_str_list(m[key], 0):
            out.setdefault(v, []).append(key)
    return {k: out[k] for k in sorted(out)}


def _zipmap(a: list, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or isinstance(a[1], Unknown) or contains_unknown(a[0]):
        return UNKNOWN
    keys, vals = want_str_list(a[0], 0), want_list(a[1], 1)
    if len(keys) != len(vals):
        raise CallError(f"number of keys ({len(keys)}) does not match number of values ({len(vals)})")
    return dict(zip(keys, vals, strict=True))


FUNCTIONS = {
    "alltrue": fn(_alltrue, "list"),
    "anytrue": fn(_anytrue, "list"),
    "chunklist": fn(_chunklist, "list", "size", unknown_ok=True),
    "coalesce": fn(_coalesce, variadic="vals", min_variadic=1),
    "coalescelist": fn(_coalescelist, variadic="vals", min_variadic=1),
    "compact": fn(_compact, "list"),
    "concat": fn(_concat, variadic="seqs", unknown_ok=True, element_marks=True),
    "contains": fn(_contains, "list", "value"),
    "distinct": fn(_distinct, "list"),
    "element": fn(_element, "list", "index", unknown_ok=True, element_marks=True),
    "flatten": fn(_flatten, "list", unknown_ok=True),
    "index": fn(_index, "list", "value"),
    "keys": fn(_keys, "inputMap", unknown_ok=True, element_marks=True),
    "length": fn(_length, "value", unknown_ok=True, element_marks=True),
    "lookup": fn(_lookup, "inputMap", "key", optional=("default",), unknown_ok=True, element_marks=True),
    "matchkeys": fn(_matchkeys, "values", "keys", "searchset"),
    "merge": fn(_merge, variadic="maps", unknown_ok=True, element_marks=True),
    "one": fn(_one, "list", unknown_ok=True),
    "range": fn(_range, "start", optional=("limit", "step")),
    "reverse": fn(_reverse, "list", unknown_ok=True, element_marks=True),
    "slice": fn(_slice, "list", "start_index", "end_index", unknown_ok=True, element_marks=True),
    "sort": fn(_sort, "list"),
    "sum": fn(_sum, "list"),
    "transpose": fn(_transpose, "values"),
    "values": fn(_values, "mapping", unknown_ok=True, element_marks=True),
    "zipmap": fn(_zipmap, "keyslist", "valueslist", unknown_ok=True),
}
