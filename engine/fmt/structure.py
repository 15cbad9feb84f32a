"""A file's attributes and blocks, found in its token stream and checked as hclsyntax checks them.

``terraform fmt`` rewrites a few things beyond whitespace, each tied to the body structure: the
value of every attribute of a block body (not of an object constructor), the ``type`` of a
top-level ``variable`` block, and every block's labels. This module finds those places.

On the way it enforces the body grammar exactly as HCL's parser does (``ParseBody``): one item per
line, ``name = value`` or ``type label... {``, a block's ``}`` followed by a newline, the one-line
form ``x { a = 1 }`` holding at most one argument, no argument set twice. The general parser
(tree-sitter) is more forgiving there, and ``terraform fmt`` refuses such files. Expressions are
only delimited here (they end at a newline outside brackets); their grammar is the parser's job.
As in HCL, a ``#``/``//`` comment counts as the newline it ends with and a ``/* */`` comment is
skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.fmt import tokens as t
from engine.fmt.layout import bracket_change
from engine.fmt.tokens import Token


class Malformed(Exception):
    """A body that HCL's parser rejects: ``summary``/``detail`` say why, ``token`` where."""

    def __init__(self, token: Token, summary: str, detail: str) -> None:
        super().__init__(f"{token.line}:{token.col}: {summary}")
        self.token = token
        self.summary = summary
        self.detail = detail


@dataclass(frozen=True)
class AttributeAt:
    """``name = expression``: the expression is ``tokens[start:end]``, without comments around it."""

    name: str
    start: int
    end: int
    blocks: tuple[str, ...]  # the types of the blocks it is nested in, outermost first


@dataclass(frozen=True)
class BlockAt:
    """A block header: each label is ``tokens[a:b]``; ``dropped`` are comments among the labels."""

    type: str
    labels: list[tuple[int, int]] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)


def _inline_comment(tok: Token) -> bool:
    return tok.kind == t.COMMENT and not tok.text.endswith("\n")


def _ends_line(tok: Token) -> bool:
    return tok.kind == t.NEWLINE or (tok.kind == t.COMMENT and tok.text.endswith("\n"))


class _Walker:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.attributes: list[AttributeAt] = []
        self.blocks: list[BlockAt] = []

    def _peek(self, i: int) -> int:
        while _inline_comment(self.toks[i]):
            i += 1
        return i

    def body(self, i: int, end: str, blocks: tuple[str, ...]) -> int:
        """Read a body's items from ``i`` up to its ``end`` token; returns the index after it."""
        names: set[str] = set()
        while True:
            i = self._peek(i)
            tok = self.toks[i]
            if tok.kind == end:
                return i + 1
            if _ends_line(tok):
                i += 1
                continue
            if tok.kind != t.IDENT:
                if tok.kind == t.O_QUOTE:
                    raise Malformed(tok, "Invalid argument name", "Argument names must not be quoted.")
                raise Malformed(tok, "Argument or block definition required",
                                "An argument or block definition is required here.")
            after = self._peek(i + 1)
            if self.toks[after].kind == t.EQUAL:
                if tok.text in names:
                    raise Malformed(tok, "Attribute redefined",
                                    f'The argument "{tok.text}" was already set. Each argument may be set only once.')
                names.add(tok.text)
                i = self._attribute(tok.text, after + 1, blocks, single_line=False)
            elif self.toks[after].kind in (t.O_QUOTE, t.O_BRACE, t.IDENT):
                i = self._block(tok.text, i + 1, blocks)
            else:
                raise Malformed(tok, "Argument or block definition required",
                                'An argument or block definition is required here. To set an argument, use the '
                                'equals sign "=" to introduce the argument value.')

    def _attribute(self, name: str, i: int, blocks: tuple[str, ...], *, single_line: bool) -> int:
        toks, depth, end = self.toks, 0, i
        while toks[end].kind != t.EOF and not (depth == 0 and (_ends_line(toks[end]) or
                                                               bracket_change(toks[end]) < 0)):
            depth += bracket_change(toks[end])
            end += 1
        start, stop = i, end
        while start < stop and toks[start].kind == t.COMMENT:
            start += 1
        while stop > start and toks[stop - 1].kind == t.COMMENT:
            stop -= 1
        if start == stop:
            raise Malformed(toks[end], "Invalid expression", "Expected the start of an expression.")
        self.attributes.append(AttributeAt(name, start, stop, blocks))
        closer = toks[end]
        if single_line and closer.kind != t.C_BRACE:
            raise Malformed(closer, "Invalid single-argument block definition",
                            "A single-line block definition must end with a closing brace immediately after "
                            "its single argument definition.")
        if not single_line and not (_ends_line(closer) or closer.kind == t.EOF):
            raise Malformed(closer, "Missing newline after argument", "An argument definition must end with a newline.")
        return end if single_line or closer.kind == t.EOF else end + 1

    def _block(self, type_name: str, i: int, blocks: tuple[str, ...]) -> int:
        toks = self.toks
        block = BlockAt(type_name)
        pending: list[int] = []  # comments since the type name or the previous label: hclwrite drops them
        while toks[i].kind != t.O_BRACE:
            kind = toks[i].kind
            if _inline_comment(toks[i]):
                pending.append(i)
                i += 1
                continue
            end = i + 1
            if kind == t.O_QUOTE:
                while toks[end].kind == t.QUOTED_LIT:
                    end += 1
                if toks[end].kind != t.C_QUOTE:
                    raise Malformed(toks[end], "Invalid string literal",
                                    "Template sequences are not allowed in this string.")
                end += 1
            elif kind != t.IDENT:
                raise Malformed(toks[i], "Invalid block definition",
                                'Either a quoted string block label or an opening brace ("{") is expected here.')
            block.dropped.extend(pending)
            pending = []
            block.labels.append((i, end))
            i = end
        self.blocks.append(block)
        inner = (*blocks, type_name)
        first = self._peek(i + 1)
        if toks[first].kind in (t.NEWLINE, t.EOF, t.C_BRACE) or _ends_line(toks[first]):
            i = self.body(i + 1, t.C_BRACE, inner)
        else:
            i = self._single_attribute(first, inner)
        eol = self._peek(i)
        if not (_ends_line(toks[eol]) or toks[eol].kind == t.EOF):
            raise Malformed(toks[eol], "Missing newline after block definition", "A block definition must end with a newline.")
        return eol

    def _single_attribute(self, i: int, blocks: tuple[str, ...]) -> int:
        toks = self.toks
        after = self._peek(i + 1)
        if toks[i].kind != t.IDENT or toks[after].kind != t.EQUAL:
            raise Malformed(toks[i], "Argument definition required",
                            "A single-line block definition can contain only a single argument. To define a "
                            "nested block, place it on a line of its own within its parent block.")
        return self._attribute(toks[i].text, after + 1, blocks, single_line=True) + 1


def walk(tokens: list[Token]) -> tuple[list[AttributeAt], list[BlockAt]]:
    """Every attribute and block of the file, at any depth of block nesting."""
    walker = _Walker(tokens)
    walker.body(0, t.EOF, ())
    return walker.attributes, walker.blocks
