"""Reading a large state straight from its file, one resource at a time (``piecewise`` over a file).

``piecewise`` reads a state's resources one at a time from its bytes, but the bytes themselves
were whole in memory while the model was built from them: on top of the model, they were the
peak of a re-plan. This reads the same layout from an open file instead, in two
passes over it:

* the first reads it in windows of ``WINDOW`` bytes, noting where the resources' array starts and
  ends and where each separator between two resources is (8 bytes per resource);
* the second decodes the document without its resources (its head and its tail, read by their
  offsets), then reads and decodes each resource in order.

What is accepted is exactly what ``piecewise.split`` accepts of the same bytes (the same layout
markers, found at the same places, and the same per-piece checks), so every other file, and any
piece that does not decode exactly, goes back to the caller to be parsed whole.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any, BinaryIO

from vocab.piecewise import (
    BETWEEN,
    BETWEEN_AT,
    BRACKET_IN_START,
    END,
    END_AT,
    FIRST_PIECE,
    NEXT_PIECE,
    PIECE_END,
    START,
    START_AT,
    decode_piece,
    rest_of,
)

WINDOW = 1 << 20


def split_file(f: BinaryIO) -> tuple[dict[str, Any], Iterator[Any]] | None:
    """The document in ``f`` without its ``resources``, and its resources one at a time, read
    from the file as they are asked for. ``None`` when the file is not in the layout ``piecewise``
    reads; the iterator raises ``NotPiecewise`` when a resource's text does not decode exactly.
    ``f`` must stay open until the iterator is done."""
    scanned = _scan(f)
    if scanned is None:
        return None
    start, end, separators = scanned
    bracket = start + BRACKET_IN_START
    f.seek(0)
    head = f.read(bracket)
    f.seek(end + len(END))
    rest = rest_of(head, f.read())
    if rest is None:
        return None
    return rest, _resources(f, bracket + FIRST_PIECE, end, separators)


def _scan(f: BinaryIO) -> tuple[int, int, array[int]] | None:
    """Where ``START`` first occurs, where ``END`` first occurs after it, and every ``BETWEEN``
    in between (file offsets), found window by window; None when either marker is missing."""
    keep = max(len(START), len(BETWEEN), len(END)) - 1  # a marker may straddle two windows
    separators: array[int] = array("q")
    start = -1
    f.seek(0)
    buf, base, at = b"", 0, 0  # buf holds the file from offset base; search from offset at
    while True:
        chunk = f.read(WINDOW)
        if not chunk:
            return None
        carried = buf[-keep:]
        base += len(buf) - len(carried)
        buf = carried + chunk
        if start < 0:
            found = START_AT.search(buf, max(at - base, 0))
            if found is None:
                continue
            start = base + found.start()
            at = start + BRACKET_IN_START + FIRST_PIECE  # the first piece's "{": no separator before it
        found_end = END_AT.search(buf, max(at - base, 0))
        end = -1 if found_end is None else found_end.start()
        limit = len(buf) if end < 0 else end
        for sep in BETWEEN_AT.finditer(buf, max(at - base, 0), limit):
            separators.append(base + sep.start())
            at = base + sep.end()
        if end >= 0:
            return start, base + end, separators


def _resources(f: BinaryIO, at: int, end: int, separators: array[int]) -> Iterator[Any]:
    f.seek(at)
    for sep in separators:
        yield decode_piece(f.read(sep + PIECE_END - at))
        at = sep + NEXT_PIECE
        f.seek(at)
    yield decode_piece(f.read(end - at))
