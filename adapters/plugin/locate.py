"""Where an argument of a resource block is written, found again in the file's text.

A plan or an apply lets go of a resource's syntax once its arguments are evaluated (it is much of
what a large run holds), so by the time a provider reports a problem with ``length`` the parsed
body may be gone. The file's text is still held (every range of a parsed ``.tf`` file shares it),
and a diagnostic is rare, so the argument is found again by reading the block's text: the lines
directly inside its braces (strings, comments and nested brackets skipped) that start with the
name. What cannot be found this way (JSON and YAML files, an argument written by a ``dynamic``
block) is placed at the block itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vocab.errors import SourceRange

_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_-]*")
_SPACE = b" \t\r"


def argument_range(header: SourceRange, name: str) -> tuple[SourceRange, bool] | None:
    """The range of argument ``name`` (its expression, True) or nested block ``name`` (its header,
    False) in the block whose header is ``header``; None when the text does not show it."""
    text = header.text
    if text is None:
        return None
    src = text.src
    start = src.find(b"{", header.byte_span()[0])
    if start < 0:
        return None
    wanted = name.encode()
    for begin, end, kind in _top_level_items(src, start + 1):
        if src[begin:end] != wanted:
            continue
        if kind == "block":
            return SourceRange.in_text(text, begin, end), False
        value = end
        while value < len(src) and src[value] in _SPACE:
            value += 1
        value += 1  # the "="
        while value < len(src) and src[value] in _SPACE:
            value += 1
        line_end = src.find(b"\n", value)
        return SourceRange.in_text(text, value, len(src) if line_end < 0 else line_end), True
    return None


def _top_level_items(src: bytes, at: int) -> Iterator[tuple[int, int, str]]:
    """(name start, name end, "attribute" | "block") of each item directly inside the braces that
    open just before ``at``, until they close."""
    depth = 0
    line_start = True
    n = len(src)
    while at < n:
        c = src[at]
        if c == 0x0A:  # newline
            line_start = True
            at += 1
            continue
        if c in b" \t\r":
            at += 1
            continue
        if c == 0x23 or src.startswith(b"//", at):  # a line comment
            nl = src.find(b"\n", at)
            at = n if nl < 0 else nl
            continue
        if src.startswith(b"/*", at):
            close = src.find(b"*/", at + 2)
            at = n if close < 0 else close + 2
            continue
        if c == 0x22:  # a quoted string
            at = _after_string(src, at)
            line_start = False
            continue
        if src.startswith(b"<<", at):  # a heredoc: skip to its closing marker
            m = re.compile(rb"<<-?([A-Za-z_][A-Za-z0-9_]*)\r?\n").match(src, at)
            if m is not None:
                end = re.compile(rb"\n[ \t]*" + m.group(1) + rb"\b").search(src, m.end() - 1)
                at = n if end is None else end.end()
                line_start = False
                continue
        if c in b"{[(":
            depth += 1
            at += 1
            line_start = False
            continue
        if c in b"}])":
            if depth == 0:
                return
            depth -= 1
            at += 1
            line_start = False
            continue
        if line_start and depth == 0:
            m = _NAME.match(src, at)
            if m is not None:
                rest = m.end()
                while rest < n and src[rest] in _SPACE:
                    rest += 1
                if rest < n and src[rest] == 0x3D and not src.startswith(b"==", rest):  # "="
                    yield m.start(), m.end(), "attribute"
                elif rest < n and src[rest] in b'{"':
                    yield m.start(), m.end(), "block"
                at = m.end()
                line_start = False
                continue
        line_start = False
        at += 1


def _after_string(src: bytes, at: int) -> int:
    """The offset just past the quoted string starting at ``at`` (escapes and ``${...}`` kept whole)."""
    at += 1
    n = len(src)
    depth = 0
    while at < n:
        c = src[at]
        if c == 0x5C:  # backslash
            at += 2
            continue
        if src.startswith(b"${", at) or src.startswith(b"%{", at):
            depth += 1
            at += 2
            continue
        if c == 0x7D and depth:
            depth -= 1
        elif c == 0x22 and not depth:
            return at + 1
        elif c == 0x0A and not depth:
            return at
        at += 1
    return n
