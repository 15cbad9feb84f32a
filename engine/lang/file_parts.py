"""Where a large HCL file can be cut into parts, and which of its literals the parser need not read.

tree-sitter keeps a tree many times the size of its input, and more for a string literal or
heredoc (its grammar builds one hidden node per character of template text), so one large file or
one long literal could take gigabytes (``bench/README.md``). So a large file is parsed in parts,
one tree at a time, each freed once converted; and the inside of a long literal is left out of
what the parser reads (tree-sitter's included ranges), since the converter reads literal text from
the file's own bytes anyway. Positions stay the file's: an included range keeps the byte offsets
and the line and column of the text it covers.

``scan`` is a small lexer that follows exactly what decides where a top-level item ends: quoted
strings (escapes, ``${``/``%{`` interpolations with their own nesting), heredocs (closed by a line
holding only the marker, as the grammar closes them), comments and brackets. A cut is a line start
at the top level; a literal is left out only when it has no interpolation or directive and its
escapes are all valid, so the parser would have read it as one piece of text without an error. The
lexer follows bytes with regular expressions, never one character at a time in Python, so a
50 MB literal is scanned in linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A part holds at least this much of the file (cut at the first top-level line start past it):
# a tree of a few tens of megabytes at most, and enough parts for two cores to share a large file.
PART_BYTES = 256 * 1024

# Literals longer than this are left out of what the parser reads; shorter ones cost little.
LONG_LITERAL = 64 * 1024

_CODE_TOP = re.compile(rb'["{}\[\]()#/<\n]')  # at the top level a newline is a place to cut
_CODE = re.compile(rb'["{}\[\]()#/<]')
_PLAIN_STRING = re.compile(rb'"[^"\\\n$%]*"')
_STRING = re.compile(rb'\$\$\{|%%\{|\$\{|%\{|\\.|["\n]', re.DOTALL)
_TEMPLATE_START = re.compile(rb"(?<![$%])[$%]\{")
_HEREDOC_START = re.compile(rb"<<(-?)([A-Za-z_][A-Za-z0-9_-]*)\r?\n")
# A valid escape, or (an empty match after the backslash) an invalid one.
_ESCAPE = re.compile(rb'\\(?:[nrt"\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|)')
_OPEN = frozenset(b"{[(")
_CLOSE = frozenset(b"}])")


@dataclass
class Scan:
    """What ``scan`` found: the part boundaries (the first is 0, the last the file's length) and
    the long literals' insides to leave out, as byte spans in file order."""

    cuts: list[int] = field(default_factory=list)
    skipped: list[tuple[int, int]] = field(default_factory=list)


class _Frame:
    """A code context: top level, or inside an interpolation (which ends at its unmatched ``}``)."""

    __slots__ = ("depth", "template")

    def __init__(self, template: _Template | None) -> None:
        self.depth = 0
        self.template = template


class _Template:
    """A quoted string or heredoc being scanned: where its text starts, and whether it held anything
    but text."""

    __slots__ = ("heredoc", "marker", "plain", "start")

    def __init__(self, start: int, heredoc: bool, marker: bytes = b"") -> None:
        self.start = start
        self.heredoc = heredoc
        self.marker = marker
        self.plain = True


def scan(src: bytes, part_bytes: int = PART_BYTES, long_literal: int = LONG_LITERAL) -> Scan:
    """Cuts about every ``part_bytes`` and the long plain literals of ``src``.

    Text the lexer cannot follow (an unbalanced bracket, an unclosed string) ends the scan: the cuts
    found before it stand, and the rest is one part, so the parser reports the problem where it is.
    """
    out = Scan(cuts=[0])
    size = len(src)
    target = part_bytes
    frames = [_Frame(None)]
    template: _Template | None = None  # the string or heredoc the lexer is in, if any
    pos = 0
    while pos < size:
        if template is not None:
            resumed = _in_template(src, pos, template, out, long_literal)
            if resumed is None:
                break
            pos, interpolation = resumed
            if interpolation:
                frames.append(_Frame(template))
            template = None
            continue
        frame = frames[-1]
        top = len(frames) == 1 and frame.depth == 0
        m = (_CODE_TOP if top else _CODE).search(src, pos)
        if m is None:
            break
        at = m.start()
        byte = src[at]
        pos = at + 1
        if byte == 0x0A:  # only found at the top level
            if pos >= target and pos < size:
                out.cuts.append(pos)
                target = pos + part_bytes
        elif byte in _OPEN:
            frame.depth += 1
        elif byte in _CLOSE:
            if frame.depth == 0:
                if frame.template is None or byte != 0x7D:
                    break  # a closing bracket without an opening one
                frames.pop()
                template = frame.template  # back in the string or heredoc after its interpolation
                template.plain = False
                continue
            frame.depth -= 1
        elif byte == 0x22:  # "
            plain = _PLAIN_STRING.match(src, at)
            if plain is not None:
                pos = plain.end()
                if pos - at - 2 > long_literal:
                    out.skipped.append((at + 1, pos - 1))
            else:
                template = _Template(at + 1, heredoc=False)
        elif byte == 0x23 or (byte == 0x2F and src[pos : pos + 1] == b"/"):  # # or //: to the line's end
            end = src.find(b"\n", pos)
            pos = size if end < 0 else end  # the newline itself is the code's
        elif byte == 0x2F and src[pos : pos + 1] == b"*":
            end = src.find(b"*/", pos + 1)
            if end < 0:
                break
            pos = end + 2
        elif byte == 0x3C:  # <
            heredoc = _HEREDOC_START.match(src, at)
            if heredoc is not None:
                pos = heredoc.end()
                template = _Template(pos, heredoc=True, marker=heredoc.group(2))
    out.cuts.append(size)
    return out


def _in_template(src: bytes, pos: int, template: _Template, out: Scan, long_literal: int) -> tuple[int, bool] | None:
    """Scan a string or heredoc from ``pos``: where the code goes on, and whether that is an
    interpolation or directive (True) or the code after the literal (False); None where the
    literal never ends."""
    if template.heredoc:
        return _in_heredoc(src, pos, template, out, long_literal)
    for m in _STRING.finditer(src, pos):
        token = m.group()
        if token in (b"${", b"%{"):
            return m.end(), True
        if token == b'"':
            end = m.start()
            if template.plain and end - template.start > long_literal and _plain_text(src, template.start, end):
                out.skipped.append((template.start, end))
            return m.end(), False
        if token == b"\n":
            return None  # a quoted string never spans lines: the parser reports it
    return None


def _in_heredoc(src: bytes, pos: int, template: _Template, out: Scan, long_literal: int) -> tuple[int, bool] | None:
    closer = re.compile(rb"^[ \t]*" + re.escape(template.marker) + rb"[ \t]*\r?$", re.MULTILINE)
    # A closer is only ever at a line start; after an interpolation the lexer may be mid-line.
    line_start = pos if pos == 0 or src[pos - 1] == 0x0A else src.find(b"\n", pos) + 1
    if line_start == 0:
        return None
    end = closer.search(src, line_start)
    if end is None:
        return None
    nested = _TEMPLATE_START.search(src, pos, end.start())
    if nested is not None:
        return nested.end(), True
    if template.plain and end.start() - template.start > long_literal and _plain_text(src, template.start, end.start()):
        out.skipped.append((template.start, end.start()))
    return end.end(), False


def _plain_text(src: bytes, start: int, end: int) -> bool:
    """Whether ``src[start:end]`` is text the parser reads as one literal: no ``${`` or ``%{`` at all
    (an escaped one included: the grammar's reading of ``$$${`` is not worth second-guessing), and
    every backslash the start of an escape the grammar accepts."""
    if src.find(b"${", start, end) >= 0 or src.find(b"%{", start, end) >= 0:
        return False
    if src.find(b"\\", start, end) < 0:
        return True
    return all(m.end() - m.start() > 1 for m in _ESCAPE.finditer(src, start, end))


__all__ = ["LONG_LITERAL", "PART_BYTES", "Scan", "scan"]
