"""Quoted string literals: their escapes read (``"\\u00e9"`` is ``é``) and written back.

hclwrite re-spells block labels from their values, so the two directions must be HCL's own:
``decode_quoted`` follows hclsyntax's ``ParseStringLiteralToken`` (``\\n \\r \\t \\" \\\\``,
``\\uNNNN``, ``\\UNNNNNNNN``, and ``$${``/``%%{`` for a literal ``${``/``%{``; anything else after a
backslash is an error), and ``quoted_tokens`` hclwrite's ``TokensForValue`` for a string (the same
escapes, ``${`` doubled, characters that are not printable as ``\\u`` escapes).
"""

from __future__ import annotations

import re

from engine.fmt import tokens as t
from engine.fmt.tokens import Token

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_PIECE = re.compile(r"\\u[0-9a-fA-F]{0,4}|\\U[0-9a-fA-F]{0,8}|\\.?|\$\$\{|%%\{", re.DOTALL)
_QUOTE = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def decode_quoted(text: str) -> str:
    """The value of a quoted string's literal text: escapes resolved, ``$${`` read as ``${``."""

    def piece(m: re.Match[str]) -> str:
        s = m.group()
        if s in ("$${", "%%{"):
            return s[1:]
        if s[1:2] in ("u", "U"):
            digits = s[2:]
            width = 4 if s[1] == "u" else 8
            if len(digits) != width:
                raise ValueError(f"The \\{s[1]} escape sequence must be followed by {width} hexadecimal digits.")
            if 0xD800 <= int(digits, 16) <= 0xDFFF or int(digits, 16) > 0x10FFFF:
                raise ValueError(f"Cannot encode character U+{digits.upper()} in UTF-8.")
            return chr(int(digits, 16))
        if len(s) < 2 or s[1] not in _ESCAPES:
            raise ValueError(f"The symbol {s[1:]!r} is not a valid escape sequence selector.")
        return _ESCAPES[s[1]]

    return _PIECE.sub(piece, text)


def quoted_tokens(value: str) -> list[Token]:
    """A string value as the tokens of a quoted string literal (hclwrite's ``TokensForValue``)."""
    out: list[str] = []
    for i, ch in enumerate(value):
        if ch in _QUOTE:
            out.append(_QUOTE[ch])
        elif ch in "$%":
            out.append(ch + ch if value.startswith("{", i + 1) else ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    text = "".join(out)
    middle = [Token(t.QUOTED_LIT, text)] if text else []
    return [Token(t.O_QUOTE, '"'), *middle, Token(t.C_QUOTE, '"')]
