"""``*.tf.json`` files: Terraform's JSON configuration syntax, read in one pass into bodies.

The file is read straight into the syntax model, with no document in between: no parsed JSON
value, no composed node tree with two position marks per node. Each node's range is the packed
``Located`` a parsed ``.tf`` file's nodes keep (``vocab.positions``), byte offsets into the file's
shared ``SourceText``, so a large generated ``main.tf.json`` costs about what the same resources
cost written as HCL (``bench/README.md``), and its tree goes through the parse cache as an HCL
file's does.

The text is scanned as Latin-1, so a character's index is its byte's offset and no table maps
one to the other; a string holding other bytes is decoded again as UTF-8 on its own. Strings
are read by ``json``'s own C scanner. What the reader refuses as malformed is reported with the
message and position ``json`` gives for it, so errors read as JSON errors whichever reader saw
them first, and a syntax error anywhere is reported before a structural one (a block that is not
an object) found earlier in the file.

Terraform's JSON syntax does not mark which keys are nested blocks; the caller passes a
``BlockSchema`` saying so, and strings are templates (``"logs-${var.env}"``) unless the schema
marks the attribute literal (a variable's ``default``).
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from sys import intern

from engine.lang import ast
from engine.lang.hcl import parse_template
from engine.lang.literals import LiteralError, checked_float, decode_utf8, nfc, number
from engine.lang.syntax import Attribute, Block, BlockSchema, Body
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange, SourceText
from vocab.limits import MAX_NESTING
from vocab.positions import Located, as_range, packed_in
from vocab.values import normalize_number

_BOM = b"\xef\xbb\xbf"
_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")
# What YAML 1.1 reads as a float (the reader before this one read JSON through YAML, and a number
# keeps the value it had then): a decimal point, and a signed exponent if any. Other numbers with
# a fraction or exponent are read exactly (``number``).
_FLOAT_11 = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?")
_NOT_ASCII = re.compile(r"[\x80-\xff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# ``json``'s string scanner (its C one): the text of the string whose opening quote is before the
# offset given, and the offset after its closing quote; strict, as ``json.loads`` is.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = getattr(json.decoder, "scanstring")  # noqa: B009


class _Malformed(Exception):
    """The text is not JSON at ``at``: reported with ``json``'s own message (``parse_json_file``)."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


def parse_json_file(src: bytes, filename: str, schema: BlockSchema) -> Body:
    """Parse a ``*.tf.json`` file into a body; a JSON error names its line and column."""
    if not src.isascii():
        decode_utf8(src, filename)  # invalid UTF-8: the error at its place
    reader = _Reader(src, filename)
    try:
        return reader.file(schema)
    except _Malformed as exc:
        raise _syntax_error(src, filename, exc.at) from None
    except DiagnosticsError as err:
        # A structural error found first; a syntax error further on is the one to report (the file
        # is not JSON at all), as it was when the whole file was checked before it was read.
        try:
            _check_syntax(src)
        except json.JSONDecodeError as exc:
            raise _decode_error(filename, exc) from None
        except RecursionError:
            pass  # nested past what ``json`` follows: the reader's depth error says where
        raise err from None


def _check_syntax(src: bytes) -> None:
    """Raise ``json``'s error for malformed text (numbers and constants are judged by the reader)."""
    json.loads(src.decode("utf-8-sig"), parse_int=_ignore, parse_float=_ignore, parse_constant=_ignore)


def _ignore(_text: str) -> None:
    return None


def _syntax_error(src: bytes, filename: str, at: int) -> DiagnosticsError:
    try:
        _check_syntax(src)
    except json.JSONDecodeError as exc:
        return _decode_error(filename, exc)
    text = SourceText(filename, src)  # not expected: ``json`` finds every error the reader does
    return DiagnosticsError([Diagnostic("error", "Invalid JSON: unexpected text", range=as_range(packed_in(text, at, at)))])


def _decode_error(filename: str, exc: json.JSONDecodeError) -> DiagnosticsError:
    pos = Pos(exc.lineno, exc.colno, exc.pos)
    return DiagnosticsError([Diagnostic("error", f"Invalid JSON: {exc.msg}", range=SourceRange(filename, pos, pos))])


class _Reader:
    """One file's text and where the reader is in it; every method takes and returns an offset."""

    def __init__(self, src: bytes, filename: str) -> None:
        self.src = src
        self.filename = filename
        self.source = SourceText(filename, src)
        self.text = src.decode("latin-1")  # one character per byte: an index is a byte offset
        self.ascii = src.isascii()
        self._line = (1, 0)  # a line number and the offset its newlines are counted up to

    # ---- positions and errors --------------------------------------------------------------

    def at(self, start: int, end: int) -> Located:
        return packed_in(self.source, start, end)

    def error(self, start: int, end: int, summary: str, detail: str = "") -> DiagnosticsError:
        return DiagnosticsError([Diagnostic("error", summary, detail=detail, range=as_range(self.at(start, end)))])

    def space(self, pos: int) -> int:
        match = _SPACE.match(self.text, pos)  # always a match, perhaps an empty one
        return match.end() if match else pos

    def expect(self, pos: int, char: str) -> int:
        pos = self.space(pos)
        if self.text.startswith(char, pos):
            return pos + 1
        raise _Malformed(pos)

    # ---- structure ---------------------------------------------------------------------------

    def file(self, schema: BlockSchema) -> Body:
        pos = self.space(len(_BOM) if self.src.startswith(_BOM) else 0)
        if not self.text.startswith("{", pos):
            _, end = self.value(pos, 1, literal=True)  # malformed text raises here first
            raise self.error(pos, end, "The top level of a JSON configuration must be an object")
        body, end = self.body(pos, schema)
        if self.space(end) != len(self.text):
            raise _Malformed(self.space(end))
        return body

    def key(self, pos: int) -> tuple[str, int, int, int]:
        """The key at ``pos`` (after the comma or brace before it): its text, start and end, and
        where its value starts."""
        start = self.space(pos)
        if not self.text.startswith('"', start):
            raise _Malformed(start)
        key, end = self.string(start)
        # Every resource of a generated file repeats its arguments' names: one string for each name.
        return intern(key), start, end, self.space(self.expect(end, ":"))

    def after_member(self, pos: int, close: str) -> tuple[bool, int]:
        """After a member or element: (whether another follows, the offset after the comma or bracket)."""
        pos = self.space(pos)
        char = self.text[pos : pos + 1]
        if char == ",":
            return True, pos + 1
        if char == close:
            return False, pos + 1
        raise _Malformed(pos)

    def opened(self, pos: int, close: str) -> tuple[bool, int]:
        """Just inside a collection: (whether it has members, ``pos`` or, when it is empty, the
        offset after its ``close``)."""
        at = self.space(pos)
        return (False, at + 1) if self.text.startswith(close, at) else (True, pos)

    def body(self, start: int, schema: BlockSchema) -> tuple[Body, int]:
        if not self.text.startswith("{", start):
            _, end = self.value(start, 1, literal=True)
            raise self.error(start, end, "A block body must be an object")
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        dupes: list[tuple[Attribute, Attribute]] = []
        more, pos = self.opened(start + 1, "}")
        while more:
            key, key_start, key_end, pos = self.key(pos)
            nested = schema.blocks.get(key) if key != "//" else None
            if key == "//":  # JSON syntax comments
                _, pos = self.value(pos, 1, literal=True)
            elif nested is not None:
                labels, inner = nested
                pos = self.blocks(key, self.at(key_start, key_end), pos, labels, inner, [], [], blocks)
            else:
                expr, pos = self.value(pos, 1, literal=key in schema.literal_attributes)
                attr = Attribute(key, expr, self.at(key_start, pos), self.at(key_start, key_end))
                if key in attributes:
                    dupes.append((attributes[key], attr))
                else:
                    attributes[key] = attr
            more, pos = self.after_member(pos, "}")
        return Body(attributes, blocks, self.at(start, pos), dupes), pos

    def blocks(
        self,
        block_type: str,
        type_rng: Located,
        start: int,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[Located],
        out: list[Block],
    ) -> int:
        """Read the blocks written at ``start`` into ``out``; the offset after them."""
        char = self.text[start : start + 1]
        if labels_left > 0:
            # The JSON syntax allows an array of such objects at any label level (python-hcl2 writes it).
            if char == "[":
                more, pos = self.opened(start + 1, "]")
                if not more:
                    raise self.error(start, pos, f'"{block_type}" needs an object keyed by its label')
                while more:
                    pos = self.space(pos)
                    if not self.text.startswith("{", pos):
                        _, after = self.value(pos, 1, literal=True)
                        raise self.error(start, after, f'"{block_type}" needs an object keyed by its label')
                    pos = self.labelled(block_type, type_rng, pos, labels_left, schema, labels, label_rngs, out)
                    more, pos = self.after_member(pos, "]")
                return pos
            if char != "{":
                _, end = self.value(start, 1, literal=True)
                raise self.error(start, end, f'"{block_type}" needs an object keyed by its label')
            return self.labelled(block_type, type_rng, start, labels_left, schema, labels, label_rngs, out)
        header = label_rngs[-1] if label_rngs else type_rng
        if char == "[":
            more, pos = self.opened(start + 1, "]")
            while more:
                body, pos = self.body(self.space(pos), schema)
                out.append(Block(block_type, list(labels), body, header, list(label_rngs)))
                more, pos = self.after_member(pos, "]")
            return pos
        body, end = self.body(start, schema)
        out.append(Block(block_type, list(labels), body, header, list(label_rngs)))
        return end

    def labelled(
        self,
        block_type: str,
        type_rng: Located,
        start: int,
        labels_left: int,
        schema: BlockSchema,
        labels: list[str],
        label_rngs: list[Located],
        out: list[Block],
    ) -> int:
        """An object keyed by the next label, at ``start``; the offset after it."""
        more, pos = self.opened(start + 1, "}")
        while more:
            key, key_start, key_end, pos = self.key(pos)
            pos = self.blocks(block_type, type_rng, pos, labels_left - 1, schema,
                              [*labels, key], [*label_rngs, self.at(key_start, key_end)], out)
            more, pos = self.after_member(pos, "}")
        return pos

    # ---- values ------------------------------------------------------------------------------

    def value(self, start: int, depth: int, *, literal: bool) -> tuple[ast.Expr, int]:
        """The expression written at ``start`` (no space before it), and the offset after it."""
        if depth > MAX_NESTING:
            raise self.error(start, start, "Value nested too deeply",
                             f"Lists and objects may be nested at most {MAX_NESTING} levels deep (MAX_NESTING); "
                             "this one goes deeper here.")
        char = self.text[start : start + 1]
        if char == '"':
            text, end = self.string(start)
            if literal:
                return ast.Literal(self.at(start, end), text), end
            if "${" in text or "%{" in text:
                return self.template(text, start + 1), end
            return ast.Literal(self.at(start + 1, start + 1), nfc(text)), end
        if char == "{":
            return self.object(start, depth, literal)
        if char == "[":
            items: list[ast.Expr] = []
            more, pos = self.opened(start + 1, "]")
            while more:
                item, pos = self.value(self.space(pos), depth + 1, literal=literal)
                items.append(item)
                more, pos = self.after_member(pos, "]")
            return ast.TupleCons(self.at(start, pos), tuple(items)), pos
        match = _SCALAR.match(self.text, start)
        if match is None:
            raise _Malformed(start)
        end = match.end()
        rng = self.at(start, end)
        try:
            return ast.Literal(rng, _scalar(match.group())), end
        except LiteralError as exc:
            raise DiagnosticsError([Diagnostic("error", "Invalid number", detail=exc.message, range=as_range(rng))]) from None

    def object(self, start: int, depth: int, literal: bool) -> tuple[ast.Expr, int]:
        items: list[ast.ObjectItem] = []
        more, pos = self.opened(start + 1, "}")
        while more:
            key, key_start, key_end, pos = self.key(pos)
            value, pos = self.value(pos, depth + 1, literal=literal)
            if key != "//":
                items.append(ast.ObjectItem(ast.Literal(self.at(key_start, key_end), key), value))
            more, pos = self.after_member(pos, "}")
        return ast.ObjectCons(self.at(start, pos), tuple(items)), pos

    def string(self, start: int) -> tuple[str, int]:
        """The string whose opening quote is at ``start``, and the offset after its closing quote."""
        try:
            text, end = _scanstring(self.text, start + 1, True)
        except ValueError:
            raise _Malformed(start) from None
        if not self.ascii and _NOT_ASCII.search(self.text, start, end):
            text = _scanstring(self.src[start + 1 : end].decode("utf-8"), 0, True)[0]
        if _SURROGATE.search(text):  # a lone half of a pair (``\ud800``): no character, and no UTF-8
            escape = _SURROGATE_ESCAPE.search(self.text, start, end)
            at = escape.start() + 2 if escape else start
            raise self.error(at, at, "Invalid JSON: found invalid Unicode character escape code",
                             "A \\u escape names half of a UTF-16 surrogate pair without the other half; "
                             "write the character itself, or both halves.")
        return text, end

    def template(self, text: str, content: int) -> ast.Expr:
        """A string with interpolations or directives, whose text starts at byte ``content``: parsed
        as a template, its positions the file's (a JSON string never spans lines)."""
        line, column = self.line_column(content)

        def byte_of(at_line: int, at_column: int) -> int:
            return content + (at_column - column) if at_line == line else content

        return parse_template(text, self.filename, line, column, byte_of=byte_of, host=self.source)


    def line_column(self, pos: int) -> tuple[int, int]:
        """The line and column of byte ``pos``, counted on from the last one asked for (the reader
        only goes forward), so no table of line starts is kept for a file's templates."""
        line, counted = self._line
        if pos < counted:
            line, counted = 1, 0
        line += self.text.count("\n", counted, pos)
        self._line = (line, pos)
        first = self.text.rfind("\n", 0, pos) + 1
        if self.ascii:
            return line, pos - first + 1
        return line, len(self.src[first:pos].decode("utf-8", "replace")) + 1


def _scalar(raw: str) -> object:
    """A number or constant as written: true, false, null, or a number ctl can store."""
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw == "null":
        return None
    if raw in ("NaN", "Infinity", "-Infinity"):
        raise LiteralError(f"{raw} is not a JSON number ctl can store; write a number or a string.")
    if _FLOAT_11.fullmatch(raw):
        return normalize_number(checked_float(float(raw)))
    return number(raw)


__all__ = ["parse_json_file"]
