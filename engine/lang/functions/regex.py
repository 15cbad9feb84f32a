"""Regular-expression functions: regex, regexall, and replace (whose ``/…/`` form is a pattern).

Patterns are written in RE2 syntax, as in Terraform. ``_translate`` rewrites the RE2 spellings
Python's ``re`` reads differently (``\\z``, POSIX classes like ``[[:alpha:]]``, ``\\Q…\\E``,
``(?<name>…)``, and ``$``, which in RE2 matches only at the very end of the text) and compiles
with ASCII classes, because RE2's ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only. Compiled
patterns are cached: the same pattern is typically applied to thousands of resources.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.lang.functions._args import want_str
from engine.lang.functions._core import ArgError, CallError, FunctionContext, fn

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_MULTILINE_FLAG = re.compile(r"\(\?[a-zA-Z]*m")
_TEMPLATE_REF = re.compile(r"\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+)|(\$))")


_FLAG_GROUP = re.compile(r"\(\?([imsU]*(?:-[imsU]*)?)\)")


class _Translator:
    """One left-to-right pass over an RE2 pattern, writing the Python equivalent.

    RE2 lets ``(?i)`` appear mid-pattern, applying to the rest of the enclosing group; Python only
    accepts flags at the very start, so such flags become scoped groups ``(?i:…)`` that are closed
    (and reopened after each ``|``) at the right places.
    """

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.out: list[str] = []
        self.multiline = bool(_MULTILINE_FLAG.search(pattern))
        self.scoped: list[list[str]] = [[]]  # per open group: flags opened mid-group

    def run(self) -> str:
        i, n = 0, len(self.p)
        while i < n:
            c = self.p[i]
            if c == "\\" and i + 1 < n:
                i = self._escape(i, in_class=False)
            elif c == "[":
                i = self._char_class(i)
            elif c == "(":
                i = self._open_group(i)
            elif c == ")":
                self.out.append(")" * len(self.scoped.pop() if len(self.scoped) > 1 else []) + ")")
                i += 1
            elif c == "|":
                flags = self.scoped[-1]
                self.out.append(")" * len(flags) + "|" + "".join(f"(?{f}:" for f in flags))
                i += 1
            else:
                self.out.append("\\Z" if c == "$" and not self.multiline else c)
                i += 1
        self.out.append(")" * len(self.scoped[0]))
        return "".join(self.out)

    def _escape(self, i: int, *, in_class: bool) -> int:
        nxt = self.p[i + 1]
        if nxt == "Q":
            end = self.p.find("\\E", i + 2)
            self.out.append(re.escape(self.p[i + 2 :] if end < 0 else self.p[i + 2 : end]))
            return len(self.p) if end < 0 else end + 2
        if nxt in "pP":
            raise ValueError("Unicode character classes (\\p, \\P) are not supported")
        self.out.append("\\Z" if nxt == "z" and not in_class else "\\" + nxt)
        return i + 2

    def _char_class(self, i: int) -> int:
        p, n = self.p, len(self.p)
        self.out.append("[")
        i += 1
        if i < n and p[i] == "^":
            self.out.append("^")
            i += 1
        if i < n and p[i] == "]":
            self.out.append("\\]")
            i += 1
        while i < n and p[i] != "]":
            c = p[i]
            if c == "\\" and i + 1 < n:
                i = self._escape(i, in_class=True)
                continue
            if p.startswith("[:", i):
                end = p.find(":]", i + 2)
                name = p[i + 2 : end] if end > 0 else ""
                cls = _POSIX.get(name)
                if cls is None:
                    raise ValueError(f"unsupported character class [:{name}:]")
                self.out.append(cls)
                i = end + 2
                continue
            self.out.append("\\" + c if c in "[&~|" else c)
            i += 1
        if i >= n:
            raise ValueError("missing closing ]")
        self.out.append("]")
        return i + 1

    def _open_group(self, i: int) -> int:
        flags = _FLAG_GROUP.match(self.p, i)
        if flags is not None:
            if "U" in flags.group(1):
                raise ValueError("the U (ungreedy) flag is not supported")
            if not self.out:
                self.out.append(flags.group(0))
            else:
                self.out.append(f"(?{flags.group(1)}:")
                self.scoped[-1].append(flags.group(1))
            return flags.end()
        if self.p.startswith("(?U", i):
            raise ValueError("the U (ungreedy) flag is not supported")
        self.scoped.append([])
        if self.p.startswith("(?<", i) and self.p[i + 3 : i + 4] not in ("=", "!"):
            self.out.append("(?P<")
            return i + 3
        self.out.append("(")
        return i + 1


def _translate(pattern: str) -> str:
    """Rewrite an RE2 pattern into the equivalent Python ``re`` pattern."""
    return _Translator(pattern).run()


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    compiled = re.compile(_translate(pattern), re.ASCII)
    if compiled.groupindex and len(compiled.groupindex) != compiled.groups:
        raise ValueError("cannot mix named and unnamed capture groups")
    return compiled


def _pattern(v: object, i: int) -> re.Pattern[str]:
    text = want_str(v, i)
    try:
        return _compile(text)
    except (re.error, ValueError) as exc:
        raise ArgError(i, f"invalid regular expression pattern: {exc}") from exc


def _match_value(m: re.Match[str], pat: re.Pattern[str]) -> object:
    """A whole-match string, a list of captures, or a map of named captures."""
    if pat.groups == 0:
        return m.group(0)
    if pat.groupindex:
        return {name: m.group(name) for name in pat.groupindex}
    return list(m.groups())


def _all_matches(pat: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """Successive matches, ignoring empty matches that touch the previous match (as RE2 does)."""
    out: list[re.Match[str]] = []
    prev_end = -1
    for m in pat.finditer(text):
        if m.start() == m.end() and m.start() == prev_end:
            continue
        out.append(m)
        prev_end = m.end()
    return out


def _regex(a: list, _c: FunctionContext) -> object:
    pat = _pattern(a[0], 0)
    m = pat.search(want_str(a[1], 1))
    if m is None:
        raise CallError("pattern did not match any part of the given string")
    return _match_value(m, pat)


def _regexall(a: list, _c: FunctionContext) -> list:
    pat = _pattern(a[0], 0)
    return [_match_value(m, pat) for m in _all_matches(pat, want_str(a[1], 1))]


def _expand(template: str, m: re.Match[str], pat: re.Pattern[str]) -> str:
    """RE2 replacement templates: ``$1``, ``${1}``, ``$name``, ``${name}``, ``$$`` for a dollar."""

    def ref(t: re.Match[str]) -> str:
        if t.group(3):
            return "$"
        name = t.group(1) or t.group(2)
        if name.isdigit():
            idx = int(name)
            return (m.group(idx) or "") if idx <= pat.groups else ""
        return (m.group(name) or "") if name in pat.groupindex else ""

    return _TEMPLATE_REF.sub(ref, template)


def _replace(a: list, _c: FunctionContext) -> str:
    text, search, replacement = want_str(a[0], 0), want_str(a[1], 1), want_str(a[2], 2)
    if len(search) > 1 and search[0] == "/" and search[-1] == "/":
        pat = _pattern(search[1:-1], 1)
        if "$" not in replacement:
            return pat.sub(lambda _m: replacement, text)
        return pat.sub(lambda m: _expand(replacement, m, pat), text)
    return text.replace(search, replacement)


FUNCTIONS = {
    "regex": fn(_regex, "pattern", "string"),
    "regexall": fn(_regexall, "pattern", "string"),
    "replace": fn(_replace, "str", "substr", "replace"),
}
