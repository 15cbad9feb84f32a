"""A YAML spec's positions and scalars: what both of its readers (``engine.config.structured``) share.

PyYAML's marks count characters; ranges are packed byte offsets into the file's ``SourceText``
(``vocab.positions``), so a mark is turned into a byte offset here, without a copy of each line.
Scalars are read as YAML 1.2's core schema reads them, and strings are templates unless literal.
"""

from __future__ import annotations

import re
from array import array
from typing import Any

import yaml

from engine.lang import ast
from engine.lang.hcl import parse_template
from engine.lang.literals import LiteralError, checked_float, nfc, number
from vocab.errors import Diagnostic, DiagnosticsError, SourceText
from vocab.limits import MAX_NESTING
from vocab.positions import Located, as_range, packed_in
from vocab.values import normalize_number

_OCTAL_LIKE = re.compile(r"^0[0-9]+$")
_YAML12_NUMBER = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+$")
_NEWLINE = re.compile("\n")
_CHECKPOINT = 4096  # characters between two known byte offsets of a non-ASCII text


class Positions:
    """Where YAML's marks are in the file: their character offsets as byte offsets, and lines
    (counted at ``\\n``) and columns as byte offsets, for the ranges of templates."""

    def __init__(self, src: bytes, text: str, filename: str) -> None:
        self.filename = filename
        self.text = text
        self.source = SourceText(filename, src)
        self.bom = len(src) - len(text.encode("utf-8")) if not src.isascii() else 0
        self.ascii = text.isascii()
        self.lines = array("q", [0])  # the character offset of each line's start
        self.lines.extend(m.end() for m in _NEWLINE.finditer(text))
        self.checkpoints = array("q")  # non-ASCII: the byte offset of every _CHECKPOINT-th character
        if not self.ascii:
            offset = self.bom
            for at in range(0, len(text), _CHECKPOINT):
                self.checkpoints.append(offset)
                offset += len(text[at : at + _CHECKPOINT].encode("utf-8"))

    def byte(self, index: int) -> int:
        """The byte offset of the character at ``index``."""
        if self.ascii:
            return index + self.bom
        if not self.checkpoints:  # an empty text
            return self.bom
        block = min(index // _CHECKPOINT, len(self.checkpoints) - 1)
        first = block * _CHECKPOINT
        return self.checkpoints[block] + len(self.text[first:index].encode("utf-8"))

    def byte_of(self, line: int, column: int) -> int:
        """The byte offset of a 1-based line and column (YAML marks count characters)."""
        if not 0 < line <= len(self.lines):
            return 0
        start = self.lines[line - 1]
        end = self.lines[line] - 1 if line < len(self.lines) else len(self.text)
        return self.byte(min(start + max(column - 1, 0), end))

    def at(self, start: int, end: int) -> Located:
        """The range of characters ``start`` to ``end``."""
        return packed_in(self.source, self.byte(start), self.byte(end))

    def line_text(self, idx: int) -> str:
        start = self.lines[idx]
        end = self.lines[idx + 1] - 1 if idx + 1 < len(self.lines) else len(self.text)
        return self.text[start:end]

    def block_start(self, indicator_line: int) -> tuple[int, int]:
        """(line, indentation) of the first non-blank line after a ``|`` indicator on ``indicator_line``."""
        for idx in range(indicator_line, len(self.lines)):
            text = self.line_text(idx)
            if text.strip():
                return idx + 1, len(text) - len(text.lstrip(" "))
        return indicator_line + 1, 0



class ScalarReader:
    """What both readers do with one scalar: its value, and its expression."""

    positions: Positions

    def scalar_expr(self, node: yaml.ScalarNode, rng: Located, *, literal: bool) -> ast.Expr:
        try:
            value = self.scalar(node)
        except LiteralError as exc:
            raise DiagnosticsError([Diagnostic("error", "Invalid number", detail=exc.message,
                                               range=as_range(rng))]) from None
        if isinstance(value, str) and not literal:
            where = self.positions
            start = node.start_mark
            if node.style == "|":
                # A literal block scalar: the text starts on the next line, at the block's indentation.
                line, indent = where.block_start(start.line + 1)
                return parse_template(value, where.filename, line, indent + 1, indent, where.byte_of, where.source)
            quoted = node.style in ('"', "'")
            if "${" not in value and "%{" not in value:
                at = start.index + quoted
                return ast.Literal(where.at(at, at), nfc(value))
            return parse_template(value, where.filename, start.line + 1, start.column + 1 + quoted,
                                  byte_of=where.byte_of, host=where.source)
        return ast.Literal(rng, value)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        """YAML 1.2 core-schema scalars: only true/false are booleans, ``0644`` stays a string.

        Numbers that cannot be stored (infinity, not-a-number, thousands of digits) raise
        ``LiteralError``: a state or plan file cannot hold them, and Python refuses the digits.
        """
        raw = node.value
        if node.style in ('"', "'", "|", ">"):
            return raw
        tag = node.tag.rsplit(":", 1)[-1]
        if tag == "null" or raw in ("", "~"):
            return None
        if tag == "bool":
            low = raw.lower()
            return low == "true" if low in ("true", "false") else raw
        if tag == "int" and not _OCTAL_LIKE.match(raw):
            try:
                return number(raw.replace("_", ""))
            except LiteralError:
                raise
            except ValueError:
                return raw
        if tag == "str" and not node.style and _YAML12_NUMBER.match(raw):
            return number(raw)  # YAML 1.2 numbers that YAML 1.1 reads as strings: 1e3
        if tag == "float":
            if raw.lower().lstrip("+-") in (".inf", ".nan"):
                raise LiteralError(f"{raw} (infinity or not-a-number) is not a number ctl can store; "
                                   "write a number, or quote it to make it a string.")
            try:
                value = float(raw)
            except ValueError:
                return raw
            return normalize_number(checked_float(value))
        return raw



def too_deep(rng: Located) -> DiagnosticsError:
    return DiagnosticsError([Diagnostic(
        "error", "Value nested too deeply",
        detail=f"Lists and objects may be nested at most {MAX_NESTING} levels deep (MAX_NESTING); "
               "this one goes deeper here.",
        range=as_range(rng),
    )])


__all__ = ["Positions", "ScalarReader", "too_deep"]
