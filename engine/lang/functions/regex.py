"""Regular-expression functions: regex, regexall, and replace (whose ``/…/`` form is a pattern).

Terraform's patterns are RE2 (Go's ``regexp``): linear-time matching, no backreferences or
lookaround, ASCII ``\\d``/``\\w``/``\\s``, Unicode classes ``\\pL``, ``$`` only at the very end of the
text unless ``(?m)``. Python's backtracking ``re`` differs in syntax and can take exponential time
on a hostile pattern (``(a+)+$``), which matters for anyone running ctl on configurations they did
not write; so patterns are compiled by RE2 itself, through the ``google-re2`` binding. Compiled
patterns are cached: the same pattern is typically applied to thousands of resources.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

from engine.lang.functions._args import want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn, returns_list

_TEMPLATE_REF = re.compile(r"\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+)|(\$))")

# RE2's error codes, worded as Go's regexp reports them (and so Terraform's messages read).
_GO_WORDING = {
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "trailing \\": "trailing backslash at end of expression",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
}


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # errors are reported to the user, not logged on stderr by RE2
    return options


_OPTIONS = _options()


def _describe(exc: Exception) -> str:
    """``invalid escape sequence in \\1``: RE2's ``code: fragment`` in Terraform's words."""
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, fragment = text.partition(": ")
    code = _GO_WORDING.get(code, code)
    return f"{code} in {fragment}" if sep else code


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> Any:
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        raise ValueError(_describe(exc)) from None
    if compiled.groupindex and len(compiled.groupindex) != compiled.groups:
        raise ValueError("cannot mix both named and unnamed capture groups")
    return compiled


def _pattern(v: object, i: int) -> Any:
    text = want_str(v, i)
    try:
        return _compile(text)
    except (ValueError, UnicodeError) as exc:
        raise ArgError(i, f"invalid regexp pattern: {exc}") from exc


def _subject(v: object, i: int) -> str:
    text = want_str(v, i)
    try:
        text.encode("utf-8")
    except UnicodeError:
        raise ArgError(i, "the string is not valid Unicode text") from None
    return text


def _match_value(m: Any, pat: Any) -> object:
    """A whole-match string, a list of captures, or a map of named captures."""
    if pat.groups == 0:
        return m.group(0)
    if pat.groupindex:
        return {name: m.group(name) for name in pat.groupindex}
    return list(m.groups())


def _all_matches(pat: Any, text: str) -> list[Any]:
    """Successive matches, ignoring empty matches that touch the previous match (as Go does)."""
    out: list[Any] = []
    prev_end = -1
    for m in pat.finditer(text):
        if m.start() == m.end() and m.start() == prev_end:
            continue
        out.append(m)
        prev_end = m.end()
    return out


def _regex(a: Args, _c: FunctionContext) -> object:
    pat = _pattern(a[0], 0)
    m = pat.search(_subject(a[1], 1))
    if m is None:
        raise CallError("pattern did not match any part of the given string")
    return _match_value(m, pat)


def _regexall(a: Args, _c: FunctionContext) -> list[Any]:
    pat = _pattern(a[0], 0)
    return [_match_value(m, pat) for m in _all_matches(pat, _subject(a[1], 1))]


def _expand(template: str, m: Any, pat: Any) -> str:
    """Go's replacement templates: ``$1``, ``${1}``, ``$name``, ``${name}``, ``$$`` for a dollar."""

    def ref(t: re.Match[str]) -> str:
        if t.group(3):
            return "$"
        name = t.group(1) or t.group(2)
        if name.isdigit():
            idx = int(name)
            return (m.group(idx) or "") if idx <= pat.groups else ""
        return (m.group(name) or "") if name in pat.groupindex else ""

    return _TEMPLATE_REF.sub(ref, template)


def _replace_all(pat: Any, text: str, replacement: str) -> str:
    """Every match replaced, with the same matches ``regexall`` finds (Go's ReplaceAllString)."""
    parts: list[str] = []
    last = 0
    for m in _all_matches(pat, text):
        parts.append(text[last : m.start()])
        parts.append(_expand(replacement, m, pat) if "$" in replacement else replacement)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts)


def _replace(a: Args, _c: FunctionContext) -> str:
    text, search, replacement = want_str(a[0], 0), want_str(a[1], 1), want_str(a[2], 2)
    if len(search) > 1 and search[0] == "/" and search[-1] == "/":
        return _replace_all(_pattern(search[1:-1], 1), _subject(text, 0), replacement)
    return text.replace(search, replacement)


FUNCTIONS = {
    "regex": fn(_regex, "pattern", "string"),
    "regexall": fn(returns_list(_regexall), "pattern", "string"),
    "replace": fn(_replace, "str", "substr", "replace"),
}
