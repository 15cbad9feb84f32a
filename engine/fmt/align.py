"""Vertical alignment: the last pass of hclwrite's ``format``.

Consecutive lines that each have an ``assign`` cell form a group, and every ``=`` of the group
starts one column after the longest lead (``a   = 1`` over ``abc = 2``). Any line without one
(a blank line, a comment on its own, a block header, a closing brace) ends the group. Trailing
line comments are grouped and aligned the same way, after ``=`` has moved. Widths count grapheme
clusters, so text with combining accents or emoji aligns as Terraform aligns it.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.fmt.graphemes import clusters
from engine.fmt.layout import Line
from engine.fmt.tokens import Token


def columns(cell: list[Token]) -> int:
    """How wide a cell is: its spaces plus its characters, in grapheme clusters."""
    return sum(tok.spaces + clusters(tok.text) for tok in cell)


def align(lines: list[Line]) -> None:
    """Align the ``=`` of each group of attribute lines, then the trailing comments."""
    _align_cells(lines, lambda line: line.assign, lambda line: columns(line.lead))
    _align_cells(lines, lambda line: line.comment, lambda line: columns(line.lead) + columns(line.assign))


def _align_cells(
    lines: list[Line],
    cell: Callable[[Line], list[Token]],
    width_before: Callable[[Line], int],
) -> None:
    group: list[tuple[Line, int]] = []
    for line in [*lines, None]:
        if line is not None and cell(line):
            group.append((line, width_before(line)))
            continue
        if group:
            widest = max(width for _, width in group)
            for member, width in group:
                cell(member)[0].spaces = widest - width + 1
            group = []
