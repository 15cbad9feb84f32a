"""User-perceived characters (grapheme clusters), which is what the language counts.

``length("👾🕹️")`` is 2 and ``substr``/``strrev``/``format`` widths count characters the way a
reader sees them, not code points. This is a compact approximation of Unicode's segmentation
rules that covers what configurations contain in practice: CR LF, combining marks, variation
selectors, emoji modifiers, zero-width-joiner sequences, tag sequences and flag pairs.
"""

from __future__ import annotations

import unicodedata

_ZWJ = "\u200d"


def _extends(c: str) -> bool:
    """True for a character that attaches to the one before it."""
    o = ord(c)
    if o < 0x300:
        return False
    if 0xFE00 <= o <= 0xFE0F or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F:
        return True
    if 0xE0100 <= o <= 0xE01EF or c == _ZWJ:
        return True
    return unicodedata.category(c) in ("Mn", "Me", "Mc")


def _regional(c: str) -> bool:
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def graphemes(s: str) -> list[str]:
    """Split ``s`` into user-perceived characters."""
    if s.isascii() and "\r\n" not in s:
        return list(s)
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        j = i + 1
        if s[i] == "\r" and j < n and s[j] == "\n":
            out.append("\r\n")
            i = j + 1
            continue
        if _regional(s[i]) and j < n and _regional(s[j]):
            j += 1
        while j < n:
            if s[j - 1] == _ZWJ or _extends(s[j]):
                j += 1
            else:
                break
        out.append(s[i:j])
        i = j
    return out


def char_count(s: str) -> int:
    """Number of user-perceived characters in ``s``."""
    if s.isascii() and "\r\n" not in s:
        return len(s)
    return len(graphemes(s))
