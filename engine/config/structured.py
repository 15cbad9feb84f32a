"""YAML specs (``*.tf.yaml``): Terraform's JSON configuration syntax written as YAML, read with positions.

They are read through PyYAML's composer (the C one when available): it gives the line and column
of every node, so errors inside YAML files point at the exact place too. (``*.tf.json`` files have
a reader of their own, ``engine.config.json_syntax``.)

Terraform's JSON syntax does not mark which keys are nested blocks; the decoder passes a
``BlockSchema`` saying so, and strings are templates (``"logs-${var.env}"``) unless the schema
marks the attribute literal (a variable's ``default``).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from engine.lang import ast
from engine.lang.functions._yaml import AliasBudget, YamlError
from engine.lang.hcl import parse_template
from engine.lang.literals import LiteralError, checked_float, decode_utf8, number
from engine.lang.syntax import EMPTY_SCHEMA, Attribute, Block, BlockSchema, Body
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange
from vocab.limits import MAX_NESTING
from vocab.values import normalize_number

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OCTAL_LIKE = re.compile(r"^0[0-9]+$")
_YAML12_NUMBER = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+$")


def parse_yaml_file(src: bytes, filename: str, schema: BlockSchema) -> Body:
    """Parse a YAML spec (same structure as the JSON syntax) into a body."""
    return _parse_structured(decode_utf8(src, filename), filename, schema, what="YAML")


def _parse_structured(text: str, filename: str, schema: BlockSchema, *, what: str) -> Body:
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        pos = Pos(line, col, mark.index if mark else 0)
        problem = exc.problem or exc.context or "syntax error"
        raise DiagnosticsError(
            [Diagnostic("error", f"Invalid {what}: {problem}", range=SourceRange(filename, pos, pos))]
        ) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a control character)
        before = text[: exc.position]
        line = before.count("\n") + 1
        pos = Pos(line, exc.position - (before.rfind("\n") + 1) + 1, len(before.encode()))
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise DiagnosticsError([Diagnostic(
            "error", f"Invalid {what}: character U+{ord(char):04X} is not allowed",
            detail=f"{exc.reason}; remove it, or write it as an escape inside a double-quoted string.",
            range=SourceRange(filename, pos, pos),
        )]) from None
    reader = _Reader(filename, text)
    if root is None:
        p = Pos(1, 1, 0)
        return Body({}, [], SourceRange(filename, p, p))
    if not isinstance(root, yaml.MappingNode):
        raise reader.error(root, f"The top level of a {what} configuration must be an object")
    return reader.body(root, schema)


class _Reader:
    def __init__(self, filename: str, text: str = "") -> None:
        self.filename = filename
        self.lines = text.split("\n")
        self._ascii = [line.isascii() for line in self.lines]
        self._starts: list[int] = []  # byte offset of each line
        offset = 0
        for line, ascii_only in zip(self.lines, self._ascii, strict=True):
            self._starts.append(offset)
            offset += (len(line) if ascii_only else len(line.encode("utf-8"))) + 1
        self._char_bytes: dict[int, list[int]] = {}  # non-ASCII lines: byte offset of each character
        self._aliases = AliasBudget()  # an alias node is the anchor's node again: its copies are counted

    def byte_of(self, line: int, column: int) -> int:
        """The byte offset of a 1-based line and column (YAML marks count characters)."""
        if not 0 < line <= len(self.lines):
            return 0
        idx = line - 1
        col = max(column - 1, 0)
        if self._ascii[idx]:
            return self._starts[idx] + col
        offsets = self._char_bytes.get(idx)
        if offsets is None:
            offsets = [0]
            for ch in self.lines[idx]:
                offsets.append(offsets[-1] + len(ch.encode("utf-8")))
            self._char_bytes[idx] = offsets
        return self._starts[idx] + offsets[min(col, len(offsets) - 1)]

    def rng(self, node: yaml.Node) -> SourceRange:
        s, e = node.start_mark, node.end_mark
        return SourceRange(
            self.filename,
            Pos(s.line + 1, s.column + 1, self.byte_of(s.line + 1, s.column + 1)),
            Pos(e.line + 1, e.column + 1, self.byte_of(e.line + 1, e.column + 1)),
        )

    def error(self, node: yaml.Node, summary: str) -> DiagnosticsError:
        return DiagnosticsError([Diagnostic("error", summary, range=self.rng(node))])

    def body(self, node: yaml.Node, schema: BlockSchema) -> Body:
        if not isinstance(node, yaml.MappingNode):
            raise self.error(node, "A block body must be an object")
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        dupes: list[tuple[Attribute, Attribute]] = []
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key == "//":  # JSON syntax comments
                continue
            nested = schema.blocks.get(key)
            if nested is not None:
                labels, inner = nested
                self._blocks(key, key_node, value_node, labels, inner, [], [], blocks)
                continue
            literal = key in schema.literal_attributes
            attr = Attribute(key, self.expr(value_node, literal=literal), self._span(key_node, value_node), self.rng(key_node))
            if key in attributes:
                dupes.append((attributes[key], attr))
            else:
                attributes[key] = attr
        return Body(attributes, blocks, self.rng(node), dupes)

    def _span(self, first: yaml.Node, last: yaml.Node) -> SourceRange:
        a, b = self.rng(first), self.rng(last)
        return SourceRange(self.filename, a.start, b.end)

    def _blocks(
        self,
        block_type: str,
        type_node: yaml.Node,
        node: yaml.Node,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[SourceRange],
        out: list[Block],
    ) -> None:
        if labels_left > 0:
            # The JSON syntax allows an array of such objects at any label level (python-hcl2 writes it).
            groups = node.value if isinstance(node, yaml.SequenceNode) else [node]
            if not groups or not all(isinstance(g, yaml.MappingNode) for g in groups):
                raise self.error(node, f'"{block_type}" needs an object keyed by its label')
            for key_node, value_node in (pair for g in groups for pair in g.value):
                self._blocks(
                    block_type, type_node, value_node, labels_left - 1, schema,
                    [*labels, str(key_node.value)], [*label_rngs, self.rng(key_node)], out,
                )
            return
        bodies = node.value if isinstance(node, yaml.SequenceNode) else [node]
        header = label_rngs[-1] if label_rngs else self.rng(type_node)
        for body_node in bodies:
            out.append(Block(block_type, list(labels), self.body(body_node, schema), header, list(label_rngs)))

    def expr(self, node: yaml.Node, *, literal: bool = False, depth: int = 1) -> ast.Expr:
        rng = self.rng(node)
        if depth > MAX_NESTING:
            raise DiagnosticsError([Diagnostic(
                "error", "Value nested too deeply",
                detail=f"Lists and objects may be nested at most {MAX_NESTING} levels deep (MAX_NESTING); "
                       "this one goes deeper here.",
                range=rng,
            )])
        try:
            repeated = self._aliases.enter(node, collection=not isinstance(node, yaml.ScalarNode))
        except YamlError as exc:
            raise DiagnosticsError([Diagnostic(
                "error", "Too many aliases", detail=f"{exc}; the value here is one that was copied once too often.",
                range=rng)]) from None
        try:
            return self._expr(node, rng, literal=literal, depth=depth)
        finally:
            self._aliases.leave(repeated)

    def _expr(self, node: yaml.Node, rng: SourceRange, *, literal: bool, depth: int) -> ast.Expr:
        if isinstance(node, yaml.ScalarNode):
            try:
                value = self.scalar(node)
            except LiteralError as exc:
                raise DiagnosticsError([Diagnostic("error", "Invalid number", detail=exc.message, range=rng)]) from None
            if isinstance(value, str) and not literal:
                if node.style == "|":
                    # A literal block scalar: the text starts on the next line, at the block's indentation.
                    line, indent = self._block_start(rng.start.line)
                    return parse_template(value, self.filename, line, indent + 1, indent, self.byte_of)
                col = rng.start.column + (1 if node.style in ('"', "'") else 0)
                return parse_template(value, self.filename, rng.start.line, col, byte_of=self.byte_of)
            return ast.Literal(rng, value)
        if isinstance(node, yaml.SequenceNode):
            return ast.TupleCons(rng, tuple(self.expr(n, literal=literal, depth=depth + 1) for n in node.value))
        if isinstance(node, yaml.MappingNode):
            items = tuple(
                ast.ObjectItem(ast.Literal(self.rng(k), str(k.value)), self.expr(v, literal=literal, depth=depth + 1))
                for k, v in node.value
                if str(k.value) != "//"
            )
            return ast.ObjectCons(rng, items)
        raise self.error(node, "Unsupported value")

    def _block_start(self, indicator_line: int) -> tuple[int, int]:
        """(line, indentation) of the first non-blank line after a ``|`` indicator on ``indicator_line``."""
        for idx in range(indicator_line, len(self.lines)):
            text = self.lines[idx]
            if text.strip():
                return idx + 1, len(text) - len(text.lstrip(" "))
        return indicator_line + 1, 0

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


__all__ = ["EMPTY_SCHEMA", "parse_yaml_file"]
