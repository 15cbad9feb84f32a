"""String functions: chomp endswith indent join lower split startswith strcontains strrev substr
title trim trimprefix trimspace trimsuffix upper.

``format``/``formatlist`` live in ``formatting.py`` and ``regex``/``regexall``/``replace`` in
``regex.py``; they are string functions too but each needs a small engine of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.lang.functions._args import want_int, want_str, want_str_list
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn, returns_list
from engine.lang.functions._text import graphemes
from vocab.limits import MAX_STRING_LENGTH
from vocab.types import STRING

_TRAILING_NEWLINES = re.compile(r"(?:\r\n|\r|\n)+\Z")
# What Go's unicode.IsSpace (and so Terraform's trimspace) counts as white space.
_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _chomp(a: Args, _c: FunctionContext) -> str:
    return _TRAILING_NEWLINES.sub("", want_str(a[0], 0))


def _endswith(a: Args, _c: FunctionContext) -> bool:
    return want_str(a[0], 0).endswith(want_str(a[1], 1))


def _startswith(a: Args, _c: FunctionContext) -> bool:
    return want_str(a[0], 0).startswith(want_str(a[1], 1))


def _strcontains(a: Args, _c: FunctionContext) -> bool:
    return want_str(a[1], 1) in want_str(a[0], 0)


def _indent(a: Args, _c: FunctionContext) -> str:
    spaces = want_int(a[0], 0)
    if spaces < 0:
        raise ArgError(0, "the number of spaces must not be negative")
    text = want_str(a[1], 1)
    if len(text) + spaces * text.count("\n") > MAX_STRING_LENGTH:
        raise CallError(f"the indented string would be longer than {MAX_STRING_LENGTH:,} characters "
                        "(MAX_STRING_LENGTH)")
    return text.replace("\n", "\n" + " " * spaces)


def _join(a: Args, _c: FunctionContext) -> str:
    if len(a) < 2:
        raise CallError("at least one list is required")
    sep = want_str(a[0], 0)
    parts: list[str] = []
    for i in range(1, len(a)):
        parts.extend(want_str_list(a[i], i))
    size = sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0)
    if size > MAX_STRING_LENGTH:
        raise CallError(f"the joined string would be {size:,} characters long; at most {MAX_STRING_LENGTH:,} "
                        "are allowed (MAX_STRING_LENGTH)")
    return sep.join(parts)


def _split(a: Args, _c: FunctionContext) -> list[str]:
    sep, text = want_str(a[0], 0), want_str(a[1], 1)
    if sep == "":
        return list(text)
    return text.split(sep)


def _per_character(text: str, mapping: Callable[[str], str]) -> str:
    """Case mapping one character to one, as Terraform's (Go's ``strings.ToLower``/``ToUpper``) does.

    Go maps each character by its *simple* mapping in UnicodeData; Python's ``str.lower``/``upper``
    use the full mappings of SpecialCasing, which may give several characters (``ß`` to ``SS``, ``ﬁ``
    to ``FI``, ``İ`` to ``i`` and a combining dot) and end words in a final sigma. Where the full
    mapping is several characters, the simple one is what ``_SIMPLE`` gives, or the character itself.
    """
    if text.isascii():
        return mapping(text)
    out = []
    for c in text:
        mapped = mapping(c)
        out.append(mapped if len(mapped) == 1 else _SIMPLE[mapping](c))
    return "".join(out)


def _simple_lower(c: str) -> str:
    """``İ`` (the only capital whose full lower-case mapping is longer) lowers to ``i``, as in Go."""
    return "i" if c == "\u0130" else c


def _simple_upper(c: str) -> str:
    """The Greek letters with ypogegrammeni (``ᾳ``) have a one-character simple upper case, their
    title case (``ᾼ``); every other character with a longer full mapping (``ß``, ``ﬁ``) stays."""
    title = c.title()
    return title if len(title) == 1 else c


_SIMPLE: dict[Callable[[str], str], Callable[[str], str]] = {str.lower: _simple_lower, str.upper: _simple_upper}


def _lower(a: Args, _c: FunctionContext) -> str:
    return _per_character(want_str(a[0], 0), str.lower)


def _upper(a: Args, _c: FunctionContext) -> str:
    return _per_character(want_str(a[0], 0), str.upper)


def _strrev(a: Args, _c: FunctionContext) -> str:
    return "".join(reversed(graphemes(want_str(a[0], 0))))


def _substr(a: Args, _c: FunctionContext) -> str:
    text = want_str(a[0], 0)
    offset, length = want_int(a[1], 1), want_int(a[2], 2)
    chars = graphemes(text)
    if offset < 0:
        offset = max(len(chars) + offset, 0)
    if offset >= len(chars):
        return ""
    if length < 0:
        return "".join(chars[offset:])
    return "".join(chars[offset : offset + length])


def _is_word_char(c: str) -> bool:
    """Mirror of the rule Terraform's title uses: letters, digits and underscore continue a word."""
    if c.isascii():
        return c.isalnum() or c == "_"
    return c.isalpha() or c.isdigit() or not c.isspace()


def _title(a: Args, _c: FunctionContext) -> str:
    text = want_str(a[0], 0)
    out: list[str] = []
    prev = " "
    for c in text:
        if not _is_word_char(prev):
            t = c.title()
            out.append(t if len(t) == 1 else c)
        else:
            out.append(c)
        prev = c
    return "".join(out)


def _trim(a: Args, _c: FunctionContext) -> str:
    return want_str(a[0], 0).strip(want_str(a[1], 1))


def _trimprefix(a: Args, _c: FunctionContext) -> str:
    return want_str(a[0], 0).removeprefix(want_str(a[1], 1))


def _trimsuffix(a: Args, _c: FunctionContext) -> str:
    return want_str(a[0], 0).removesuffix(want_str(a[1], 1))


def _trimspace(a: Args, _c: FunctionContext) -> str:
    return want_str(a[0], 0).strip(_SPACE)


FUNCTIONS = {
    "chomp": fn(_chomp, "str"),
    "endswith": fn(_endswith, "str", "suffix"),
    "indent": fn(_indent, "spaces", "str"),
    "join": fn(_join, "separator", variadic="lists"),
    "lower": fn(_lower, "str"),
    "split": fn(returns_list(_split, STRING), "separator", "str"),
    "startswith": fn(_startswith, "str", "prefix"),
    "strcontains": fn(_strcontains, "str", "substr"),
    "strrev": fn(_strrev, "str"),
    "substr": fn(_substr, "str", "offset", "length"),
    "title": fn(_title, "str"),
    "trim": fn(_trim, "str", "cutset"),
    "trimprefix": fn(_trimprefix, "str", "prefix"),
    "trimspace": fn(_trimspace, "str"),
    "trimsuffix": fn(_trimsuffix, "str", "suffix"),
    "upper": fn(_upper, "str"),
}
