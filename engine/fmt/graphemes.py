"""How many columns a piece of text takes when ``terraform fmt`` aligns ``=`` and comments.

hclwrite measures a line in grapheme clusters (Unicode's user-perceived characters, UAX #29, as
go-textseg implements it for Unicode 13): ``"é"`` written as ``e`` plus a combining accent is one
column, a flag made of two regional indicators is one, a family emoji joined by ZWJs is one; an
East Asian wide character is still one. Python has no segmentation in its standard library, so the
rules are implemented here over ``unicodedata`` categories and the few code-point ranges that
categories do not capture (Hangul jamo, emoji, prepended marks).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

_CR, _LF, _CONTROL, _EXTEND, _ZWJ, _RI, _PREPEND, _SPACING = range(8)
_L, _V, _T, _LV, _LVT, _OTHER = range(8, 14)

# Extended_Pictographic (emoji-data 13), as sorted inclusive ranges.
_PICTO = (
    (0xA9, 0xA9), (0xAE, 0xAE), (0x203C, 0x203C), (0x2049, 0x2049), (0x2122, 0x2122), (0x2139, 0x2139),
    (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B), (0x2328, 0x2328), (0x2388, 0x2388),
    (0x23CF, 0x23CF), (0x23E9, 0x23F3), (0x23F8, 0x23FA), (0x24C2, 0x24C2), (0x25AA, 0x25AB),
    (0x25B6, 0x25B6), (0x25C0, 0x25C0), (0x25FB, 0x25FE), (0x2600, 0x2605), (0x2607, 0x2612),
    (0x2614, 0x2685), (0x2690, 0x2705), (0x2708, 0x2712), (0x2714, 0x2714), (0x2716, 0x2716),
    (0x271D, 0x271D), (0x2721, 0x2721), (0x2728, 0x2728), (0x2733, 0x2734), (0x2744, 0x2744),
    (0x2747, 0x2747), (0x274C, 0x274C), (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757),
    (0x2763, 0x2767), (0x2795, 0x2797), (0x27A1, 0x27A1), (0x27B0, 0x27B0), (0x27BF, 0x27BF),
    (0x2934, 0x2935), (0x2B05, 0x2B07), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55),
    (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3297), (0x3299, 0x3299), (0x1F000, 0x1F0FF),
    (0x1F10D, 0x1F10F), (0x1F12F, 0x1F12F), (0x1F16C, 0x1F171), (0x1F17E, 0x1F17F), (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A), (0x1F1AD, 0x1F1E5), (0x1F201, 0x1F20F), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F23A), (0x1F23C, 0x1F23F), (0x1F249, 0x1F3FA), (0x1F400, 0x1F53D), (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D5, 0x1F7FF), (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F),
    (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8FF), (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945),
    (0x1F947, 0x1FAFF), (0x1FC00, 0x1FFFD),
)
_PICTO_STARTS = [lo for lo, _ in _PICTO]
# Marks of category Mc (or letters) that are Grapheme_Extend all the same.
_EXTEND_EXTRA = frozenset((
    0x09BE, 0x09D7, 0x0B3E, 0x0B57, 0x0BBE, 0x0BD7, 0x0CC2, 0x0CD5, 0x0CD6, 0x0D3E, 0x0D57, 0x0DCF,
    0x0DDF, 0x1B35, 0x200C, 0x302E, 0x302F, 0xFF9E, 0xFF9F, 0x1133E, 0x11357, 0x114B0, 0x114BD,
    0x115AF, 0x11930, 0x1D165, 0x1D16E, 0x1D16F, 0x1D170, 0x1D171, 0x1D172,
))
_PREPENDS = frozenset((
    0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x08E2, 0x0D4E, 0x110BD, 0x110CD,
    0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A, 0x11A84, 0x11A85, 0x11A86, 0x11A87, 0x11A88, 0x11A89,
    0x11D46,
))


def _picto(cp: int) -> bool:
    i = bisect_right(_PICTO_STARTS, cp) - 1
    return i >= 0 and cp <= _PICTO[i][1]


def _prop(ch: str) -> int:
    """The Grapheme_Cluster_Break property of ``ch``, as one of the constants above."""
    cp = ord(ch)
    if cp < 0x7F:
        return _CR if cp == 0x0D else _LF if cp == 0x0A else _CONTROL if cp < 0x20 else _OTHER
    if cp == 0x200D:
        return _ZWJ
    if cp in _EXTEND_EXTRA or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F:
        return _EXTEND
    if cp in _PREPENDS:
        return _PREPEND
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return _RI
    if 0xAC00 <= cp <= 0xD7A3:
        return _LV if (cp - 0xAC00) % 28 == 0 else _LVT
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return _L
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return _V
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return _T
    if cp in (0x0E33, 0x0EB3):
        return _SPACING
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me"):
        return _EXTEND
    if cat == "Mc":
        return _SPACING
    if cat in ("Cc", "Zl", "Zp", "Cf", "Cs"):
        return _CONTROL
    return _OTHER


def _joined(prev: int, cur: int, picto_zwj: bool, ri_odd: bool) -> bool:
    """Whether no cluster boundary falls between two characters (the rules GB3 to GB13)."""
    if prev == _CR and cur == _LF:
        return True
    if prev in (_CONTROL, _CR, _LF) or cur in (_CONTROL, _CR, _LF):
        return False
    if prev == _L and cur in (_L, _V, _LV, _LVT):
        return True
    if prev in (_LV, _V) and cur in (_V, _T):
        return True
    if prev in (_LVT, _T) and cur == _T:
        return True
    if cur in (_EXTEND, _ZWJ, _SPACING) or prev == _PREPEND:
        return True
    if picto_zwj:
        return True
    return prev == _RI and cur == _RI and ri_odd


def clusters(text: str) -> int:
    """The number of grapheme clusters in ``text``."""
    if text.isascii():
        return len(text) - text.count("\r\n")
    count = 0
    prev = -1
    in_picto = False  # inside ExtPict Extend*, so a ZWJ then a pictograph stays in the cluster
    after_picto_zwj = False
    ri_run = 0
    for ch in text:
        cur = _prop(ch)
        picto = cur == _OTHER and _picto(ord(ch))
        if prev < 0 or not _joined(prev, cur, after_picto_zwj and picto, ri_run % 2 == 1):
            count += 1
        after_picto_zwj = in_picto and cur == _ZWJ
        in_picto = picto or (in_picto and cur == _EXTEND)
        ri_run = ri_run + 1 if cur == _RI else 0
        prev = cur
    return count
