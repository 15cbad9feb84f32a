"""HCL native syntax: tree-sitter's concrete syntax tree turned into bodies and expression trees.

tree-sitter-hcl parses megabytes per second and gives exact positions for every token, which is
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

from tree_sitter import Node

from engine.lang import ast
from engine.lang.hcl_expressions import ExpressionConverter
from engine.lang.hcl_tree import _parseable, _parser
from engine.lang.literals import decode_utf8, nfc
from engine.lang.syntax import Attribute, Block, Body
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange
from vocab.limits import MAX_HCL_FILE_ENV, max_hcl_file_bytes
from vocab.positions import Located, as_range

_SUB_DELIM = "__CTL_TEMPLATE_END__"


def parse_hcl_file(src: bytes, filename: str) -> Body:
    """Parse one ``.tf`` (or ``.tfvars``) file; a syntax error raises with its exact position."""
    _check_size(src, filename)
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


def _check_size(src: bytes, filename: str) -> None:
    limit = max_hcl_file_bytes()
    if len(src) > limit:
        start = Pos(1, 1, 0)
        raise DiagnosticsError([Diagnostic(
            "error", f"File too large: {len(src) / 1048576:.1f} MiB, over the {limit // 1048576} MiB limit for HCL files",
            detail="Large data belongs in a file of its own, read with file() or templatefile(); a configuration "
                   "file may also be split.",
            hint=f"Raise the limit with {MAX_HCL_FILE_ENV} (in MiB) if the file must stay as it is.",
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
) -> ast.Expr:
    """Parse a string from JSON/YAML as a template (``"logs-${var.env}"``).

    Strings without ``${``/``%{`` skip the parser entirely: that is most strings, and it keeps large
    JSON configurations fast. Others are parsed as a heredoc, which needs no escaping, so each line
    of the string keeps its columns. ``indent`` is how far the second and later lines of the text are
    indented in the file (a YAML block scalar). ``byte_of(line, column)`` gives the byte offset of a
    position in that file, so ranges carry real offsets there too.
    """
    if "${" not in text and "%{" not in text:
        return ast.Literal(_rng_at(filename, line, column, byte_of), nfc(text))
    if _SUB_DELIM in text:
        text = text.replace(_SUB_DELIM, "")
    src = f"__x = <<{_SUB_DELIM}\n{text}\n{_SUB_DELIM}\n".encode()
    conv = _Converter(
        src, filename, file_line=line, file_col=column, base_row=1, col_shift=0, line_indent=indent, byte_of=byte_of
    )
    conv.content = (src.index(b"\n") + 1, text)
    expr = conv.single_attribute_expr(src)
    return _drop_final_newline(expr, _rng_at(filename, line, column, byte_of))


def _rng_at(filename: str, line: int, column: int, byte_of: Callable[[int, int], int] | None = None) -> SourceRange:
    p = Pos(line, column, byte_of(line, column) if byte_of else 0)
    return SourceRange(filename, p, p)


def _drop_final_newline(expr: ast.Expr, rng: SourceRange) -> ast.Expr:
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
