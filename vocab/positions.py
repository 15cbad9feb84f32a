"""Where things are written: positions, ranges, and the source text that turns bytes into lines.

Every node of every parsed file has a range, so hundreds of thousands of them exist for a large
configuration and their size is much of the parsed model's. A node of a parsed ``.tf`` file
therefore keeps its range as one plain int (``Located``): the file's number in this process's
register of source texts, the range's length and its start byte, packed. That is one small object,
not two, and one the collector never has to visit. The fields are laid out so that the int has two
of CPython's 30-bit digits for any file under 256 MiB (``packed_in``): a third digit would take each
int from 32 to 48 bytes of the allocator, and a large configuration has millions of them. ``as_range`` gives the ``SourceRange`` back when
something prints or compares it (an error, a sort), which is rare; its line and column are worked
out from the file's shared ``SourceText`` only then. A range from anywhere else (a YAML or JSON
file, text parsed inside a wrapper, a position built by hand) is a ``SourceRange`` with its six
numbers, kept as it is.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Pos:
    """A position in a source file: 1-based line and column, 0-based byte offset."""

    line: int
    column: int
    byte: int = 0


class SourceText:
    """One file's bytes, shared by all its ranges: lines and columns come from here on demand.

    Lines are counted at ``\\n`` and columns in characters, as the parser's own positions are.
    Each is entered in a register for the life of the process, so that a packed range (``Located``)
    can name its file by number; the same name and bytes get the same number, so parsing one file
    again and again (a test run, a console) does not grow the register.
    """

    __slots__ = ("_ascii", "_starts", "index", "name", "src")

    def __init__(self, name: str, src: bytes) -> None:
        self.name = name
        self.src = src
        self._ascii = src.isascii()
        self._starts: list[int] | None = None
        key = (name, src)
        with _REGISTERING:  # files may be parsed on several threads: one number, one text
            index = _TEXT_INDEX.get(key)
            if index is None:
                index = _TEXT_INDEX[key] = len(_TEXTS)
                _TEXTS.append(self)
        self.index = index

    def line_column(self, byte: int) -> tuple[int, int]:
        starts = self._starts
        if starts is None:
            starts = self._starts = self._line_starts()
        line = bisect_right(starts, byte)
        first = starts[line - 1]
        if self._ascii:
            return line, byte - first + 1
        return line, len(self.src[first:byte].decode("utf-8", "replace")) + 1

    def _line_starts(self) -> list[int]:
        starts, src, at = [0], self.src, self.src.find(b"\n")
        while at >= 0:
            starts.append(at + 1)
            at = src.find(b"\n", at + 1)
        return starts


_BYTE_BITS = 32  # a ``SourceRange``'s span: start byte << _BYTE_BITS | end byte
_BYTE_MASK = (1 << _BYTE_BITS) - 1
# ``packed_in``'s layout, for the callers that pack or unpack ranges inline (the parser, the cache):
# start byte << START_SHIFT | length << LENGTH_SHIFT | the text's number. The start is the top field,
# so any offset fits; the length and the number have fixed widths, and a range beyond them (longer
# than 64 KiB, or in a process that has registered 65,536 texts) is kept as a ``SourceRange``.
INDEX_BITS = 16
INDEX_LIMIT = 1 << INDEX_BITS
INDEX_MASK = INDEX_LIMIT - 1
LENGTH_SHIFT = INDEX_BITS
LENGTH_BITS = 16
LENGTH_LIMIT = 1 << LENGTH_BITS
LENGTH_MASK = LENGTH_LIMIT - 1
START_SHIFT = LENGTH_SHIFT + LENGTH_BITS

# The register of source texts a packed range names by number (entry 0 is never a file, so no
# packed range is 0). Only ever appended to; see ``SourceText``.
_TEXTS: list[SourceText | None] = [None]
_TEXT_INDEX: dict[tuple[str, bytes], int] = {}
_REGISTERING = threading.Lock()


class SourceRange:
    """Where something is written; printed as ``file:line:col``.

    Two slots: a range in a parsed file holds its ``SourceText`` and its two byte offsets packed
    in one int; any other holds its file name and a tuple of its six numbers.
    """

    __slots__ = ("_file", "_span")

    _file: str | SourceText
    _span: int | tuple[int, int, int, int, int, int]

    def __init__(self, filename: str, start: Pos, end: Pos) -> None:
        self._file = filename
        self._span = (start.line, start.column, start.byte, end.line, end.column, end.byte)

    @classmethod
    def of(cls, filename: str, sl: int, sc: int, sb: int, el: int, ec: int, eb: int) -> SourceRange:
        """Build from plain numbers."""
        r = cls.__new__(cls)
        r._file = filename
        r._span = (sl, sc, sb, el, ec, eb)
        return r

    @classmethod
    def in_text(cls, text: SourceText, start_byte: int, end_byte: int) -> SourceRange:
        """The bytes ``start_byte`` to ``end_byte`` of ``text``."""
        r = cls.__new__(cls)
        r._file = text
        r._span = start_byte << _BYTE_BITS | end_byte
        return r

    def located(self) -> Located:
        """The form a syntax node keeps: a packed int for a range of a parsed file, else the range itself."""
        span, text = self._span, self._file
        if type(span) is int and type(text) is SourceText:  # a packed span is always of a SourceText
            return packed_in(text, span >> _BYTE_BITS, span & _BYTE_MASK)
        return self

    @property
    def filename(self) -> str:
        f = self._file
        return f if isinstance(f, str) else f.name

    @property
    def text(self) -> SourceText | None:
        """The parsed file this range is in, when it is one (its ends are then only byte offsets)."""
        f = self._file
        return None if isinstance(f, str) else f

    def byte_span(self) -> tuple[int, int]:
        span = self._span
        if isinstance(span, int):
            return span >> _BYTE_BITS, span & _BYTE_MASK
        return span[2], span[5]

    def numbers(self) -> tuple[int, int, int, int, int, int]:
        """Start line, column, byte, then end line, column, byte: what ``of`` takes after the name."""
        span, text = self._span, self._file
        if isinstance(span, tuple):
            return span
        assert isinstance(text, SourceText)  # a packed span is always of a SourceText
        sb, eb = span >> _BYTE_BITS, span & _BYTE_MASK
        return (*text.line_column(sb), sb, *text.line_column(eb), eb)

    def to(self, other: SourceRange) -> SourceRange:
        """From this range's start to ``other``'s end."""
        text = self._file
        if type(self._span) is int and type(text) is SourceText and other._file is text:
            return SourceRange.in_text(text, self.byte_span()[0], other.byte_span()[1])
        return SourceRange(self.filename, self.start, other.end)

    @property
    def start(self) -> Pos:
        sl, sc, sb, *_ = self.numbers()
        return Pos(sl, sc, sb)

    @property
    def end(self) -> Pos:
        *_, el, ec, eb = self.numbers()
        return Pos(el, ec, eb)

    def _key(self) -> tuple[str, int, int, int, int, int, int]:
        return (self.filename, *self.numbers())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceRange):
            return NotImplemented
        if self._file is other._file and self._span == other._span:
            return True
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"SourceRange({self.filename!r}, {self.start!r}, {self.end!r})"

    def __str__(self) -> str:
        sl, sc, *_ = self.numbers()
        return f"{self.filename}:{sl}:{sc}"

    def to_json(self) -> dict[str, Any]:
        sl, sc, sb, el, ec, eb = self.numbers()
        return {
            "filename": self.filename,
            "start": {"line": sl, "column": sc, "byte": sb},
            "end": {"line": el, "column": ec, "byte": eb},
        }

    def sort_key(self) -> tuple[str, int, int]:
        sl, sc, *_ = self.numbers()
        return (self.filename, sl, sc)


Located = int | SourceRange
"""A range as a syntax node keeps it: see the module's docstring, ``SourceRange.located`` and ``as_range``."""


def packed_in(text: SourceText, start_byte: int, end_byte: int) -> Located:
    """The ``Located`` of bytes ``start_byte`` to ``end_byte`` of ``text`` (the parser's hot path):
    one int, or for a range the layout cannot hold (see ``START_SHIFT``) a ``SourceRange``."""
    length, index = end_byte - start_byte, text.index
    if length < LENGTH_LIMIT and index < INDEX_LIMIT:
        return start_byte << START_SHIFT | length << LENGTH_SHIFT | index
    return SourceRange.in_text(text, start_byte, end_byte)


def as_range(located: Located) -> SourceRange:
    """The ``SourceRange`` a syntax node's ``Located`` stands for."""
    if isinstance(located, SourceRange):
        return located
    text = _TEXTS[located & INDEX_MASK]
    assert text is not None  # entry 0, the only None, is no packed range's
    start = located >> START_SHIFT
    r = SourceRange.__new__(SourceRange)
    r._file = text
    r._span = start << _BYTE_BITS | start + (located >> LENGTH_SHIFT & LENGTH_MASK)
    return r

