"""Numbers as Terraform computes them: binary floating point with 512-bit mantissas.

Terraform parses every number literal, and computes every ``+ - * / %``, at 512 bits of precision,
rounding to nearest-even. That is why ``0.1 + 0.2 == 0.3`` is true there while ``0.3 - 0.1 == 0.2``
is false, and why ``tostring(2 / 3)`` has 155 digits. Whole numbers are exact in that format up to
2^512, so they stay Python ints here; a fractional number is a ``BigFloat``: a ``float`` (so JSON,
state files and every ``isinstance(v, float)`` keep working) that also carries its exact 512-bit
value, which the operators, comparisons and the number-to-text conversion use.
"""

from __future__ import annotations

import math
from fractions import Fraction

from vocab.values import normalize_number

PRECISION = 512  # bits of mantissa, as Terraform's numbers have


class BigFloat(float):
    """A fractional number: the nearest double for everyone, ``exact`` for the language itself."""

    __slots__ = ("exact",)
    exact: Fraction

    def __new__(cls, exact: Fraction) -> BigFloat:
        number = float.__new__(cls, float(exact))
        number.exact = exact
        return number

    def __reduce__(self) -> tuple[type[BigFloat], tuple[Fraction]]:  # copies keep the exact value
        return (BigFloat, (self.exact,))


def rounded(x: Fraction) -> Fraction:
    """``x`` rounded to the nearest number with a 512-bit mantissa (ties to even)."""
    if x == 0:
        return x
    magnitude = abs(x)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    shift = PRECISION - 1 - exponent  # scales the mantissa into [2^511, 2^512)
    mantissa = round(magnitude * Fraction(2) ** shift)
    result = Fraction(mantissa) / Fraction(2) ** shift
    return result if x > 0 else -result


def exact(n: int | float) -> Fraction:
    """The value the language computes with: a ``BigFloat``'s own; for a plain float (read from a
    JSON or state file), the decimal it was written as, read as Terraform reads it."""
    if type(n) is BigFloat:
        return n.exact
    if isinstance(n, float):
        return rounded(Fraction(repr(n)))
    return Fraction(n)


def make(x: Fraction) -> int | float:
    """A computed value as a number: a whole number as an int, anything else a ``BigFloat``."""
    if x.denominator == 1:
        return int(x)
    return BigFloat(rounded(x))


def negate(n: int | float) -> int | float:
    """``-n``, keeping a ``BigFloat``'s exact value (``float.__neg__`` would drop it); ``-0`` is the
    negative zero, as Terraform's numbers keep the sign of zero."""
    if type(n) is BigFloat:
        return BigFloat(-n.exact)
    if n == 0:
        return 0 if is_negative_zero(n) else NEGATIVE_ZERO
    return normalize_number(-n)


NEGATIVE_ZERO = -0.0


def is_negative_zero(n: object) -> bool:
    """True for the negative zero (``-0``, ``0 * -1``, ``tonumber("-0")``): a float zero with its sign set."""
    return type(n) is float and n == 0 and math.copysign(1.0, n) < 0


def is_negative(n: int | float) -> bool:
    """True for a number below zero and for the negative zero: the sign IEEE arithmetic goes by."""
    return n < 0 or is_negative_zero(n)


def zero_sign(op: str, a: int | float, b: int | float) -> int | float:
    """The zero ``a op b`` gives when its exact value is zero, signed as Terraform's (IEEE) arithmetic
    signs it: a product or quotient is negative when one operand is, a sum only when both are
    negative zeros, a remainder keeps the dividend's zero (``-0 % 5`` is ``-0``, ``-5 % 5`` is ``0``)."""
    if op in ("*", "/"):
        negative = is_negative(a) != is_negative(b)
    elif op == "+":
        negative = is_negative_zero(a) and is_negative_zero(b)
    elif op == "-":
        negative = is_negative_zero(a) and not is_negative(b) and b == 0
    else:
        negative = is_negative_zero(a)
    return NEGATIVE_ZERO if negative else 0


def signed(text: str, n: int | float) -> int | float:
    """The number ``text`` spells, ``n``, with the sign a zero was written with (``"-0"``, ``"-0.0"``)."""
    if n == 0 and text.lstrip()[:1] == "-":
        return NEGATIVE_ZERO
    return n


def parse(text: str) -> int | float:
    """A decimal numeral (``42``, ``-1.5``, ``1e3``, ``-0``) at Terraform's precision."""
    return signed(text, make(rounded(Fraction(text))))


def to_text(n: BigFloat) -> str:
    """Terraform's text for a fractional number: the fewest digits that still read back exactly.

    ``2 / 3`` needs 155 significant digits at 512 bits; ``0.5`` needs one. Written without an
    exponent, as Terraform writes numbers in strings.
    """
    value = n.exact
    low, high = 1, 160
    while low < high:  # reading back is monotonic in the digit count: search for the fewest
        digits = (low + high) // 2
        if rounded(_significant(value, digits)) == value:
            high = digits
        else:
            low = digits + 1
    return _plain_decimal(_significant(value, low))


def _significant(x: Fraction, digits: int) -> Fraction:
    """``x`` rounded to ``digits`` significant decimal digits."""
    magnitude = abs(x)
    exponent = math.floor(math.log10(magnitude)) if magnitude else 0
    if Fraction(10) ** exponent > magnitude:  # log10 of a huge fraction can be off by one
        exponent -= 1
    if Fraction(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    scale = Fraction(10) ** (digits - 1 - exponent)
    return Fraction(round(x * scale)) / scale


def _plain_decimal(x: Fraction) -> str:
    """A decimal fraction (denominator a power of ten) as ``-12.5``, never with an exponent."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    places = 0
    while (x * 10**places).denominator != 1:
        places += 1
    units = str((x * 10**places).numerator).rjust(places + 1, "0")
    if not places:
        return sign + units
    return f"{sign}{units[:-places]}.{units[-places:]}".rstrip("0").rstrip(".")


__all__ = ["NEGATIVE_ZERO", "PRECISION", "BigFloat", "exact", "is_negative", "is_negative_zero", "make", "negate",
           "parse", "rounded", "signed", "to_text", "zero_sign"]
