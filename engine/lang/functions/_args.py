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
from typing import Any, Literal, overload

from engine.lang import numbers
from engine.lang.functions._core import ArgError, CallError
from engine.lang.operators import format_number
from engine.lang.types import ConversionError, Ununifiable, unify_values
from vocab.values import Null, SetValue, type_name

_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INT_RE = re.compile(r"[+-]?\d+")


def describe(v: object) -> str:
    """The type name used in "X required, but have Y" messages."""
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
        return -0.0 if s[0] == "-" and int(s) == 0 else int(s)  # "-0" is the negative zero
    try:
        return numbers.parse(s)  # at 512 bits, as a literal: "1e400" is a number, not infinity
    except numbers.NumberOutOfRange:
        return None


def want_str(v: object, i: int) -> str:
    """A string argument; numbers and bools convert as Terraform converts them."""
    if isinstance(v, str):
        return v
    if v is None or type(v) is Null:
        raise ArgError(i, "argument must not be null")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return num_to_str(v)
    raise ArgError(i, f"string required, but have {describe(v)}")


def want_num(v: object, i: int) -> int | float:
    """A number argument; a string holding a decimal number converts."""
    if isinstance(v, bool):
        raise ArgError(i, "number required, but have bool")
    if isinstance(v, int | float):
        return v
    if v is None or type(v) is Null:
        raise ArgError(i, "argument must not be null")
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            raise ArgError(i, "a number is required")
        return n
    raise ArgError(i, f"number required, but have {describe(v)}")


NOT_WHOLE = "value must be a whole number, between -9223372036854775808 and 9223372036854775807"


_INT64 = 1 << 63


def want_int(v: object, i: int) -> int:
    """A whole-number argument (an index, a count, a length), which the references convert to a Go
    ``int``: a fraction, or a number past ±2^63 (``1e400``), fails the call as a whole."""
    n = _whole_or_none(v, i)
    if n is None or not -_INT64 <= n < _INT64:
        raise CallError(NOT_WHOLE)  # cty's conversion to a Go int, which fails the call as a whole
    return n


def want_whole(v: object, i: int) -> int:
    """A whole-number argument of any size (a host number in a 128-bit network: a Go ``big.Int``)."""
    n = _whole_or_none(v, i)
    if n is None:
        raise CallError("value must be a whole number")
    return n


def _whole_or_none(v: object, i: int) -> int | None:
    """The number as an int, or None when it has a fractional part (by its exact value: ``1e-400``
    has the double 0.0 but is a fraction)."""
    n = want_num(v, i)
    if isinstance(n, float):
        return int(numbers.exact(n)) if numbers.is_whole(n) else None
    return n


def want_bool(v: object, i: int) -> bool:
    """A bool argument; the strings "true" and "false" convert."""
    if isinstance(v, bool):
        return v
    if v is None or type(v) is Null:
        raise ArgError(i, "argument must not be null")
    if v == "true":
        return True
    if v == "false":
        return False
    if isinstance(v, str):
        raise ArgError(i, "a bool is required")
    raise ArgError(i, f"bool required, but have {describe(v)}")


def want_list(v: object, i: int, kind: str = "list of dynamic") -> list[object]:
    """A list, tuple or set argument; ``kind`` is the parameter's type as the refusal names it."""
    if isinstance(v, list):
        return v
    if v is None or type(v) is Null:
        raise ArgError(i, "argument must not be null")
    raise ArgError(i, f"{kind} required, but have {describe(v)}")


def want_map(v: object, i: int, kind: str = "map of dynamic") -> dict[str, object]:
    """A map or object argument; ``kind`` is the parameter's type as the refusal names it."""
    if isinstance(v, dict):
        return v
    if v is None or type(v) is Null:
        raise ArgError(i, "argument must not be null")
    raise ArgError(i, f"{kind} required, but have {describe(v)}")


@overload
def want_str_list(v: object, i: int, *, allow_null: Literal[False] = False) -> list[str]: ...
@overload
def want_str_list(v: object, i: int, *, allow_null: bool) -> list[str | None]: ...
def want_str_list(v: object, i: int, *, allow_null: bool = False) -> list[str] | list[str | None]:
    """A list of strings (elements converted); nulls kept as None only when ``allow_null``."""
    items = want_list(v, i, "list of string")
    out: list[str | None] = []
    for n, x in enumerate(items):
        if x is None or type(x) is Null:
            if not allow_null:
                raise ArgError(i, f"element {n} is null; a list of strings without nulls is required")
            out.append(None)
        elif isinstance(x, str):
            out.append(x)
        elif isinstance(x, bool | int | float):
            out.append(want_str(x, i))
        else:
            raise ArgError(i, f"element {n}: string required, but have {describe(x)}")
    return out


def unify(items: list[Any], i: int, kind: str = "list") -> list[Any]:
    """The elements converted to the one type they unify to, as Terraform converts them.

    ``toset(["a", 3])`` is ``["3", "a"]`` (strings beside numbers or bools all become strings);
    ``tomap({a = [1], b = ["x"]})`` is ``{a = ["1"], b = ["x"]}``. The rules are cty's, shared with
    conditionals and variable type constraints (``engine.lang.types.unify_values``); numbers beside
    bools alone, or primitives beside collections, have no common type and are an error.
    """
    try:
        return unify_values(items, kind)
    except Ununifiable:
        raise ArgError(i, "all elements must have the same type") from None
    except ConversionError as e:
        raise ArgError(i, f"all elements must have the same type: {e.summary}") from None


def typed_key(v: Any) -> tuple[Any, ...]:
    """A hashable key under which two values are equal exactly when the language says they are."""
    if v is None or type(v) is Null:
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


def make_set(items: list[Any], i: int) -> list[Any]:
    """A set as a list: element types unified, duplicates dropped, sorted (strings lexically)."""
    seen: dict[tuple[Any, ...], Any] = {}
    for x in unify(items, i):
        seen.setdefault(typed_key(x), x)
    keys = sorted(seen, key=lambda k: (_KIND_ORDER[k[0]], k[1] if len(k) > 1 else 0))
    return SetValue(seen[k] for k in keys)
