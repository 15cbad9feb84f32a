"""YAML specs (``*.tf.yaml``): Terraform's JSON configuration syntax written as YAML, read with positions.

A file is read from PyYAML's event stream (its C parser when available) straight into bodies, one
event at a time, without composing the document: a composed node carries two position marks, so
the document composed whole took several times the memory of what is read from it. Ranges are
packed offsets into the file's ``SourceText`` (``vocab.positions``), as a ``.tf`` file's are.

A document with an alias is composed instead (an alias is its anchor's node again, and copying it
is counted against ``MAX_ALIAS_EXPANSION``); so is one the stream cannot read, so that every YAML
error is PyYAML's own, at its position, and a syntax error anywhere is reported before a structural
one found earlier. (``*.tf.json`` files have a reader of their own, ``engine.config.json_syntax``.)

Terraform's JSON syntax does not mark which keys are nested blocks; the decoder passes a
``BlockSchema`` saying so, and strings are templates (``"logs-${var.env}"``) unless the schema
marks the attribute literal (a variable's ``default``).
"""

from __future__ import annotations

from collections.abc import Iterator
from sys import intern
from typing import Any

import yaml

from engine.config.yaml_values import Positions, ScalarReader, too_deep
from engine.lang import ast
from engine.lang.functions._yaml import AliasBudget, YamlError
from engine.lang.literals import decode_utf8
from engine.lang.syntax import EMPTY_SCHEMA, Attribute, Block, BlockSchema, Body
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange
from vocab.limits import MAX_NESTING
from vocab.positions import Located, as_range

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()  # the implicit tags PyYAML's composer gives plain scalars


def parse_yaml_file(src: bytes, filename: str, schema: BlockSchema) -> Body:
    """Parse a YAML spec (same structure as the JSON syntax) into a body."""
    text = decode_utf8(src, filename)
    events = yaml.parse(text, Loader=_Loader)
    streamed = _Streamed(Positions(src, text, filename), events)
    try:
        return streamed.document(schema)
    except _Compose:
        pass
    except (yaml.MarkedYAMLError, yaml.reader.ReaderError):
        pass  # composed below, which raises the same error
    except DiagnosticsError as err:
        try:
            for _ in events:  # the rest of the document: a syntax error there comes first
                pass
        except (yaml.MarkedYAMLError, yaml.reader.ReaderError):
            pass
        else:
            raise err from None
    del streamed, events
    return _composed(text, filename, schema, Positions(src, text, filename))


def _composed(text: str, filename: str, schema: BlockSchema, positions: Positions) -> Body:
    what = "YAML"
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
    reader = _Reader(positions)
    if root is None:
        return Body({}, [], positions.at(0, 0))
    if not isinstance(root, yaml.MappingNode):
        raise reader.error(root, f"The top level of a {what} configuration must be an object")
    return reader.body(root, schema)


class _Compose(Exception):
    """The stream holds what only the composed document can be read from (an alias, a complex
    key, a second document)."""


class _Reader(ScalarReader):
    """The composed document (one with aliases) read into bodies."""

    def __init__(self, positions: Positions) -> None:
        self.positions = positions
        self._aliases = AliasBudget()  # an alias node is the anchor's node again: its copies are counted

    def rng(self, node: yaml.Node) -> Located:
        return self.positions.at(node.start_mark.index, node.end_mark.index)

    def error(self, node: yaml.Node, summary: str) -> DiagnosticsError:
        return DiagnosticsError([Diagnostic("error", summary, range=as_range(self.rng(node)))])

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
            span = self.positions.at(key_node.start_mark.index, value_node.end_mark.index)
            attr = Attribute(key, self.expr(value_node, literal=literal), span, self.rng(key_node))
            if key in attributes:
                dupes.append((attributes[key], attr))
            else:
                attributes[key] = attr
        return Body(attributes, blocks, self.rng(node), dupes)

    def _blocks(
        self,
        block_type: str,
        type_node: yaml.Node,
        node: yaml.Node,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[Located],
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
            raise too_deep(rng)
        try:
            repeated = self._aliases.enter(node, collection=not isinstance(node, yaml.ScalarNode))
        except YamlError as exc:
            raise DiagnosticsError([Diagnostic(
                "error", "Too many aliases", detail=f"{exc}; the value here is one that was copied once too often.",
                range=as_range(rng))]) from None
        try:
            return self._expr(node, rng, literal=literal, depth=depth)
        finally:
            self._aliases.leave(repeated)

    def _expr(self, node: yaml.Node, rng: Located, *, literal: bool, depth: int) -> ast.Expr:
        if isinstance(node, yaml.ScalarNode):
            return self.scalar_expr(node, rng, literal=literal)
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


class _Streamed(ScalarReader):
    """The event stream read into bodies as it comes: each method starts at the event that opens
    what it reads and ends after the event that closes it."""

    def __init__(self, positions: Positions, events: Iterator[yaml.Event]) -> None:
        self.positions = positions
        self.events = events
        self.closed = 0  # the character offset after the mapping ``key`` last found the end of

    def next(self) -> yaml.Event:
        event = next(self.events)
        if isinstance(event, yaml.AliasEvent) or (
            isinstance(event, yaml.NodeEvent) and event.anchor is not None
        ):
            raise _Compose  # an anchor may be aliased further on: its copies must be counted
        return event

    def document(self, schema: BlockSchema) -> Body:
        self.next()  # the stream's start
        event = self.next()
        if isinstance(event, yaml.StreamEndEvent):
            return Body({}, [], self.positions.at(0, 0))
        first = self.next()  # after the document's start
        if not isinstance(first, yaml.MappingStartEvent):
            end = self.skip(first)
            raise self.error(first.start_mark.index, end, "The top level of a YAML configuration must be an object")
        body = self.body(first, schema)
        self.next()  # the document's end
        if not isinstance(self.next(), yaml.StreamEndEvent):
            raise _Compose  # a second document: refused as the composer refuses it
        return body

    def error(self, start: int, end: int, summary: str) -> DiagnosticsError:
        return DiagnosticsError([Diagnostic("error", summary, range=as_range(self.positions.at(start, end)))])

    def skip(self, event: yaml.Event) -> int:
        """Read past the node ``event`` opens; the character offset of its end."""
        depth = 0
        while True:
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            if depth == 0:
                return int(event.end_mark.index)
            event = self.next()

    def key(self) -> yaml.ScalarEvent | None:
        """The next key of a mapping, or None at its end."""
        event = self.next()
        if isinstance(event, yaml.MappingEndEvent):
            self.closed = int(event.end_mark.index)
            return None
        if not isinstance(event, yaml.ScalarEvent):
            raise _Compose  # a complex key (``? [a, b]``)
        return event

    def body(self, start: yaml.Event, schema: BlockSchema) -> Body:
        if not isinstance(start, yaml.MappingStartEvent):
            raise self.error(start.start_mark.index, self.skip(start), "A block body must be an object")
        where = self.positions
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        dupes: list[tuple[Attribute, Attribute]] = []
        while (key_event := self.key()) is not None:
            key = intern(str(key_event.value))  # each resource repeats its arguments' names: one string
            value = self.next()
            if key == "//":  # JSON syntax comments
                self.skip(value)
                continue
            key_rng = where.at(key_event.start_mark.index, key_event.end_mark.index)
            nested = schema.blocks.get(key)
            if nested is not None:
                labels, inner = nested
                self.blocks(key, key_rng, value, labels, inner, [], [], blocks)
                continue
            expr, end = self.expr(value, literal=key in schema.literal_attributes)
            attr = Attribute(key, expr, where.at(key_event.start_mark.index, end), key_rng)
            if key in attributes:
                dupes.append((attributes[key], attr))
            else:
                attributes[key] = attr
        return Body(attributes, blocks, where.at(start.start_mark.index, self.closed), dupes)

    def blocks(
        self,
        block_type: str,
        type_rng: Located,
        start: yaml.Event,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[Located],
        out: list[Block],
    ) -> None:
        if labels_left > 0:
            # The JSON syntax allows an array of such objects at any label level (python-hcl2 writes it).
            wrong = f'"{block_type}" needs an object keyed by its label'
            if isinstance(start, yaml.SequenceStartEvent):
                group = self.next()
                if isinstance(group, yaml.SequenceEndEvent):
                    raise self.error(start.start_mark.index, group.end_mark.index, wrong)
                while not isinstance(group, yaml.SequenceEndEvent):
                    if not isinstance(group, yaml.MappingStartEvent):
                        self.skip(group)
                        raise self.error(start.start_mark.index, self.skip_to_end(), wrong)
                    self.labelled(block_type, type_rng, labels_left, schema, labels, label_rngs, out)
                    group = self.next()
                return
            if not isinstance(start, yaml.MappingStartEvent):
                raise self.error(start.start_mark.index, self.skip(start), wrong)
            self.labelled(block_type, type_rng, labels_left, schema, labels, label_rngs, out)
            return
        header = label_rngs[-1] if label_rngs else type_rng
        if isinstance(start, yaml.SequenceStartEvent):
            event = self.next()
            while not isinstance(event, yaml.SequenceEndEvent):
                out.append(Block(block_type, list(labels), self.body(event, schema), header, list(label_rngs)))
                event = self.next()
            return
        out.append(Block(block_type, list(labels), self.body(start, schema), header, list(label_rngs)))

    def skip_to_end(self) -> int:
        """Read to the end of the sequence being read; the character offset of its end."""
        depth = 1
        while True:
            event = self.next()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                if depth == 0:
                    return int(event.end_mark.index)

    def labelled(
        self,
        block_type: str,
        type_rng: Located,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[Located],
        out: list[Block],
    ) -> None:
        """A mapping keyed by the next label, its start already read."""
        while (key_event := self.key()) is not None:
            label_rng = self.positions.at(key_event.start_mark.index, key_event.end_mark.index)
            self.blocks(block_type, type_rng, self.next(), labels_left - 1, schema,
                        [*labels, str(key_event.value)], [*label_rngs, label_rng], out)

    def expr(self, event: yaml.Event, *, literal: bool = False, depth: int = 1) -> tuple[ast.Expr, int]:
        """The expression of the node ``event`` opens, and the character offset of its end."""
        where = self.positions
        start = int(event.start_mark.index)
        if depth > MAX_NESTING:
            raise too_deep(where.at(start, start))
        if isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
            end = int(event.end_mark.index)
            return self.scalar_expr(node, where.at(start, end), literal=literal), end
        if isinstance(event, yaml.SequenceStartEvent):
            items: list[ast.Expr] = []
            item = self.next()
            while not isinstance(item, yaml.SequenceEndEvent):
                items.append(self.expr(item, literal=literal, depth=depth + 1)[0])
                item = self.next()
            end = int(item.end_mark.index)
            return ast.TupleCons(where.at(start, end), tuple(items)), end
        if isinstance(event, yaml.MappingStartEvent):
            pairs: list[ast.ObjectItem] = []
            while (key_event := self.key()) is not None:
                value, _ = self.expr(self.next(), literal=literal, depth=depth + 1)
                key = intern(str(key_event.value))
                if key != "//":
                    key_rng = where.at(key_event.start_mark.index, key_event.end_mark.index)
                    pairs.append(ast.ObjectItem(ast.Literal(key_rng, key), value))
            end = self.closed
            return ast.ObjectCons(where.at(start, end), tuple(pairs)), end
        raise _Compose


__all__ = ["EMPTY_SCHEMA", "parse_yaml_file"]
