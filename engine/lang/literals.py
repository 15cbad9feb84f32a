"""Checks on literal text that Python would otherwise turn into an internal error.

A configuration file can hold bytes that are not UTF-8, a number with thousands of digits (Python
refuses to convert it), a number past the magnitudes ctl holds (``1e400`` is held, as Terraform
holds it, ``1e5000`` is not: ``engine.lang.numbers``) or an escape naming half a surrogate pair (``"\\ud800"``, which cannot be
written as UTF-8). Each reader calls these and turns ``LiteralError`` into a positioned error.
``nfc`` puts string literals in the one normal form the language compares them in.
"""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction

from engine.lang import numbers
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange
from vocab.limits import MAX_NUMBER_DIGITS


class LiteralError(ValueError):
    """A literal ctl cannot represent; ``offset`` is where in the literal's text the problem is."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def decode_utf8(src: bytes, filename: str) -> str:
    """The text of a configuration file; bytes that are not UTF-8 are an error at their position."""
    try:
        return src.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = src[: exc.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        column = len(before[line_start:].decode("utf-8", "replace")) + 1
        pos = Pos(line, column, exc.start)
        raise DiagnosticsError([Diagnostic(
            "error", "Invalid UTF-8",
            detail=f"Byte 0x{src[exc.start]:02x} is not valid UTF-8; configuration files must be saved as UTF-8.",
            range=SourceRange(filename, pos, pos),
        )]) from None


def number(text: str) -> int | float:
    """The value of a number literal (``42``, ``1.5``, ``1e3``); LiteralError when unrepresentable."""
    if len(text) <= MAX_NUMBER_DIGITS and text.isdigit() and text.isascii():
        return int(text)  # nearly every literal: a plain decimal integer, read without the checks below
    digits = sum(ch.isdigit() for ch in text)
    if digits > MAX_NUMBER_DIGITS:
        raise LiteralError(f"This number has {digits} digits; ctl accepts at most {MAX_NUMBER_DIGITS} "
                           "(MAX_NUMBER_DIGITS).")
    try:
        if any(ch in text for ch in ".eE") and not text.lower().startswith(("0x", "-0x", "+0x")):
            return numbers.parse(text)
        whole = int(text, 0) if text.lower().startswith(("0x", "-0x", "+0x", "0o", "0b")) else int(text)
        # Past 2^512 a literal is the nearest 512-bit number, as Terraform reads it.
        return whole if whole.bit_length() <= numbers.PRECISION else numbers.make(Fraction(whole))
    except numbers.NumberOutOfRange:
        raise LiteralError(f"This number is beyond what ctl holds: numbers range from 1e-{MAX_NUMBER_DIGITS} "
                           f"to 1e{MAX_NUMBER_DIGITS} in magnitude (MAX_NUMBER_DIGITS); write a smaller "
                           "number, or a string.") from None


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C, as every string value is in Terraform.

    ``"e\u0301"`` and ``"\u00e9"`` are the same string there: equal, of one length, hashing alike.
    """
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def checked_float(value: float) -> float:
    if math.isinf(value):
        raise LiteralError("This number is too large to represent (it would be infinity); "
                           "write a smaller number or a string.")
    if math.isnan(value):
        raise LiteralError("Not-a-number is not a value ctl can store; write a number or a string.")
    return value


def code_point(hex_digits: str, offset: int) -> str:
    """The character of a ``\\uNNNN``/``\\UNNNNNNNN`` escape; LiteralError for a non-character."""
    try:
        code = int(hex_digits, 16)
    except ValueError:
        raise LiteralError(f'"\\u{hex_digits}" is not a valid escape: it needs hexadecimal digits.',
                           offset) from None
    if 0xD800 <= code <= 0xDFFF:
        raise LiteralError(f"U+{code:04X} is half of a UTF-16 surrogate pair, not a character; "
                           "write the character itself or its \\U00XXXXXX escape.", offset)
    if code > 0x10FFFF:
        raise LiteralError(f"U+{code:X} is beyond the last Unicode character.", offset)
    return chr(code)


__all__ = ["LiteralError", "checked_float", "code_point", "decode_utf8", "nfc", "number"]
