"""Numeric functions: abs ceil floor log max min parseint pow signum.

Integral results are returned as ``int`` so they print as ``4``, not ``4.0``, as in Terraform.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

from engine.lang import numbers
from engine.lang.functions._args import want_int, want_num, want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from vocab.limits import MAX_NUMBER_DIGITS
from vocab.values import normalize_number

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGIT_VALUE = {c: i for i, c in enumerate(_DIGITS)}
_MAX_EXACT_POW_BITS = 1 << 16


def _abs(a: Args, _c: FunctionContext) -> int | float:
    n = want_num(a[0], 0)
    return numbers.negate(n) if numbers.is_negative(n) else n


def _ceil(a: Args, _c: FunctionContext) -> int:
    n = want_num(a[0], 0)
    return n if isinstance(n, int) else math.ceil(numbers.exact(n) if math.isfinite(n) else n)


def _floor(a: Args, _c: FunctionContext) -> int:
    n = want_num(a[0], 0)
    return n if isinstance(n, int) else math.floor(numbers.exact(n) if math.isfinite(n) else n)


_LARGEST_DOUBLE = int(sys.float_info.max)


def _log(a: Args, _c: FunctionContext) -> int | float:
    num, base = want_num(a[0], 0), want_num(a[1], 1)
    for i, n in enumerate((num, base)):  # the references take the logarithm of a double
        if isinstance(n, int) and abs(n) > _LARGEST_DOUBLE:
            raise ArgError(i, f"value must be between {-_LARGEST_DOUBLE} and {_LARGEST_DOUBLE}")
    if num <= 0:
        raise ArgError(0, "the logarithm is only defined for numbers greater than zero")
    if base <= 0 or base == 1:
        raise ArgError(1, "the base must be greater than zero and not equal to one")
    return normalize_number(math.log(num) / math.log(base))


def _max(a: Args, _c: FunctionContext) -> int | float:
    if not a:
        raise CallError("must pass at least one number")
    return normalize_number(max((want_num(x, i) for i, x in enumerate(a)), key=_by_value))


def _min(a: Args, _c: FunctionContext) -> int | float:
    if not a:
        raise CallError("must pass at least one number")
    return normalize_number(min((want_num(x, i) for i, x in enumerate(a)), key=_by_value))


def _by_value(n: int | float) -> Fraction | float:
    """The exact value to order numbers by; two ``BigFloat`` can share a double."""
    return numbers.exact(n) if not isinstance(n, float) or math.isfinite(n) else n


def _pow(a: Args, _c: FunctionContext) -> int | float:
    base, exp = want_num(a[0], 0), want_num(a[1], 1)
    if isinstance(base, int) and isinstance(exp, int) and exp >= 0:  # noqa: SIM102 - keeps mypy's narrowing
        if abs(base) <= 1 or exp * abs(base).bit_length() <= _MAX_EXACT_POW_BITS:
            exact: int = base**exp  # a non-negative int exponent: an int, which mypy cannot tell
            return exact
    try:
        result = math.pow(base, exp)
    except (OverflowError, ValueError) as exc:
        raise CallError(f"result of {base} to the power {exp} is not a finite number") from exc
    return normalize_number(result)


def _signum(a: Args, _c: FunctionContext) -> int:
    n = want_int(a[0], 0)
    return (n > 0) - (n < 0)


def _parseint(a: Args, _c: FunctionContext) -> int:
    if not isinstance(a[0], str):
        raise ArgError(0, f"string required, but have {'null' if a[0] is None else 'number'}")
    text = want_str(a[0], 0)
    base = want_int(a[1], 1)
    if not 2 <= base <= 62:
        raise ArgError(1, "base must be a whole number between 2 and 62 inclusive")
    body, sign = text, 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        raise ArgError(0, f'cannot parse "{text}" as a base {base} integer')
    digits = []
    for ch in body:
        d = _DIGIT_VALUE.get(ch.lower() if base <= 36 else ch)
        if d is None or d >= base:
            shown = text if len(text) <= 64 else text[:61] + "..."
            raise ArgError(0, f'cannot parse "{shown}" as a base {base} integer')
        digits.append(d)
    # A result with more decimal digits than a number literal may have could not be shown or stored.
    significant = len(digits) - next((i for i, d in enumerate(digits) if d), len(digits))
    if (significant - 1) * math.log10(base) >= MAX_NUMBER_DIGITS:
        raise ArgError(0, f"a base {base} number of {significant:,} digits has more than {MAX_NUMBER_DIGITS:,} "
                          "decimal digits, the limit for a number (MAX_NUMBER_DIGITS)")
    value = 0
    for d in digits:
        value = value * base + d
    return sign * value


FUNCTIONS = {
    "abs": fn(_abs, "num"),
    "ceil": fn(_ceil, "num"),
    "floor": fn(_floor, "num"),
    "log": fn(_log, "num", "base"),
    "max": fn(_max, variadic="numbers"),
    "min": fn(_min, variadic="numbers"),
    "parseint": fn(_parseint, "number", "base"),
    "pow": fn(_pow, "num", "power"),
    "signum": fn(_signum, "num"),
}
