"""Indentation and the spaces between tokens: the first two passes of hclwrite's ``format``.

The formatter changes nothing but the number of spaces before each token. It cuts the tokens into
lines (a ``#``/``//`` comment carries its own newline, so it ends a line too) and each line into up
to three cells: ``lead``, then ``assign`` from an attribute's ``=`` when the rest of the line
closes every bracket it opens, then a trailing line comment. Then:

* indentation is two spaces per level; a line that opens brackets (net) indents the lines after
  it, a line that closes them dedents itself, counted through a stack so unbalanced lines cannot
  drift far;
* between two tokens of one cell there is one space or none, by the rules of ``_space_after``.

The third pass, aligning ``=`` and comments, is ``engine.fmt.align``.
"""

from __future__ import annotations

from engine.fmt import tokens as t
from engine.fmt.tokens import Token

_OPENERS = frozenset((t.O_BRACE, t.O_BRACK, t.O_PAREN, t.CONTROL, t.INTERP))
_CLOSERS = frozenset((t.C_BRACE, t.C_BRACK, t.C_PAREN, t.SEQ_END))
_NIL = Token(t.NIL, "")
_TEMPLATE_TEXT = frozenset((t.QUOTED_LIT, t.STRING_LIT, t.O_QUOTE, t.O_HEREDOC))
_BEFORE_TEMPLATE_TEXT = frozenset((t.QUOTED_LIT, t.STRING_LIT, t.C_QUOTE, t.C_HEREDOC))
# After one of these a "-" negates the next operand rather than subtracting it.
_BEFORE_NEGATION = frozenset((
    t.NIL, t.O_PAREN, t.O_BRACE, t.O_BRACK, t.EQUAL, t.COLON, t.COMMA, t.QUESTION,
    t.PLUS, t.STAR, t.SLASH, t.PERCENT, t.MINUS,
    t.EQUAL_OP, t.NOT_EQUAL, t.GREATER, t.GREATER_EQ, t.LESS, t.LESS_EQ,
    t.AND, t.OR, t.BANG,
))


class Line:
    """One line's tokens in their three cells (``assign`` and ``comment`` may be empty)."""

    __slots__ = ("assign", "comment", "lead")

    def __init__(self, lead: list[Token]) -> None:
        self.lead = lead
        self.assign: list[Token] = []
        self.comment: list[Token] = []


def bracket_change(tok: Token) -> int:
    if tok.kind in _OPENERS:
        return 1
    return -1 if tok.kind in _CLOSERS else 0


def _ends_line(tok: Token) -> bool:
    return tok.kind == t.NEWLINE or (tok.kind == t.COMMENT and tok.text.endswith("\n"))


def split_lines(tokens: list[Token]) -> list[Line]:
    """The tokens (ending with ``EOF``, which belongs to no line) cut into lines and cells."""
    lines: list[Line] = []
    start = 0
    for i, tok in enumerate(tokens):
        if tok.kind == t.EOF:
            lines.append(Line(tokens[start:i]))
            break
        if _ends_line(tok):
            lines.append(Line(tokens[start:i + 1]))
            start = i + 1
    for line in lines:
        lead = line.lead
        if len(lead) > 1 and lead[-1].kind == t.COMMENT:
            line.comment, lead = lead[-1:], lead[:-1]
        for i in range(1, len(lead)):
            if lead[i].kind == t.EQUAL:
                if sum(bracket_change(tok) for tok in lead[i:]) == 0:
                    line.assign, lead = lead[i:], lead[:i]
                break
        line.lead = lead
    return lines


def indent(lines: list[Line]) -> None:
    """Set the spaces before the first token of every line."""
    stack: list[int] = []
    for line in lines:
        if not line.lead:
            continue
        first = line.lead[0]
        if first.kind == t.NEWLINE:
            first.spaces = 0
            continue
        net = 0
        for tok in line.lead:
            net += bracket_change(tok)
            if tok.kind == t.O_HEREDOC:
                break
        net += sum(bracket_change(tok) for tok in line.assign)
        if net > 0:
            first.spaces = 2 * len(stack)
            stack.append(net)
            continue
        closed = -net
        while closed > 0 and stack:
            if closed > stack[-1]:
                closed -= stack.pop()
            elif closed < stack[-1]:
                stack[-1] -= closed
                closed = 0
            else:
                stack.pop()
                closed = 0
        first.spaces = 2 * len(stack)


def space(lines: list[Line]) -> None:
    """Set the spaces between the tokens of each cell."""
    for line in lines:
        _space_cell(line.lead)
        if line.assign:
            line.assign[0].spaces = 1
            _space_cell(line.assign)


def _space_cell(cell: list[Token]) -> None:
    last = len(cell) - 1
    for i, tok in enumerate(cell):
        if i < last:
            cell[i + 1].spaces = 1 if _space_after(tok, cell[i - 1] if i else _NIL, cell[i + 1]) else 0


def _space_after(subject: Token, before: Token, after: Token) -> bool:
    """hclwrite's ``spaceAfterToken``: whether one space separates ``subject`` from ``after``."""
    s, a = subject.kind, after.kind
    if a in (t.NEWLINE, t.NIL):
        return False
    if s == t.IDENT and a == t.O_PAREN:
        return False  # a function call
    if s in (t.DOT, t.DOUBLE_COLON) or a in (t.DOT, t.DOUBLE_COLON):
        return False  # attribute access; "provider::name::func" (newer HCL) is one name too
    if a in (t.COMMA, t.ELLIPSIS):
        return False
    if s == t.COMMA:
        return True
    if s in _TEMPLATE_TEXT or a in _BEFORE_TEMPLATE_TEXT:
        return False  # inside a template
    if s == t.IDENT and subject.text == "in" and before.kind == t.IDENT:
        return True  # the keyword of a for expression, even before "[" ("in [1, 2]")
    if a == t.O_BRACK and (s in (t.IDENT, t.NUMBER) or s in _CLOSERS):
        return False  # an index
    if s == t.BANG:
        return False
    if s == t.MINUS:
        return before.kind not in _BEFORE_NEGATION  # subtraction, not negation
    if s == t.O_BRACE or a == t.C_BRACE:
        return not (s == t.O_BRACE and a == t.C_BRACE)  # "{ a = 1 }", but "{}"
    if s in (t.INTERP, t.CONTROL) and a == t.O_BRACE:
        return True
    if s == t.C_BRACE and a == t.SEQ_END:
        return True
    if s == t.SEQ_END and a in (t.INTERP, t.CONTROL):
        return False
    if s in _OPENERS:
        return False
    return a not in _CLOSERS
