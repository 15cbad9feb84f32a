"""Numbers between ctl's value model and cty's arbitrary-precision numbers.

ctl holds numbers as ``int`` (any size) and ``float``; a float stands for the shortest decimal that
prints it (``0.1`` is the decimal 0.1, as the user wrote it), which is how ctl's own arithmetic
reads floats too. cty holds exact decimals, so a float is sent as cty would send that decimal:
an integer as a msgpack integer when it fits 64 bits, a fraction as float64 only when the float is
exactly that decimal (``0.5``), otherwise as the decimal's text (``"0.1"``). Text a provider sends
back is read exactly for integers of any size; fractions become the nearest float, the most precision
ctl's value model holds.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class WireFloat(float):
    """A float that arrived as a msgpack float64: it stands for its exact binary value.

    A float from configuration stands for the decimal it prints as; one a provider sent as float64
    is that binary number, and is sent back as the same float64 so the provider sees no change.
    Arithmetic on it gives plain floats.
    """

    __slots__ = ()


class NotANumber(Exception):
    """Raised for text that does not spell a number, or a NaN (cty has no NaN)."""


def number_wire(n: Any) -> int | float | str:
    """The msgpack form cty uses for the number ``n``: int64, float64 or the decimal's text."""
    if type(n) is int:
        return n if INT64_MIN <= n <= INT64_MAX else str(n)
    if isinstance(n, float):
        if math.isinf(n):
            return float(n)
        if type(n) is WireFloat:
            # Its exact binary value: an integer goes as one (as text beyond int64), like cty.
            return number_wire(int(n)) if n.is_integer() else float(n)
        if n != n:
            raise NotANumber("NaN is not a number")
        if n.is_integer() and abs(n) < 2**53:
            return int(n)
        text = repr(n)
        decimal = Decimal(text)
    elif isinstance(n, Decimal):
        if not n.is_finite():
            raise NotANumber(f"{n} is not a finite number")
        decimal = n
    else:
        return int(n)  # an int subclass
    if decimal == decimal.to_integral_value():
        return number_wire(int(decimal))
    as_float = float(decimal)
    if Decimal(as_float) == decimal:
        return as_float
    return decimal_text(decimal)


def decimal_text(decimal: Decimal) -> str:
    """The decimal without an exponent and without trailing zeros (cty's ``Text('f', -1)``)."""
    text = format(decimal, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def number_text(n: int | float | Decimal) -> str:
    """A number as cty spells it in strings and JSON: ``1``, ``0.1``, ``100000000000000000000``."""
    if type(n) is int:
        return str(n)
    if isinstance(n, float) and math.isinf(n):
        raise NotANumber("infinity cannot be written as a decimal")
    wire = number_wire(n)
    if isinstance(wire, str):
        return wire
    if isinstance(wire, int):
        return str(wire)
    return decimal_text(Decimal(repr(wire)))


_INFINITIES = frozenset({"Inf", "inf", "+Inf", "+inf", "-Inf", "-inf"})


def parse_number(text: str) -> int | float:
    """The number a string spells, as cty reads it (decimal only: no spaces, no hex; ``Inf``)."""
    if not _NUMBER_TEXT.fullmatch(text):
        if text in _INFINITIES:
            return float(text)
        raise NotANumber(f"{text!r} is not a number")
    if "." not in text and "e" not in text and "E" not in text:
        return int(text)
    try:
        decimal = Decimal(text)
    except InvalidOperation:
        raise NotANumber(f"{text!r} is not a number") from None
    if decimal.adjusted() > 1000:
        # A thousand-digit integer is no real attribute; refusing keeps "1e999999999" from
        # costing minutes of arithmetic.
        raise NotANumber(f"{text!r} is too large a number")
    if decimal == decimal.to_integral_value():
        return int(decimal)
    return float(decimal)


def from_wire_float(f: float) -> int | float:
    """A float64 read from the wire: integral values become ints, as cty treats them."""
    if f.is_integer() and abs(f) < 2**63:
        return int(f)
    if f != f:
        raise NotANumber("NaN is not a number")
    return f if math.isinf(f) else WireFloat(f)


def go_g10(n: int | float | str) -> str:
    """The number as Go's ``big.Float.String()`` prints it (``%.10g``): cty orders sets by this."""
    if type(n) is int and -(10**10) < n < 10**10:
        return str(n)
    if isinstance(n, float):
        if math.isinf(n):
            return "+Inf" if n > 0 else "-Inf"
        return format(n, ".10g")  # the float's exact value, rounded half-even, as Go does
    decimal = Decimal(n)
    if decimal == 0:
        return "0"
    sign, digits, exponent = decimal.as_tuple()
    assert isinstance(exponent, int)
    rounded = _round_half_even(list(digits), 10)
    point = len(digits) + exponent + rounded.carry  # value = 0.DIGITS * 10**point
    mantissa = "".join(map(str, rounded.digits)).rstrip("0") or "0"
    prefix = "-" if sign else ""
    exp = point - 1
    if exp < -4 or exp >= 10:
        body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
        return f"{prefix}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{mantissa}"
    if point >= len(mantissa):
        return prefix + mantissa + "0" * (point - len(mantissa))
    return f"{prefix}{mantissa[:point]}.{mantissa[point:]}"


class _Rounded:
    __slots__ = ("carry", "digits")

    def __init__(self, digits: list[int], carry: int) -> None:
        self.digits = digits
        self.carry = carry


def _round_half_even(digits: list[int], keep: int) -> _Rounded:
    """Round a digit string to ``keep`` significant digits, half to even, like Go's decimal."""
    if len(digits) <= keep:
        return _Rounded(digits, 0)
    head, rest = digits[:keep], digits[keep:]
    up = rest[0] > 5 or (rest[0] == 5 and (any(rest[1:]) or head[-1] % 2 == 1))
    if not up:
        return _Rounded(head, 0)
    i = keep - 1
    while i >= 0 and head[i] == 9:
        head[i] = 0
        i -= 1
    if i < 0:
        return _Rounded([1, *head[:-1]], 1)
    head[i] += 1
    return _Rounded(head, 0)
