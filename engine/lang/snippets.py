"""The ``snippet`` of a JSON diagnostic, as Terraform and OpenTofu write it.

Editors and CI annotations read ``validate -json`` and ``plan -json`` diagnostics; both references
give each diagnostic with a source range a snippet: the top-level block it is in (``context``, its
type and labels, or null), the whole source lines the diagnostic is about (``code``, from
``start_line``), where the highlighted range falls in that text (byte offsets), and ``values``
(what the references knew of the expression's variables; ctl gives none). The lines shown are those
of the diagnostic's context range (a whole function call around its bad argument) together with
its range; as in HCL's range scanner, an empty line never overlaps, so it is left out of the code.
"""

from __future__ import annotations

from typing import Any

from adapters.plugin.set_order import go_quote
from vocab.errors import CtlError, Diagnostic


def json_snippet(d: Diagnostic, src: bytes) -> dict[str, Any]:
    """The snippet of ``d`` (which has a range) in the source ``src`` of its file."""
    assert d.range is not None
    hl_start, hl_end = d.range.byte_span()
    if d.context is not None and d.context.filename == d.range.filename:
        sn_start, sn_end = d.context.byte_span()
        sn_start, sn_end = min(sn_start, hl_start), max(sn_end, hl_end)  # always over the highlight
    else:
        sn_start, sn_end = hl_start, hl_end
    if sn_end == sn_start:  # an empty range shows the byte after it
        sn_end += 1
    if hl_end == hl_start:
        hl_end += 1
    lines: list[bytes] = []
    code_start = 0
    at = 0
    for raw in src.split(b"\n"):
        line_start, line_end = at, at + len(raw)
        at = line_end + 1
        text = raw[:-1] if raw.endswith(b"\r") else raw  # bufio.ScanLines drops a CR before the LF
        if _overlaps((line_start, line_start + len(text)), (sn_start, sn_end)):
            if not lines:
                code_start = line_start
            lines.append(text)
        if line_start > sn_end:
            break
    code = b"\n".join(lines)
    start = min(max(hl_start - code_start, 0), len(code))
    end = min(max(start + (hl_end - hl_start), 0), len(code))
    return {
        "context": _block_header(src, d.range.filename, hl_start - 1),
        "code": code.decode("utf-8", "replace"),
        "start_line": _line_of(src, sn_start),
        "highlight_start_offset": start,
        "highlight_end_offset": end,
        "values": [],
    }


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """HCL's ``Range.Overlaps``: neither empty, and one holds the other's start or end."""
    if a[0] == a[1] or b[0] == b[1]:
        return False

    def holds(r: tuple[int, int], offset: int) -> bool:
        return r[0] <= offset < r[1]

    return holds(a, b[0]) or holds(a, b[1]) or holds(b, a[0]) or holds(b, a[1])


def _line_of(src: bytes, offset: int) -> int:
    return src.count(b"\n", 0, max(offset, 0)) + 1


def _block_header(src: bytes, filename: str, offset: int) -> str | None:
    """The top-level block holding ``offset``, written as its header (``resource "a" "b"``)."""
    if not filename.endswith(".tf"):
        return None  # the references describe a JSON file's place otherwise; ctl gives none
    from engine.lang.hcl import parse_hcl_file

    try:
        body = parse_hcl_file(src, filename)
    except CtlError:
        return None
    for block in body.blocks:
        start = block.rng.byte_span()[0]
        end = block.body.rng.byte_span()[1]
        if start <= offset < end:
            return " ".join([block.type, *(go_quote(label) for label in block.labels)])
    return None


__all__ = ["json_snippet"]
