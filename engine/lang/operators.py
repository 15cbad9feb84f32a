"""Operators of the expression language and the scalar coercions they share with type conversion.

Kept apart from the tree walker so the rules (HCL's: numeric strings are numbers for arithmetic,
no truthiness, structural equality, a remainder with the sign of the dividend) live in one place
and ``types.convert`` applies exactly the same string/number/bool coercions as the operators do.

Operands reach these functions already evaluated; failures raise ``OperandError``, which knows
only which operand was wrong — the evaluator turns it into an ``EvalError`` pointing at that
operand's source range.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from engine.lang import numbers
from vocab import types as cty
from vocab.values import Null, Unknown, deep_unmark, mark, normalize_number, unmark

_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class OperandError(Exception):
    """An operator was given an unsuitable operand; ``side`` is "left", "right" or "" (both/none)."""

    def __init__(self, summary: str, detail: str, side: str = "") -> None:
        super().__init__(f"{summary}: {detail}")
        self.summary = summary
        self.detail = detail
        self.side = side


def parse_number(s: str) -> int | float | None:
    """The number a string spells, or None; strict (no spaces, no hex) like Terraform."""
    if not _NUMBER_RE.fullmatch(s):
        return None
    if "." in s or "e" in s or "E" in s:
        return numbers.parse(s)
    return numbers.signed(s, int(s))


def format_number(n: int | float) -> str:
    """A number as Terraform prints it in strings: ``1``, ``1.5``, never ``1.0`` or ``1e+20``."""
    if type(n) is numbers.BigFloat:
        return numbers.to_text(n)
    if isinstance(n, float):
        if math.isnan(n) or math.isinf(n):
            return str(n)
        if n.is_integer():
            return "-0" if numbers.is_negative_zero(n) else str(int(n))
        text = repr(n)
        if "e" in text or "E" in text:
            text = format(Decimal(text), "f")
        return text
    return str(n)


def to_number(v: Any) -> int | float | None:
    """``v`` (unmarked, known) as a number, converting numeric strings; None when it is not one."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return v
    if isinstance(v, str):
        return parse_number(v)
    return None


def to_bool(v: Any) -> bool | None:
    """``v`` (unmarked, known) as a bool, accepting the strings "true"/"false" (and cty's "1"/"0")."""
    if isinstance(v, bool):
        return v
    if v in ("true", "1"):
        return True
    if v in ("false", "0"):
        return False
    return None


def scalar_to_string(v: Any) -> str | None:
    """A string, number or bool as a string (how it appears in a template); None otherwise."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return format_number(v)
    return None


def equals(a: Any, b: Any) -> bool | Unknown:
    """Structural equality of two unmarked values; unknown when the answer depends on an unknown.

    ``1 == 1.0`` holds, ``"1" == 1`` and ``true == 1`` do not (no conversion, unlike arithmetic).
    Values of different types are never equal, as in Terraform: a tuple literal is not the list a
    ``list(string)`` variable or ``tolist()`` holds, nor an object literal the map ``tomap()`` makes,
    so each collection's kind (tuple, list, set; object, map) is compared before its elements.
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Unknown("bool")
    a_null = a is None or type(a) is Null
    b_null = b is None or type(b) is Null
    if a_null or b_null:  # nulls are equal whatever their types, as in cty
        return a_null and b_null
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float):
        if not isinstance(b, int | float):
            return False
        if type(a) is not numbers.BigFloat and type(b) is not numbers.BigFloat:
            return a == b  # ints and plain floats compare exactly as they are: no Fractions needed
        return numbers.exact(a) == numbers.exact(b)
    if isinstance(a, list):
        if type(a) is not type(b) or len(a) != len(b) or not _same_element_type(a, b):
            return False
        return _all_equal(zip(a, b, strict=True))
    if isinstance(a, dict):
        if type(a) is not type(b) or a.keys() != b.keys() or not _same_element_type(a, b):
            return False
        return _all_equal((a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _same_element_type(a: Any, b: Any) -> bool:
    """Two empty lists, sets or maps are equal only when they hold the same type (``tolist([])`` is
    not an empty ``list(string)``); non-empty ones are compared by their elements."""
    if a or type(a) is list or type(a) is dict:
        return True
    return bool(cty.type_of_value(a) == cty.type_of_value(b))


def _all_equal(pairs: Any) -> bool | Unknown:
    """Element-wise equality: any definite difference wins over an unknown element. Two nulls are
    equal only when they are of one type, as cty compares a collection's type before its elements."""
    unknown = False
    for x, y in pairs:
        if (type(x) is Null or type(y) is Null) and cty.type_of_value(x) != cty.type_of_value(y):
            return False  # inside a tuple or object the types count: ``[tostring(null)] != [null]``
        r = equals(x, y)
        if r is False:
            return False
        if isinstance(r, Unknown):
            unknown = True
    return Unknown("bool") if unknown else True


def _number_operand(v: Any, side: str) -> int | float | Unknown:
    if isinstance(v, Unknown):
        return v
    n = to_number(v)
    if n is None:
        raise _unsuitable(v, "number", side)
    return n


def _unsuitable(v: Any, kind: str, side: str) -> OperandError:
    """An operand of the wrong type, in cty's words: a null fails the operation itself, a string that
    does not convert needs "a number" (or "a bool"), anything else names the type it has."""
    if v is None or type(v) is Null:
        return OperandError("Operation failed", "Error during operation: argument must not be null.")
    reason = f"a {kind} is required" if isinstance(v, str) else f"{kind} required, but have {cty.type_of_value(v).friendly_name}"
    return OperandError("Invalid operand", f"Unsuitable value for {side} operand: {reason}.", side)


def _remainder(a: int | float, b: int | float) -> int | float:
    """``a % b`` with the sign of the dividend (``-5 % 3 == -2``), as Terraform computes it."""
    if isinstance(a, int) and isinstance(b, int) and max(a.bit_length(), b.bit_length()) <= numbers.PRECISION:
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    if not (_finite(a) and _finite(b)):
        return math.fmod(a, b)
    fa, fb = numbers.exact(a), numbers.exact(b)
    quotient = math.trunc(numbers.rounded(fa / fb))  # a - b * trunc(a / b), each step at 512 bits
    return numbers.make(numbers.rounded(fa - numbers.rounded(fb * quotient)))


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "%": _remainder,
}
_EXACT: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def _finite(n: int | float) -> bool:
    """Not an infinity or NaN (which only a float can be: an int past a double's range is finite)."""
    return not isinstance(n, float) or math.isfinite(n)


def _arithmetic(op: str, a: int | float, b: int | float) -> int | float:
    """Integers stay exact; anything fractional is computed at Terraform's 512 bits (``numbers``).

    So ``0.1 + 0.2 == 0.3`` holds and ``0.3 - 0.1 == 0.2`` does not, exactly as in Terraform.
    """
    if type(a) is int and type(b) is int and op != "/":
        exact: int = _ARITH[op](a, b)
        if exact.bit_length() <= numbers.PRECISION and max(a.bit_length(), b.bit_length()) <= numbers.PRECISION:
            return exact if exact or op != "*" else numbers.zero_sign(op, a, b)
        if op != "%":  # past 2^512 a whole number is a 512-bit one too (``1e308 * 10``)
            return numbers.make(numbers.rounded(_EXACT[op](numbers.exact(a), numbers.exact(b))))
    if not (_finite(a) and _finite(b)):
        result = normalize_number(_ARITH[op](a, b))
    elif op == "%":
        result = normalize_number(_remainder(a, b))
    else:
        result = numbers.make(numbers.rounded(_EXACT[op](numbers.exact(a), numbers.exact(b))))
    # ``0 * -1`` is ``-0``, as IEEE signs it
    return result if not numbers.is_zero(result) else numbers.zero_sign(op, a, b)


def _exactly(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """A comparison of two numbers by their exact values (two ``BigFloat`` can share a double)."""
    def check(a: Any, b: Any) -> bool:
        if type(a) is not numbers.BigFloat and type(b) is not numbers.BigFloat:
            return compare(a, b)
        if not (_finite(a) and _finite(b)):
            return compare(float(a), float(b))
        return compare(numbers.exact(a), numbers.exact(b))
    return check


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "<": _exactly(lambda a, b: a < b),
    "<=": _exactly(lambda a, b: a <= b),
    ">": _exactly(lambda a, b: a > b),
    ">=": _exactly(lambda a, b: a >= b),
}
ARITHMETIC_OPS = frozenset(_ARITH)
COMPARISON_OPS = frozenset(_COMPARE)
EQUALITY_OPS = frozenset({"==", "!="})
LOGICAL_OPS = frozenset({"&&", "||"})


def binary(op: str, left: Any, right: Any) -> Any:
    """Apply an arithmetic, comparison or equality operator, propagating unknowns and marks.

    Operand types are checked before unknowns are considered, so ``"abc" + unknown`` is still an
    error at plan time rather than a surprise at apply time.
    """
    if op in EQUALITY_OPS:
        ua, ma = deep_unmark(left)
        ub, mb = deep_unmark(right)
        r = equals(ua, ub)
        if op == "!=" and not isinstance(r, Unknown):
            r = not r
        return mark(r, ma | mb)
    a, ma = unmark(left)
    b, mb = unmark(right)
    na = _number_operand(a, "left")
    nb = _number_operand(b, "right")
    if op in _ARITH:
        if isinstance(na, Unknown) or isinstance(nb, Unknown):
            result: Any = Unknown("number")
        else:
            if op == "/" and numbers.is_zero(nb):
                raise OperandError(
                    "Operation failed", "Error during operation: can't divide by zero.", "right"
                )
            # ``5 % 0`` is 5 in Terraform and OpenTofu (cty's Modulo leaves a number whose divisor
            # is zero as it is), where ``5 / 0`` is an error.
            try:
                result = na if op == "%" and numbers.is_zero(nb) else _arithmetic(op, na, nb)
            except numbers.NumberOutOfRange as exc:
                raise OperandError("Operation failed", f"Error during operation: {exc}.") from None
    elif op in _COMPARE:
        if isinstance(na, Unknown) or isinstance(nb, Unknown):
            result = Unknown("bool")
        else:
            result = _COMPARE[op](na, nb)
    else:
        raise OperandError("Unsupported operator", f'The operator "{op}" is not supported.')
    return mark(result, ma | mb)


def bool_operand(v: Any, side: str) -> bool | Unknown:
    """An unmarked operand of ``&&``, ``||`` or ``!``: a bool (or "true"/"false"), never truthiness."""
    if isinstance(v, Unknown):
        return v
    b = to_bool(v)
    if b is None:
        raise _unsuitable(v, "bool", side)
    return b


def unary(op: str, operand: Any) -> Any:
    """``-x`` (number) or ``!x`` (bool), propagating unknowns and marks."""
    v, marks = unmark(operand)
    if op == "-":
        n = _number_operand(v, "unary")
        result: Any = Unknown("number") if isinstance(n, Unknown) else numbers.negate(n)
    elif op == "!":
        b = bool_operand(v, "unary")
        result = Unknown("bool") if isinstance(b, Unknown) else not b
    else:
        raise OperandError("Unsupported operator", f'The operator "{op}" is not supported.')
    return mark(result, marks)
