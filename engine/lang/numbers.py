"""Numbers as Terraform computes them: binary floating point with 512-bit mantissas.

Terraform parses every number literal, and computes every ``+ - * / %``, at 512 bits of precision,
rounding to nearest-even. That is why ``0.1 + 0.2 == 0.3`` is true there while ``0.3 - 0.1 == 0.2``
is false, and why ``tostring(2 / 3)`` has 155 digits. Whole numbers are exact in that format up to
2^512, so they stay Python ints here; a fractional number is a ``BigFloat``: a ``float`` (so JSON,
state files and every ``isinstance(v, float)`` keep working) that also carries its exact 512-bit
value, which the operators, comparisons and the number-to-text conversion use.

Past 2^512 a 512-bit number is whole but no longer every whole number: ``1e400`` is the 512-bit
number nearest to it. Such a number is held as the int with the fewest significant digits that
rounds to it (``10**400``), so it prints and encodes as Terraform prints it (``1`` and 400 zeros),
compares as it does, and ``exact`` gives back the 512-bit value for arithmetic. Python prints ints
of at most ``MAX_NUMBER_DIGITS`` digits, so numbers are held up to ±10^4300 and down to 10^-4300:
beyond, ``NumberOutOfRange`` (an ``OverflowError``, which every caller reports as a refusal).
"""

from __future__ import annotations

import math
from fractions import Fraction

from vocab.limits import MAX_NUMBER_DIGITS
from vocab.values import normalize_number

PRECISION = 512  # bits of mantissa, as Terraform's numbers have
_LARGEST = Fraction(10) ** MAX_NUMBER_DIGITS  # numbers are held below this magnitude
_SMALLEST = 1 / _LARGEST  # and, when not zero, at or above this one
_BITS_OF_LIMIT = _LARGEST.numerator.bit_length()


class NumberOutOfRange(OverflowError):
    """A number whose magnitude ctl does not hold (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__(f"the number is beyond the magnitudes ctl holds (10^-{MAX_NUMBER_DIGITS} to "
                         f"10^{MAX_NUMBER_DIGITS}, MAX_NUMBER_DIGITS)")


class BigFloat(float):
    """A fractional number: the nearest double for everyone, ``exact`` for the language itself."""

    __slots__ = ("exact",)
    exact: Fraction

    def __new__(cls, exact: Fraction) -> BigFloat:
        number = float.__new__(cls, float(exact))  # 0.0 below a double's range: see ``is_zero``
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
    JSON or state file), the decimal it was written as, read as Terraform reads it; for an int past
    2^512, the 512-bit number it stands for."""
    if type(n) is BigFloat:
        return n.exact
    if isinstance(n, float):
        return rounded(Fraction(repr(n)))
    if n.bit_length() > PRECISION:
        return rounded(Fraction(n))
    return Fraction(n)


def in_range(x: Fraction) -> Fraction:
    """``x``, when its magnitude is one ctl holds; NumberOutOfRange otherwise."""
    if x:
        scale = abs(x.numerator).bit_length() - x.denominator.bit_length()
        if abs(scale) >= _BITS_OF_LIMIT - 4 and not _SMALLEST <= abs(x) < _LARGEST:
            raise NumberOutOfRange
    return x


def make(x: Fraction) -> int | float:
    """A computed value as a number: a whole number as an int, anything else a ``BigFloat``."""
    in_range(x)
    if x.denominator == 1:
        whole = int(x)
        return whole if whole.bit_length() <= PRECISION else _fewest_digits(rounded(x))
    return BigFloat(rounded(x))


def _fewest_digits(value: Fraction) -> int:
    """The int with the fewest significant digits that rounds to ``value`` (a 512-bit number past 2^512)."""
    digits = _fewest(value)
    return int(_significant(value, digits))


def negate(n: int | float) -> int | float:
    """``-n``, keeping a ``BigFloat``'s exact value (``float.__neg__`` would drop it); ``-0`` is the
    negative zero, as Terraform's numbers keep the sign of zero."""
    if type(n) is BigFloat:
        return BigFloat(-n.exact)
    if n == 0:
        return 0 if is_negative_zero(n) else NEGATIVE_ZERO
    return normalize_number(-n)


NEGATIVE_ZERO = -0.0


def is_zero(n: int | float) -> bool:
    """Zero by its exact value: a ``BigFloat`` below a double's range (``1e-400``) has the double 0.0
    but is not zero."""
    return n.exact == 0 if type(n) is BigFloat else n == 0


def is_whole(n: int | float) -> bool:
    """A whole number by its exact value (``1e-400`` has the double 0.0 but is a fraction)."""
    if type(n) is BigFloat:
        return n.exact.denominator == 1
    return not isinstance(n, float) or n.is_integer()


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
    """A decimal numeral (``42``, ``-1.5``, ``1e3``, ``-0``) at Terraform's precision.

    An exponent far past the magnitudes ctl holds is refused before its power of ten is built
    (``1e999999999`` would take minutes and gigabytes to write out).
    """
    mantissa, e, exponent = text.strip().lower().partition("e")
    if e and exponent.lstrip("+-").isdigit() and abs(int(exponent)) > 2 * MAX_NUMBER_DIGITS + len(mantissa):
        if mantissa.strip("+-0."):
            raise NumberOutOfRange
        return signed(text, 0)  # zero, whatever the exponent
    return signed(text, make(rounded(Fraction(text))))


def to_text(n: BigFloat) -> str:
    """Terraform's text for a fractional number: the fewest digits that still read back exactly.

    ``2 / 3`` needs 155 significant digits at 512 bits; ``0.5`` needs one. Written without an
    exponent, as Terraform writes numbers in strings.
    """
    value = n.exact
    return _plain_decimal(_significant(value, _fewest(value)))


def _fewest(value: Fraction) -> int:
    """The fewest significant decimal digits that read back as ``value`` at 512 bits."""
    low, high = 1, 160
    while low < high:  # reading back is monotonic in the digit count: search for the fewest
        digits = (low + high) // 2
        if rounded(_significant(value, digits)) == value:
            high = digits
        else:
            low = digits + 1
    return low


def _significant(x: Fraction, digits: int) -> Fraction:
    """``x`` rounded to ``digits`` significant decimal digits."""
    magnitude = abs(x)
    exponent = 0
    if magnitude:  # from the bit lengths (a float log10 fails past a double's range), then corrected
        bits = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
        exponent = math.floor(bits * math.log10(2))
        while Fraction(10) ** exponent > magnitude:
            exponent -= 1
        while Fraction(10) ** (exponent + 1) <= magnitude:
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


__all__ = ["NEGATIVE_ZERO", "PRECISION", "BigFloat", "NumberOutOfRange", "exact", "in_range", "is_negative",
           "is_negative_zero", "is_whole", "is_zero", "make", "negate", "parse", "rounded", "signed", "to_text", "zero_sign"]
