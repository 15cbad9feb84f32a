"""HCL native syntax: tree-sitter's concrete syntax tree turned into bodies and expression trees.

tree-sitter-hcl parses in C, fast, and gives exact positions for every token, which is
what lets every later error say ``file:line:col``. This module walks its tree once and produces
``engine.lang.syntax`` bodies whose attribute values are ``engine.lang.ast`` expressions.

Two details of the grammar shape the code: template literal tokens omit whitespace, so literal
text is cut from the source bytes *between* interpolations; and operands of operators are flat
node sequences (a primary followed by ``get_attr``/``index``/``splat`` siblings).

The same converter parses strings from JSON/YAML files (``parse_template``) and expressions given
on the command line or in environment variables (``parse_expression``), mapping positions back
to where that text came from.

The converter is layered over four modules: ``hcl_tree`` (the parser, positions, syntax errors),
``hcl_templates``, ``hcl_expressions`` and this one (bodies, blocks and the entry points).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node, Range

from engine.lang import ast
from engine.lang.file_parts import LONG_LITERAL, PART_BYTES, scan
from engine.lang.hcl_expressions import ExpressionConverter
from engine.lang.hcl_tree import _parseable, _parser
from engine.lang.literals import decode_utf8, nfc
from engine.lang.syntax import Attribute, Block, Body
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange, SourceText
from vocab.limits import MAX_HCL_FILE_ENV, max_hcl_file_bytes
from vocab.positions import Located, as_range, packed_in

_SUB_DELIM = "__CTL_TEMPLATE_END__"


def parse_hcl_file(src: bytes, filename: str) -> Body:
    """Parse one ``.tf`` (or ``.tfvars``) file; a syntax error raises with its exact position.

    A file over ``LONG_LITERAL`` bytes is parsed in parts (``engine.lang.file_parts``), one tree
    at a time, so memory follows the file's size with a small constant however it is laid out.
    """
    check_hcl_size(src, filename)
    parts = hcl_parts(src)
    if parts is None:
        return parse_hcl_whole(src, filename)
    bodies: list[Body] = []
    problems: list[Diagnostic] = []
    for part in parts:
        try:
            bodies.append(parse_hcl_part(src, filename, part))
        except DiagnosticsError as err:
            problems += err.diagnostics()
    if problems:
        raise parts_failed(src, filename, problems)
    return join_parts(bodies, src, filename)


def parse_hcl_whole(src: bytes, filename: str) -> Body:
    """The file read as one tree, as the grammar reads it, without leaving any literal out."""
    decode_utf8(src, filename)
    tree = _parser().parse(_parseable(src))
    conv = _Converter(src, filename)
    root = tree.root_node
    if root.has_error:
        conv.raise_syntax_error(root)
    body = next((c for c in root.children if c.type == "body"), None)
    if body is None:
        return Body({}, [], conv.rng(root))
    return conv.body(body)


@dataclass(frozen=True, slots=True)
class Part:
    """Bytes ``start`` to ``end`` of a file, as the parser reads them: ``ranges`` are the included
    ranges (start byte, end byte, start row, start column, end row, end column; columns in bytes),
    which leave out the inside of its long plain literals."""

    start: int
    end: int
    ranges: tuple[tuple[int, int, int, int, int, int], ...]

    def to_json(self) -> list[Any]:
        return [self.start, self.end, [list(r) for r in self.ranges]]

    @classmethod
    def from_json(cls, data: list[Any]) -> Part:
        start, end, ranges = data
        return cls(int(start), int(end), tuple((a, b, c, d, e, f) for a, b, c, d, e, f in ranges))


def hcl_parts(src: bytes, part_bytes: int = PART_BYTES, long_literal: int = LONG_LITERAL) -> list[Part] | None:
    """The parts to parse ``src`` in (about ``part_bytes`` each, without the inside of literals
    over ``long_literal`` bytes), or None for a file small enough to parse whole as it is."""
    if len(src) <= min(part_bytes, long_literal):
        return None
    found = scan(src, part_bytes, long_literal)
    if len(found.cuts) == 2 and not found.skipped:
        return None
    points: dict[int, tuple[int, int]] = {}
    row, counted = 0, 0
    for byte in sorted({*found.cuts, *(b for span in found.skipped for b in span)}):
        row += src.count(b"\n", counted, byte)
        counted = byte
        points[byte] = (row, byte - (src.rfind(b"\n", 0, byte) + 1))
    parts: list[Part] = []
    skipped = iter(found.skipped)
    gap = next(skipped, None)
    for start, end in zip(found.cuts, found.cuts[1:], strict=False):
        ranges = []
        at = start
        while gap is not None and gap[0] < end:
            ranges.append((at, gap[0], *points[at], *points[gap[0]]))
            at = gap[1]
            gap = next(skipped, None)
        ranges.append((at, end, *points[at], *points[end]))
        parts.append(Part(start, end, tuple(ranges)))
    return parts


def parse_hcl_part(src: bytes, filename: str, part: Part) -> Body:
    """Parse the top-level items in one part of a file; positions are the whole file's."""
    try:
        src[part.start : part.end].decode("utf-8")
    except UnicodeDecodeError:
        decode_utf8(src, filename)  # the error, at its place in the file
        raise
    parser = _parser()
    parser.included_ranges = [Range(r[2:4], r[4:6], r[0], r[1]) for r in part.ranges]
    try:
        tree = parser.parse(_parseable_file(src))
    finally:
        parser.included_ranges = _WHOLE
    conv = _Converter(src, filename)
    root = tree.root_node
    if root.has_error:
        conv.raise_syntax_error(root)
    body = next((c for c in root.children if c.type == "body"), None)
    if body is None:
        return Body({}, [], packed_in(SourceText(filename, src), part.start, part.start))
    return conv.body(body)


def join_parts(bodies: list[Body], src: bytes, filename: str) -> Body:
    """The parts' bodies as the file's one body, in file order; an argument defined in two parts is
    a duplicate as it is within one."""
    attributes: dict[str, Attribute] = {}
    blocks: list[Block] = []
    dupes: list[tuple[Attribute, Attribute]] = []
    for body in bodies:
        dupes += body.duplicates
        blocks += body.blocks
        for name, attr in body.attributes.items():
            if name in attributes:
                dupes.append((attributes[name], attr))
            else:
                attributes[name] = attr
    spans = [body.rng.byte_span() for body in bodies if body.attributes or body.blocks]
    first, last = (spans[0][0], spans[-1][1]) if spans else (0, 0)  # a part of comments has no items
    return Body(attributes, blocks, packed_in(SourceText(filename, src), first, last), dupes)


def parts_failed(src: bytes, filename: str, problems: list[Diagnostic]) -> DiagnosticsError:
    """The error of a file whose parts did not all parse. A file the parser could always read whole
    (up to ``WHOLE_FILE_BYTES``) is read whole again, so its errors are exactly the grammar's even
    where a part was cut wrongly; a larger one reports each part's first error."""
    if len(src) <= WHOLE_FILE_BYTES:
        try:
            parse_hcl_whole(src, filename)
        except DiagnosticsError as err:
            return err
    return DiagnosticsError(problems)


# Files up to this size are read whole when one of their parts has an error: the largest file
# ctl used to read whole (a few hundred megabytes of tree at most).
WHOLE_FILE_BYTES = 4 * 1024 * 1024
_WHOLE = [Range((0, 0), (0xFFFFFFFF, 0xFFFFFFFF), 0, 0xFFFFFFFF)]
_last_parseable: tuple[bytes, bytes] | None = None


def _parseable_file(src: bytes) -> bytes:
    """``_parseable(src)``, once per file however many of its parts are parsed in a row."""
    global _last_parseable
    known = _last_parseable
    if known is not None and known[0] is src:
        return known[1]
    parseable = _parseable(src)
    _last_parseable = (src, parseable)
    return parseable


def check_hcl_size(src: bytes, filename: str) -> None:
    """The opt-in ceiling of ``CTL_MAX_HCL_FILE_MB``, when one is set."""
    limit = max_hcl_file_bytes()
    if limit and len(src) > limit:
        start = Pos(1, 1, 0)
        raise DiagnosticsError([Diagnostic(
            "error", f"File too large: {len(src) / 1048576:.1f} MiB, over the {limit // 1048576} MiB limit "
                     f"{MAX_HCL_FILE_ENV} sets for HCL files",
            detail="The limit is a guard for untrusted input; without it a file is read whatever its size.",
            hint=f"Unset {MAX_HCL_FILE_ENV} or raise it (in MiB) if the file must be read.",
            range=SourceRange(filename, start, start))])


def parse_expression(text: str, filename: str, line: int = 1, column: int = 1) -> ast.Expr:
    """Parse an expression that stands alone (``-var`` values, JSON ``depends_on`` entries, types)."""
    prefix = "__x = "
    src = (prefix + text + "\n").encode()
    conv = _Converter(src, filename, file_line=line, file_col=column, col_shift=len(prefix))
    conv.content = (len(prefix), text)
    return conv.single_attribute_expr(src)


def parse_template(
    text: str,
    filename: str,
    line: int = 1,
    column: int = 1,
    indent: int = 0,
    byte_of: Callable[[int, int], int] | None = None,
    host: SourceText | None = None,
) -> ast.Expr:
    """Parse a string from JSON/YAML as a template (``"logs-${var.env}"``).

    Strings without ``${``/``%{`` skip the parser entirely: that is most strings, and it keeps large
    JSON configurations fast. Others are parsed as a heredoc, which needs no escaping, so each line
    of the string keeps its columns. ``indent`` is how far the second and later lines of the text are
    indented in the file (a YAML block scalar). ``byte_of(line, column)`` gives the byte offset of a
    position in that file, so ranges carry real offsets there too; given the file's ``host`` text
    as well, each range is kept as a packed offset into it (``vocab.positions``), as a ``.tf``
    file's are.
    """
    if "${" not in text and "%{" not in text:
        return ast.Literal(_rng_at(filename, line, column, byte_of, host), nfc(text))
    if _SUB_DELIM in text:
        text = text.replace(_SUB_DELIM, "")
    src = f"__x = <<{_SUB_DELIM}\n{text}\n{_SUB_DELIM}\n".encode()
    conv = _Converter(
        src, filename, file_line=line, file_col=column, base_row=1, col_shift=0, line_indent=indent, byte_of=byte_of,
        host=host,
    )
    conv.content = (src.index(b"\n") + 1, text)
    expr = conv.single_attribute_expr(src)
    return _drop_final_newline(expr, _rng_at(filename, line, column, byte_of, host))


def _rng_at(filename: str, line: int, column: int, byte_of: Callable[[int, int], int] | None = None,
            host: SourceText | None = None) -> Located:
    if byte_of is not None and host is not None:
        byte = byte_of(line, column)
        return packed_in(host, byte, byte)
    p = Pos(line, column, byte_of(line, column) if byte_of else 0)
    return SourceRange(filename, p, p)


def _drop_final_newline(expr: ast.Expr, rng: Located) -> ast.Expr:
    """A heredoc always ends in a newline that the original JSON/YAML string did not have."""
    if isinstance(expr, ast.Literal) and isinstance(expr.value, str) and expr.value.endswith("\n"):
        return ast.Literal(rng, expr.value[:-1])  # only escapes (``$${x}``): folded to one string
    if not isinstance(expr, ast.Template) or not expr.parts:
        return expr
    parts = list(expr.parts)
    last = parts[-1]
    if isinstance(last, str) and last.endswith("\n"):
        last = last[:-1]
        if last:
            parts[-1] = last
        else:
            parts.pop()
    if len(parts) == 1 and isinstance(parts[0], ast.Expr):
        return ast.TemplateWrap(rng, parts[0])
    if len(parts) == 1 and isinstance(parts[0], str):
        return ast.Literal(rng, parts[0])
    return ast.Template(rng, tuple(parts))


class _Converter(ExpressionConverter):
    """Turns one parsed source into syntax-tree objects, mapping positions to the original file."""

    def single_attribute_expr(self, src: bytes) -> ast.Expr:
        tree = _parser().parse(_parseable(src))
        root = tree.root_node
        if root.has_error:
            self.raise_syntax_error(root)
        body = next((c for c in root.children if c.type == "body"), None)
        attr = next((c for c in body.children if c.type == "attribute"), None) if body else None
        if attr is None:
            self.raise_syntax_error(root)
        assert attr is not None
        expr_node = self._child(attr, "expression")
        return self.expr(expr_node)

    # ---- bodies ----------------------------------------------------------------------------

    def body(self, node: Node) -> Body:
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        dupes: list[tuple[Attribute, Attribute]] = []
        previous: Node | None = None
        for child in node.children:
            kind = child.type
            if kind in ("attribute", "block"):
                if previous is not None and self.same_line(previous, child):
                    raise self._missing_newline(previous, child)  # the grammar accepts ``a = 1 b = 2``
                previous = child
            if kind == "attribute":
                attr = self._attribute(child)
                if attr.name in attributes:
                    dupes.append((attributes[attr.name], attr))
                else:
                    attributes[attr.name] = attr
            elif kind == "block":
                blocks.append(self._block(child))
        return Body(attributes, blocks, self.rng(node), dupes)

    def _missing_newline(self, previous: Node, node: Node) -> DiagnosticsError:
        what = "argument" if previous.type == "attribute" else "block definition"
        return DiagnosticsError([Diagnostic(
            "error", f"Missing newline after {what}",
            detail=f"An {what.split()[0]} definition must end with a newline.", range=as_range(self.rng(node)),
        )])

    def _attribute(self, node: Node) -> Attribute:
        ident = node.children[0]
        expr_node = self._child(node, "expression")
        return Attribute(self.text(ident), self.expr(expr_node), self.rng(node), self.rng(ident))

    def _block(self, node: Node) -> Block:
        children = node.children
        type_node = children[0]
        labels: list[str] = []
        label_rngs: list[Located] = []
        body_node = None
        last_header = type_node
        for child in children[1:]:
            kind = child.type
            if kind == "string_lit":
                labels.append(self._string_lit_text(child))
                label_rngs.append(self.rng(child))
                last_header = child
            elif kind == "identifier":
                labels.append(self.text(child))
                label_rngs.append(self.rng(child))
                last_header = child
            elif kind == "body":
                body_node = child
        header = self._span(type_node, last_header)
        if body_node is not None:
            body = self.body(body_node)
        else:
            body = Body({}, [], self.rng(node))
        return Block(self.text(type_node), labels, body, header, label_rngs)
