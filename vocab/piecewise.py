"""Reading a large state one resource at a time, so the whole document never exists as objects.

Decoding a large state with ``json.loads`` holds, at its peak, the bytes, a ``str`` copy of them
and every value of every resource before any of it can be turned into the leaner state model,
several times the size of the bytes. This reads the layout Terraform and ctl write
(two-space indent, one resource per array item) piece by piece instead: the document without its
resources, then each resource, each decoded by orjson straight from the bytes and handed on before
the next is read.

The pieces are found by text alone, which is sound because JSON strings cannot hold a raw newline:
a newline followed by exactly four spaces and ``},`` is layout, never data. The result is only used
when it must equal the whole parse:

* every piece parses on its own as a JSON object, and the resources' text is exactly those pieces
  joined by commas, so (JSON's grammar being unambiguous) they are that array's elements;
* the array taken out is the document's top-level ``resources`` value: it is replaced by a string
  made of 128 random bits for this read, which no file can hold, and the rest must parse with that
  string as its ``resources``;
* no run of 19 digits occurs in a piece, because orjson reads integers beyond 64 bits as floats.

Anything else (another layout, a syntax error, a surrogate escape orjson refuses, a big integer)
returns ``None`` or raises ``NotPiecewise``, and the caller parses the whole document as before, so
every error message stays the same.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import orjson

START = b'\n  "resources": [\n    {'
BETWEEN = b"\n    },\n    {"
END = b"\n  ]"
# Where things are within the markers: the array's "[" in START and its first piece's "{" after
# the "[", and in a separator where the piece before it ends and the piece after it starts.
BRACKET_IN_START = len(START) - len(b"[\n    {")
FIRST_PIECE = len(b"[\n    ")
PIECE_END = len(b"\n    }")
NEXT_PIECE = len(BETWEEN) - 1
# The markers as patterns, which is how they are looked for: the regular expression engine finds
# them faster than ``bytes.find``, whose skip table the indentation defeats (every marker holds
# spaces, and so does nearly every line).
START_AT = re.compile(re.escape(START))
BETWEEN_AT = re.compile(re.escape(BETWEEN))
END_AT = re.compile(re.escape(END))
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19
_NO_DIGITS = str.maketrans("0123456789", "ghijklmnop")


class NotPiecewise(Exception):
    """A piece did not parse as the whole document would have: parse the whole instead."""


def split(data: bytes) -> tuple[Any, Iterator[Any]] | None:
    """The document without its ``resources``, and its resources one at a time.

    ``None`` when the file is not in the layout this reads. The iterator raises ``NotPiecewise``
    when a resource's text does not decode exactly.
    """
    located = _locate(data)
    if located is None:
        return None
    rest, at, end = located
    return rest, _resources(data, at, end)


def head(data: bytes) -> tuple[dict[str, Any], int] | None:
    """The document without its ``resources``, and how many there are, counted by the layout's
    separators without decoding any: what a history entry records of a document it keeps.
    ``None`` when the file is not in the layout this reads."""
    located = _locate(data)
    if located is None:
        return None
    rest, at, end = located
    return rest, sum(1 for _ in BETWEEN_AT.finditer(data, at, end)) + 1


def _locate(data: bytes) -> tuple[dict[str, Any], int, int] | None:
    """The document without its ``resources``, and where the resources' text starts and ends."""
    found_start = START_AT.search(data)
    if found_start is None:
        return None
    start = found_start.start()
    bracket = start + BRACKET_IN_START
    found = END_AT.search(data, bracket)
    if found is None:
        return None
    end = found.start()
    rest = rest_of(data[:bracket], data[end + len(END):])
    if rest is None:
        return None
    return rest, bracket + FIRST_PIECE, end


def rest_of(head: bytes, tail: bytes) -> dict[str, Any] | None:
    """The document made of ``head`` and ``tail``, with the resources' array that stood between
    them taken out; None when that is not exactly the document's top-level ``resources``."""
    # 128 random bits, as hex with its digits spelled as letters: a run of 19 digits in it would
    # read as a long number (``_decode``) and send about one read in 500 to the whole parse.
    hole = "ctl:" + secrets.token_hex(16).translate(_NO_DIGITS)
    try:
        rest = _decode(head + f'"{hole}"'.encode() + tail)
    except NotPiecewise:
        return None
    if not isinstance(rest, dict) or rest.pop("resources", None) != hole:
        return None
    return rest


def _resources(data: bytes, at: int, end: int) -> Iterator[Any]:
    view = memoryview(data)  # pieces are decoded in place, not copied out
    for sep in BETWEEN_AT.finditer(data, at, end):
        yield decode_piece(view[at:sep.start() + PIECE_END])
        at = sep.start() + NEXT_PIECE
    yield decode_piece(view[at:end])


def decode_piece(text: bytes | memoryview) -> dict[str, Any]:
    """One resource's text, decoded; ``NotPiecewise`` unless it decodes exactly to an object."""
    item = _decode(text)
    if not isinstance(item, dict):
        raise NotPiecewise
    return item


def _decode(text: bytes | memoryview) -> Any:
    if _LONG_NUMBER in bytes(text).translate(_DIGITS):
        raise NotPiecewise
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise NotPiecewise from None
