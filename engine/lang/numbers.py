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
    """``-n``, keeping a ``BigFloat``'s exact value (``float.__neg__`` would drop it)."""
    if type(n) is BigFloat:
        return BigFloat(-n.exact)
    return normalize_number(-n)


def parse(text: str) -> int | float:
    """A decimal numeral (``42``, ``-1.5``, ``1e3``) at Terraform's precision."""
    return make(rounded(Fraction(text)))


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


__all__ = ["PRECISION", "BigFloat", "exact", "make", "negate", "parse", "rounded", "to_text"]
