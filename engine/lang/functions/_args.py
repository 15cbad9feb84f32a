"""Argument conversion with the language's automatic conversions, and typed equality for sets.

Terraform converts arguments to the parameter's type before a function runs: a number or bool is
accepted where a string is expected (``upper(5)`` is ``"5"``), a numeric string where a number is
expected, ``"true"``/``"false"`` where a bool is expected. Lists and maps are never converted to
strings. Doing the same here keeps configurations written for Terraform working unchanged.

Python's ``1 == True`` and ``1 == 1.0`` would corrupt set semantics, so sets and ``contains``
compare through ``typed_key``, which keeps bools, numbers and strings apart.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.lang.functions._core import ArgError
from engine.lang.operators import format_number
from vocab.values import ListValue, MapValue, SetValue, Unknown, normalize_number, type_name

_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INT_RE = re.compile(r"[+-]?\d+")


def describe(v: Any) -> str:
    """The type name used in "X required, got Y" messages."""
    return type_name(v)


def num_to_str(n: int | float) -> str:
    """A number as Terraform writes it in strings: shortest digits, never an exponent."""
    if isinstance(n, int):
        return str(n)
    if n != n or n in (float("inf"), float("-inf")):
        raise ValueError("number is not finite")
    return format_number(n)


def parse_number(s: str) -> int | float | None:
    """A decimal number written as a string, or None when it is not one."""
    s = s.strip() if s[:1].isspace() or s[-1:].isspace() else s
    if not _NUMBER_RE.fullmatch(s):
        return None
    if _INT_RE.fullmatch(s):
        return int(s)
    return normalize_number(float(s))


def want_str(v: Any, i: int) -> str:
    """A string argument; numbers and bools convert as Terraform converts them."""
    if isinstance(v, str):
        return v
    if v is None:
        raise ArgError(i, "argument must not be null")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return num_to_str(v)
    raise ArgError(i, f"string required, got {describe(v)}")


def want_num(v: Any, i: int) -> int | float:
    """A number argument; a string holding a decimal number converts."""
    if isinstance(v, bool):
        raise ArgError(i, "number required, got bool")
    if isinstance(v, int | float):
        return v
    if v is None:
        raise ArgError(i, "argument must not be null")
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            raise ArgError(i, f'cannot convert "{v}" to number; a decimal number is required')
        return n
    raise ArgError(i, f"number required, got {describe(v)}")


def want_int(v: Any, i: int) -> int:
    """A whole-number argument (an index, a count, a bit length)."""
    n = want_num(v, i)
    if isinstance(n, float):
        if not n.is_integer():
            raise ArgError(i, f"a whole number is required, got {num_to_str(n)}")
        return int(n)
    return n


def want_bool(v: Any, i: int) -> bool:
    """A bool argument; the strings "true" and "false" convert."""
    if isinstance(v, bool):
        return v
    if v is None:
        raise ArgError(i, "argument must not be null")
    if v == "true":
        return True
    if v == "false":
        return False
    raise ArgError(i, f"bool required, got {describe(v)}")


def want_list(v: Any, i: int) -> list:
    """A list, tuple or set argument."""
    if isinstance(v, list):
        return v
    if v is None:
        raise ArgError(i, "argument must not be null")
    raise ArgError(i, f"list required, got {describe(v)}")


def want_map(v: Any, i: int) -> dict:
    """A map or object argument."""
    if isinstance(v, dict):
        return v
    if v is None:
        raise ArgError(i, "argument must not be null")
    raise ArgError(i, f"map required, got {describe(v)}")


def want_str_list(v: Any, i: int, *, allow_null: bool = False) -> list:
    """A list of strings (elements converted); nulls kept as None only when ``allow_null``."""
    items = want_list(v, i)
    out: list = []
    for n, x in enumerate(items):
        if x is None:
            if not allow_null:
                raise ArgError(i, f"element {n} is null; a list of strings without nulls is required")
            out.append(None)
        elif isinstance(x, str):
            out.append(x)
        elif isinstance(x, bool | int | float):
            out.append(want_str(x, i))
        else:
            raise ArgError(i, f"list of strings required, but element {n} is {describe(x)}")
    return out


def unify(items: list, i: int) -> list:
    """Convert mixed primitive elements to their most general type (string), as Terraform does.

    ``toset(["a", 3])`` is ``["3", "a"]``: when strings are mixed with numbers or bools they all
    become strings. The common type must be one of the elements' own types, so numbers mixed with
    bools alone, or primitives mixed with lists or maps, have none and are an error.
    """
    kinds: set[str] = set()
    for x in items:
        if x is None or isinstance(x, Unknown):
            continue
        if isinstance(x, str):
            kinds.add("s")
        elif isinstance(x, bool):
            kinds.add("b")
        elif isinstance(x, int | float):
            kinds.add("n")
        elif isinstance(x, list):
            kinds.add("l")
        else:
            kinds.add("m")
    if kinds in ({"l"}, {"m"}):
        return _unify_structural(items, i)
    if len(kinds) <= 1:
        return items
    if kinds <= {"s", "b", "n"} and "s" in kinds:
        return [x if x is None or isinstance(x, str | Unknown) else want_str(x, i) for x in items]
    raise ArgError(i, "all elements must have the same type")


def _unify_structural(items: list, i: int) -> list:
    """Collections of collections share one element type too: ``tomap({a = [1], b = ["x"]})`` is
    ``{a = ["1"], b = ["x"]}``. Objects of one shape are unified attribute by attribute; lists, and
    objects of different shapes (which become maps), across all their elements."""
    present = [x for x in items if x is not None and not isinstance(x, Unknown)]
    if all(isinstance(x, list) for x in present):
        elements = iter(unify([e for x in present for e in x], i))
        # Tuples of different lengths have no common tuple type: they unify to lists.
        as_list = len({len(x) for x in present}) > 1 or any(isinstance(x, ListValue) for x in present)
        return [_rebuilt([next(elements) for _ in x], as_list) if isinstance(x, list) else x for x in items]
    shapes = {frozenset(x) for x in present}
    if len(shapes) == 1 and not any(isinstance(x, MapValue) for x in present):
        columns = {k: iter(unify([x[k] for x in present], i)) for k in next(iter(shapes))}
        return [{k: next(columns[k]) for k in x} if isinstance(x, dict) else x for x in items]
    # Objects of different shapes have no common object type: they unify to maps.
    values = iter(unify([v for x in present for v in x.values()], i))
    return [MapValue({k: next(values) for k in x}) if isinstance(x, dict) else x for x in items]


def _rebuilt(elements: list, as_list: bool) -> list:
    return ListValue(elements) if as_list else elements


def typed_key(v: Any) -> tuple:
    """A hashable key under which two values are equal exactly when the language says they are."""
    if v is None:
        return ("z",)
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, int | float):
        return ("n", v)
    if isinstance(v, str):
        return ("s", v)
    return ("j", json.dumps(_canonical(v), sort_keys=True, separators=(",", ":")))


def _canonical(v: Any) -> Any:
    """JSON-ready form that still tells a bool from a number from a string."""
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    if isinstance(v, dict):
        return {k: _canonical(x) for k, x in v.items()}
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int | float):
        return {"n": v}
    return v


def values_equal(a: Any, b: Any) -> bool:
    """Typed deep equality: ``1`` is not ``true`` and not ``"1"``."""
    return typed_key(a) == typed_key(b)


_KIND_ORDER = {"b": 0, "n": 1, "s": 2, "z": 3, "j": 4}


def make_set(items: list, i: int) -> list:
    """A set as a list: element types unified, duplicates dropped, sorted (strings lexically)."""
    seen: dict[tuple, Any] = {}
    for x in unify(items, i):
        seen.setdefault(typed_key(x), x)
    keys = sorted(seen, key=lambda k: (_KIND_ORDER[k[0]], k[1] if len(k) > 1 else 0))
    return SetValue(seen[k] for k in keys)
