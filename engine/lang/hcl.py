"""HCL native syntax: tree-sitter's concrete syntax tree turned into bodies and expression trees.

tree-sitter-hcl parses megabytes per second and gives exact positions for every token, which is
what lets every later error say ``file:line:col``. This module walks its tree once and produces
``engine.config.syntax`` bodies whose attribute values are ``engine.lang.ast`` expressions.

Two details of the grammar shape the code: template literal tokens omit whitespace, so literal
text is cut from the source bytes *between* interpolations; and operands of operators are flat
node sequences (a primary followed by ``get_attr``/``index``/``splat`` siblings).

The same converter parses strings from JSON/YAML files (``parse_template``) and expressions given
on the command line or in environment variables (``parse_expression``), mapping positions back
to where that text came from.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import tree_sitter_hcl
from tree_sitter import Language, Node, Parser

from engine.config.syntax import Attribute, Block, Body
from engine.errors import Diagnostic, DiagnosticsError, Pos, SourceRange
from engine.lang import ast
from engine.lang.literals import LiteralError, code_point, decode_utf8, nfc, number
from engine.limits import MAX_NESTING

_LANGUAGE = Language(tree_sitter_hcl.language())
_local = threading.local()

_BINARY_OPS = frozenset({"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"})
_SUB_DELIM = "__CTL_TEMPLATE_END__"
_NESTING_NODES = frozenset({"expression", "operation"})  # one level of nesting each


# HCL reads ``1e3`` as one number; the grammar only knows exponents after a fraction (``1.0e3``).
_EXPONENT_WITHOUT_FRACTION = re.compile(rb"(?<![\w.])[0-9]+[eE][-+]?[0-9]+(?![\w.])")


def _parseable(src: bytes) -> bytes:
    """``src`` with every ``1e3``-style literal spelled as digits of the same length, for the grammar.

    The tree is built from these bytes, but every token's text is read from the original ``src``:
    the literal keeps its value and every position stays where it was. Inside strings, comments
    and names the substitution is one run of plain characters for another, so no structure changes.
    """
    if b"e" not in src and b"E" not in src:
        return src
    return _EXPONENT_WITHOUT_FRACTION.sub(lambda m: b"1" * len(m.group()), src)


def _parser() -> Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = Parser(_LANGUAGE)
    return parser


def parse_hcl_file(src: bytes, filename: str) -> Body:
    """Parse one ``.tf`` (or ``.tfvars``) file; a syntax error raises with its exact position."""
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


class _Converter:
    """Turns one parsed source into syntax-tree objects, mapping positions to the original file."""

    def __init__(
        self,
        src: bytes,
        filename: str,
        *,
        file_line: int = 1,
        file_col: int = 1,
        base_row: int = 0,
        col_shift: int = 0,
        line_indent: int = 0,
        byte_of: Callable[[int, int], int] | None = None,
    ) -> None:
        self.src = src
        self.filename = filename
        self.file_line = file_line
        self.file_col = file_col
        self.base_row = base_row
        self.col_shift = col_shift
        self.line_indent = line_indent
        self.depth = 0  # expressions being converted, one inside the other (see ``expr``)
        self.byte_of = byte_of
        self._ascii = src.isascii()
        # For text parsed inside a wrapper (parse_expression/parse_template): where the user's
        # text starts in ``src``, and the text itself.
        self.content: tuple[int, str] | None = None
        self._expr_handlers = {
            "literal_value": self._literal_value,
            "collection_value": self._collection_value,
            "template_expr": self._template_expr,
            "function_call": self._function_call,
            "for_expr": self._for_expr,
            "operation": self._operation,
            "conditional": self._conditional,
            "expression": self.expr,
            "string_lit": self._string_lit,
            "tuple": self._tuple,
            "object": self._object,
            "quoted_template": self._quoted_template,
            "heredoc_template": self._heredoc_template,
            "binary_operation": self._binary,
            "unary_operation": self._unary,
        }

    # ---- positions -------------------------------------------------------------------------

    def _pos(self, point: Any, byte: int) -> Pos:
        return Pos(*self._point(point, byte))

    def _point(self, point: Any, byte: int) -> tuple[int, int, int]:
        """(line, column, byte) in the original file: the hot path of parsing, so plain ints."""
        row, col = point
        if not self._ascii and col:
            # tree-sitter counts columns in bytes; a column is counted in characters.
            col = len(self.src[byte - col : byte].decode("utf-8", "replace"))
        if row == self.base_row:
            line, col = self.file_line, self.file_col + col - self.col_shift
        else:
            line, col = self.file_line + row - self.base_row, col + 1 + self.line_indent
        if self.byte_of is not None:
            byte = self.byte_of(line, col)
        return line, col, byte

    def rng(self, node: Node) -> SourceRange:
        return SourceRange.of(
            self.filename,
            *self._point(node.start_point, node.start_byte),
            *self._point(node.end_point, node.end_byte),
        )

    def _unescape_at(self, start: int, end: int, *, quoted: bool) -> str:
        """The string between two byte offsets with its escapes resolved; a bad escape is an error there."""
        text = self.src[start:end].decode("utf-8", "replace")
        try:
            return nfc(_unescape(text, quoted=quoted))
        except LiteralError as exc:
            byte = start + len(text[: exc.offset].encode())
            row = self.src.count(b"\n", 0, byte)
            col = byte - (self.src.rfind(b"\n", 0, byte) + 1)
            pos = self._pos((row, col), byte)
            raise DiagnosticsError([Diagnostic("error", "Invalid escape sequence", detail=exc.message,
                                               range=SourceRange(self.filename, pos, pos))]) from None

    def _child(self, node: Node, kind: str) -> Node:
        """The first child of ``kind``; a tree without it (an empty ``${}``) is the user's syntax error."""
        return self._first_of(node.children, kind, node)

    def _first_of(self, nodes: list[Node], kind: str, parent: Node | None = None) -> Node:
        for c in nodes:
            if c.type == kind:
                return c
        raise self.incomplete(parent if parent is not None else nodes[0])

    def incomplete(self, node: Node) -> DiagnosticsError:
        """Something the grammar let through is missing a part (``"${}"``, ``(  )``): a positioned error."""
        text = self.src[node.start_byte:node.end_byte].decode("utf-8", "replace").split("\n")[0][:60]
        return DiagnosticsError([Diagnostic(
            "error", "Invalid expression",
            detail=f'"{text}" is missing an expression; write one inside it or remove it.',
            range=self.rng(node),
        )])

    def _span(self, first: Node, last: Node) -> SourceRange:
        return SourceRange.of(
            self.filename,
            *self._point(first.start_point, first.start_byte),
            *self._point(last.end_point, last.end_byte),
        )

    def text(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # ---- errors ----------------------------------------------------------------------------

    def raise_syntax_error(self, root: Node) -> None:
        bad = _first_error(root)
        node = bad or root
        if bad is not None and bad.type == "ERROR":
            # An ERROR node holds what parsed before the problem, then the token that did not fit:
            # point at that token when it is the last thing in it (``x = )``), not at the start.
            sized = [c for c in bad.children if c.end_byte > c.start_byte]
            if sized and not sized[-1].is_named and len(sized) > 1:
                node = sized[-1]
        if self.content is not None and node.start_byte < self.content[0]:
            # The parser gave up on the whole wrapped text: point at its start, never at the wrapper.
            text = self.content[1]
            start = Pos(self.file_line, self.file_col, 0)
            raise DiagnosticsError(
                [
                    Diagnostic(
                        "error",
                        "Invalid syntax",
                        detail=f'"{text[:60]}" is not a valid expression or template; check for an unclosed '
                               "${, %{, bracket, brace or quote.",
                        range=SourceRange(self.filename, start, start),
                        snippet=text.split("\n")[0],
                    )
                ]
            )
        if self.content is not None and node.start_byte >= self.content[0] + len(self.content[1].encode()):
            # Past the end of the wrapped text (something is missing at its end): point at its end.
            lines = self.content[1].split("\n")
            col = self.file_col + len(lines[0]) if len(lines) == 1 else len(lines[-1]) + 1
            end = Pos(self.file_line + len(lines) - 1, col, 0)
            raise DiagnosticsError(
                [
                    Diagnostic(
                        "error",
                        f'Invalid syntax: missing "{node.type}"' if node.is_missing else "Invalid syntax",
                        detail="The text ends before the expression is complete.",
                        range=SourceRange(self.filename, end, end),
                        snippet=lines[-1],
                    )
                ]
            )
        line_no = node.start_point[0]
        src_lines = self.src.split(b"\n")
        snippet = src_lines[line_no].decode("utf-8", "replace") if line_no < len(src_lines) else ""
        if bad is not None and bad.is_missing:
            summary = f'Invalid syntax: missing "{bad.type}"'
        else:
            token = self.text(node).strip().split("\n")[0][:40]
            summary = f'Invalid syntax: unexpected "{token}"' if token else "Invalid syntax"
        rng = self.rng(node)
        raise DiagnosticsError(
            [
                Diagnostic(
                    "error",
                    summary,
                    detail="This is not valid HCL; check for unbalanced braces, brackets or quotes.",
                    range=rng,
                    snippet=snippet,
                )
            ]
        )

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
                if previous is not None and previous.end_point.row == child.start_point.row:
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
            detail=f"An {what.split()[0]} definition must end with a newline.", range=self.rng(node),
        )])

    def _attribute(self, node: Node) -> Attribute:
        ident = node.children[0]
        expr_node = self._child(node, "expression")
        return Attribute(self.text(ident), self.expr(expr_node), self.rng(node), self.rng(ident))

    def _block(self, node: Node) -> Block:
        children = node.children
        type_node = children[0]
        labels: list[str] = []
        label_rngs: list[SourceRange] = []
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

    # ---- expressions -----------------------------------------------------------------------

    def expr(self, node: Node) -> ast.Expr:
        """Convert an ``expression`` node (or any expression-valued node), at most ``MAX_NESTING`` deep.

        Every later stage (evaluation, type checks, JSON encoding) recurses over the same tree, so
        refusing the depth here, with a position, keeps a ``RecursionError`` out of all of them.
        """
        if node.type not in _NESTING_NODES:
            return self._convert(node)
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise self.too_deep(node)
            return self._convert(node)
        finally:
            self.depth -= 1

    def too_deep(self, node: Node) -> DiagnosticsError:
        return DiagnosticsError([Diagnostic(
            "error", "Expression nested too deeply",
            detail=f"Expressions may be nested (or operators chained) at most {MAX_NESTING} levels deep "
                   "(MAX_NESTING); this one goes deeper here. Split it into locals.",
            range=self.rng(node),
        )])

    def _convert(self, node: Node) -> ast.Expr:
        if node.type != "expression":
            handler = self._expr_handlers.get(node.type)
            if handler is not None and node.type != "expression":
                return handler(node)
            return self._sequence([node], self.rng(node))
        children = node.children
        if children and children[0].type == "(":
            # ``(x[*].name)[0]``: the steps after ")" apply to the parenthesised value, so the
            # splat ends at the parenthesis, as in HCL.
            close = next(i for i, c in enumerate(children) if c.type == ")")
            inner = self._child(node, "expression")
            parens = ast.Parens(self._span(children[0], children[close]), self.expr(inner))
            if close == len(children) - 1:
                return parens
            return self._sequence(children[close:], self.rng(node), base=parens)
        if len(children) == 1:
            only = children[0]
            handler = self._expr_handlers.get(only.type)
            if handler is not None:
                return handler(only)
        return self._sequence(children, self.rng(node))

    def _sequence(self, nodes: list[Node], rng: SourceRange, base: ast.Expr | None = None) -> ast.Expr:
        """A primary expression followed by attribute/index/splat steps.

        ``base``, when given, is the primary already converted, and ``nodes[0]`` its last token.
        """
        first, rest = nodes[0], nodes[1:]
        steps, tail = self._steps(rest)
        result: ast.Expr
        if base is None and first.type == "variable_expr":
            last = rest[len(steps) - 1] if steps else first
            result = ast.ScopeTraversal(self._span(first, last), self.text(first), tuple(steps))
        else:
            if base is None:
                handler = self._expr_handlers.get(first.type)
                if handler is None:
                    raise self._unsupported(first)
                base = handler(first)
            result = base
            if steps:
                end = self.rng(rest[len(steps) - 1]).end
                result = ast.RelativeTraversal(SourceRange(self.filename, base.rng.start, end), base, tuple(steps))
        if tail:
            inner = tail[0].children[0]  # full_splat | attr_splat
            span = SourceRange(self.filename, result.rng.start, self.rng(tail[-1]).end)
            result = ast.Splat(span, result, self._splat_steps(tail), inner.type == "full_splat")
        return result

    def _splat_steps(self, splats: list[Node]) -> tuple[ast.Step, ...]:
        """The steps after the first ``[*]``; each further splat applies to every element in turn."""
        inner = splats[0].children[0]
        each, more = self._steps(inner.children[1:])
        if more:
            raise self._unsupported(more[0])
        if len(splats) > 1:
            nested = splats[1].children[0]
            each.append(ast.SplatStep(self._splat_steps(splats[1:]), nested.type == "full_splat",
                                      self.rng(splats[1])))
        return tuple(each)

    def _steps(self, nodes: list[Node]) -> tuple[list[ast.Step], list[Node]]:
        steps: list[ast.Step] = []
        for i, node in enumerate(nodes):
            kind = node.type
            if kind == "get_attr":
                ident = node.children[-1]
                steps.append(ast.AttrStep(self.text(ident), self.rng(node)))
            elif kind == "index":
                idx = node.children[0]
                if idx.type == "legacy_index":
                    number = int(self.text(idx).lstrip("."))
                    steps.append(ast.IndexStep(ast.Literal(self.rng(idx), number), self.rng(idx)))
                else:
                    key_node = self._child(idx, "expression")
                    steps.append(ast.IndexStep(self.expr(key_node), self.rng(idx)))
            elif kind == "splat":  # the rest are splats too: ``a[*].b[*].c`` nests the second in the first
                rest = [n for n in nodes[i:] if n.type != "comment"]
                for n in rest:
                    if n.type != "splat":
                        raise self._unsupported(n)
                return steps, rest
            elif kind in ("comment",):
                continue
            else:
                raise self._unsupported(node)
        return steps, []

    def _unsupported(self, node: Node) -> DiagnosticsError:
        return DiagnosticsError(
            [Diagnostic("error", f'Unsupported expression syntax "{self.text(node)[:40]}"', range=self.rng(node))]
        )

    def _literal_value(self, node: Node) -> ast.Expr:
        lit = node.children[0]
        kind = lit.type
        rng = self.rng(node)
        if kind == "numeric_lit":
            try:
                return ast.Literal(rng, number(self.text(lit)))
            except LiteralError as exc:
                raise DiagnosticsError([Diagnostic("error", "Invalid number", detail=exc.message, range=rng)]) from None
        if kind == "bool_lit":
            return ast.Literal(rng, self.text(lit) == "true")
        if kind == "null_lit":
            return ast.Literal(rng, None)
        if kind == "string_lit":
            return self._string_lit(lit)
        raise self._unsupported(node)

    def _string_lit(self, node: Node) -> ast.Expr:
        return ast.Literal(self.rng(node), self._string_lit_text(node))

    def _string_lit_text(self, node: Node) -> str:
        children = node.children
        start = children[0].end_byte
        end = children[-1].start_byte if len(children) > 1 else node.end_byte
        return self._unescape_at(start, end, quoted=True)

    def _collection_value(self, node: Node) -> ast.Expr:
        return self.expr(node.children[0])

    def _tuple(self, node: Node) -> ast.Expr:
        items = tuple(self.expr(c) for c in node.children if c.type == "expression")
        return ast.TupleCons(self.rng(node), items)

    def _object(self, node: Node) -> ast.Expr:
        items: list[ast.ObjectItem] = []
        previous: Node | None = None
        for elem in node.children:
            if elem.type == ",":
                previous = None
            if elem.type != "object_elem":
                continue
            if previous is not None and previous.end_point.row == elem.start_point.row:
                raise DiagnosticsError([Diagnostic(  # the grammar accepts ``{ a = 1 b = 2 }``
                    "error", "Missing attribute separator",
                    detail="Expected a newline or comma to mark the beginning of the next attribute.",
                    range=self.rng(elem),
                )])
            previous = elem
            exprs = [c for c in elem.children if c.type == "expression"]
            key_node, value_node = exprs[0], exprs[-1]
            key = self.expr(key_node)
            if isinstance(key, ast.ScopeTraversal) and not key.steps:
                key = ast.Literal(key.rng, key.root)
            items.append(ast.ObjectItem(key, self.expr(value_node)))
        return ast.ObjectCons(self.rng(node), tuple(items))

    def _function_call(self, node: Node) -> ast.Expr:
        children = node.children
        name = self.text(children[0])
        args: list[ast.Expr] = []
        expand = False
        for child in children:
            if child.type == "function_arguments":
                for arg in child.children:
                    if arg.type == "expression":
                        args.append(self.expr(arg))
                    elif arg.type == "ellipsis":
                        expand = True
        return ast.FunctionCall(self.rng(node), name, tuple(args), expand)

    def _conditional(self, node: Node) -> ast.Expr:
        # tree-sitter-hcl groups a chain ``a ? x : b ? y : z`` to the left, as ``(a ? x : b) ? y : z``;
        # HCL reads it to the right, as ``a ? x : (b ? y : z)``. Rebuild the chain the HCL way.
        pairs, otherwise = _conditional_chain(node)
        result = self.expr(otherwise)
        for cond, value in reversed(pairs):
            rng = SourceRange(self.filename, self.rng(cond).start, self.rng(node).end)
            result = ast.Conditional(rng, self.expr(cond), self.expr(value), result)
        return result

    def _operation(self, node: Node) -> ast.Expr:
        return self.expr(node.children[0])

    def _binary(self, node: Node) -> ast.Expr:
        children = node.children
        split = next(
            (i for i, c in enumerate(children) if i > 0 and not c.is_named and c.type in _BINARY_OPS), None
        )
        if split is None:
            raise self.incomplete(node)
        left = self._operand(children[:split])
        right = self._operand(children[split + 1 :])
        return ast.BinaryOp(self.rng(node), children[split].type, left, right)

    def _unary(self, node: Node) -> ast.Expr:
        children = node.children
        return ast.UnaryOp(self.rng(node), children[0].type, self._operand(children[1:]))

    def _operand(self, nodes: list[Node]) -> ast.Expr:
        if nodes[0].type == "(":
            inner = self._first_of(nodes, "expression")
            parens: ast.Expr = ast.Parens(self._span(nodes[0], nodes[-1]), self.expr(inner))
            return parens
        if len(nodes) == 1:
            return self.expr(nodes[0])
        return self._sequence(nodes, self._span(nodes[0], nodes[-1]))

    def _for_expr(self, node: Node) -> ast.Expr:
        inner = node.children[0]
        intro = self._child(inner, "for_intro")
        idents = [self.text(c) for c in intro.children if c.type == "identifier"]
        coll = self.expr(self._child(intro, "expression"))
        key_var, value_var = (idents[0], idents[1]) if len(idents) == 2 else (None, idents[0])
        body_exprs = [c for c in inner.children if c.type == "expression"]
        cond_node = next((c for c in inner.children if c.type == "for_cond"), None)
        cond = None
        if cond_node is not None:
            cond = self.expr(self._child(cond_node, "expression"))
        if inner.type == "for_object_expr":
            group = any(c.type == "ellipsis" for c in inner.children)
            return ast.ForExpr(
                self.rng(node), key_var, value_var, coll, self.expr(body_exprs[0]), self.expr(body_exprs[1]), cond, group
            )
        return ast.ForExpr(self.rng(node), key_var, value_var, coll, None, self.expr(body_exprs[0]), cond, False)

    # ---- templates -------------------------------------------------------------------------

    def _template_expr(self, node: Node) -> ast.Expr:
        return self.expr(node.children[0])

    def _quoted_template(self, node: Node) -> ast.Expr:
        children = node.children
        start = children[0].end_byte
        end = children[-1].start_byte
        parts = self._parts(children[1:-1], start, end, quoted=True, flush=False)
        return _finish_template(self.rng(node), parts)

    def _heredoc_template(self, node: Node) -> ast.Expr:
        children = node.children
        idents = [c for c in children if c.type == "heredoc_identifier"]
        opener = idents[0]
        start = self.src.index(b"\n", opener.end_byte) + 1
        closer = idents[-1] if len(idents) > 1 else children[-1]
        end = self.src.rfind(b"\n", 0, closer.start_byte) + 1
        if end < start:
            end = start
        flush = bool(children[0].children) and children[0].children[0].type == "<<-"
        inner = [c for c in children if c.type in ("template_interpolation", "template_directive")]
        parts = self._parts(inner, start, end, quoted=False, flush=flush)
        rng = self.rng(node)
        if not parts:
            return ast.Literal(rng, "")
        if len(parts) == 1 and isinstance(parts[0], str):
            return ast.Literal(rng, parts[0])
        return ast.Template(rng, tuple(parts))

    def _parts(self, nodes: list[Node], start: int, end: int, *, quoted: bool, flush: bool) -> list[ast.TemplatePart]:
        """The parts of a template, with ``~`` strip markers and ``<<-`` indentation applied.

        HCL applies both to a flat sequence of tokens, before directives are nested: a strip
        marker trims only the literal token right next to it, and outside quoted strings literal
        tokens end at each newline. So ``%{ for x in xs ~}`` at the end of a heredoc line eats
        that line's newline but not the next line's indentation, and that next line (no longer
        at the start of a line) keeps its indentation in a ``<<-`` heredoc.
        """
        tokens: list[Any] = []
        self._flatten(nodes, start, end, quoted, tokens)
        for i, tok in enumerate(tokens):
            if isinstance(tok, _Lit):
                continue
            if tok.strip_left and i > 0 and isinstance(tokens[i - 1], _Lit):
                tokens[i - 1].val = tokens[i - 1].val.rstrip()
            if tok.strip_right and i + 1 < len(tokens) and isinstance(tokens[i + 1], _Lit):
                tokens[i + 1].val = tokens[i + 1].val.lstrip()
        if flush:
            _flush_heredoc(tokens)
        parts, _ = self._nest(tokens, 0, ())
        return parts

    def _flatten(self, nodes: list[Node], start: int, end: int, quoted: bool, out: list[Any]) -> None:
        """Literal tokens, interpolations and directive tags in source order."""
        cursor = start
        for node in nodes:
            kind = node.type
            if kind not in ("template_interpolation", "template_directive"):
                continue
            self._literal_tokens(cursor, node.start_byte, quoted, out)
            cursor = node.end_byte
            if kind == "template_interpolation":
                inner = self._child(node, "expression")
                ch = node.children
                left = len(ch) > 1 and ch[1].type == "strip_marker"
                right = len(ch) > 1 and ch[-2].type == "strip_marker"
                out.append(_Tag("interp", left, right, self.expr(inner), node))
                continue
            inner_node = node.children[0]
            children = inner_node.children
            if inner_node.type == "template_if":
                intro = children[0]
                else_intro = next((c for c in children if c.type == "template_else_intro"), None)
                end_tag = children[-1]
                then_end = else_intro if else_intro is not None else end_tag
                cond = self.expr(self._child(intro, "expression"))
                out.append(_Tag("if", *_tag_strips(intro), cond, node))
                self._flatten(_between(children, intro, then_end), intro.end_byte, then_end.start_byte, quoted, out)
                if else_intro is not None:
                    out.append(_Tag("else", *_tag_strips(else_intro), None, else_intro))
                    self._flatten(
                        _between(children, else_intro, end_tag), else_intro.end_byte, end_tag.start_byte, quoted, out
                    )
                out.append(_Tag("endif", *_tag_strips(end_tag), None, end_tag))
            elif inner_node.type == "template_for":
                intro, end_tag = children[0], children[-1]
                idents = [self.text(c) for c in intro.children if c.type == "identifier"]
                coll = self.expr(self._child(intro, "expression"))
                key_var, value_var = (idents[0], idents[1]) if len(idents) == 2 else (None, idents[0])
                out.append(_Tag("for", *_tag_strips(intro), (key_var, value_var, coll), node))
                self._flatten(_between(children, intro, end_tag), intro.end_byte, end_tag.start_byte, quoted, out)
                out.append(_Tag("endfor", *_tag_strips(end_tag), None, end_tag))
            else:
                raise self._unsupported(node)
        self._literal_tokens(cursor, end, quoted, out)

    def _literal_tokens(self, start: int, end: int, quoted: bool, out: list[Any]) -> None:
        if end <= start:
            return
        text = self.src[start:end].decode("utf-8", "replace")
        if quoted:
            out.append(_Lit(self._unescape_at(start, end, quoted=True)))
            return
        for line in text.split("\n"):  # outside quoted strings a literal token ends at each newline
            out.append(_Lit(_unescape(line, quoted=False) + "\n"))
        last = out[-1]
        last.val = last.val[:-1]  # the split added one newline too many
        if not last.val:
            out.pop()

    def _nest(self, tokens: list[Any], i: int, stop: tuple[str, ...]) -> tuple[list[ast.TemplatePart], int]:
        """Build nested if/for parts from the flat token list, up to a tag kind in ``stop``."""
        parts: list[ast.TemplatePart] = []
        while i < len(tokens):
            tok = tokens[i]
            if isinstance(tok, _Lit):
                if tok.val:
                    parts.append(tok.val)
                i += 1
                continue
            if tok.kind in stop:
                return _merge_strings(parts), i
            if tok.kind == "interp":
                parts.append(tok.data)
                i += 1
            elif tok.kind == "if":
                then, i = self._nest(tokens, i + 1, ("else", "endif"))
                otherwise: list[ast.TemplatePart] = []
                if tokens[i].kind == "else":
                    otherwise, i = self._nest(tokens, i + 1, ("endif",))
                parts.append(ast.TemplateIf(tok.data, tuple(then), tuple(otherwise), self.rng(tok.node)))
                i += 1
            elif tok.kind == "for":
                body, i = self._nest(tokens, i + 1, ("endfor",))
                key_var, value_var, coll = tok.data
                parts.append(ast.TemplateFor(key_var, value_var, coll, tuple(body), self.rng(tok.node)))
                i += 1
            else:
                raise self._unsupported(tok.node)
        return _merge_strings(parts), i


class _Lit:
    """A literal token of a template (mutable: strip markers and ``<<-`` trim it in place)."""

    __slots__ = ("val",)

    def __init__(self, val: str) -> None:
        self.val = val


class _Tag:
    """An interpolation or a directive tag (``if``, ``else``, ``endif``, ``for``, ``endfor``)."""

    __slots__ = ("data", "kind", "node", "strip_left", "strip_right")

    def __init__(self, kind: str, strip_left: bool, strip_right: bool, data: Any, node: Node) -> None:
        self.kind = kind
        self.strip_left = strip_left
        self.strip_right = strip_right
        self.data = data
        self.node = node


def _conditional_chain(node: Node) -> tuple[list[tuple[Node, Node]], Node]:
    """A left-grouped chain of conditionals as [(condition, value), …] and the final else branch."""
    cond, value, otherwise = [c for c in node.children if c.type == "expression"]
    if len(cond.children) == 1 and cond.children[0].type == "conditional":
        pairs, last = _conditional_chain(cond.children[0])
        return [*pairs, (last, value)], otherwise
    return [(cond, value)], otherwise


def _between(children: list[Node], first: Node, last: Node) -> list[Node]:
    return [c for c in children if first.end_byte <= c.start_byte and c.end_byte <= last.start_byte]


def _flush_heredoc(tokens: list[Any]) -> None:
    """``<<-``: remove the smallest indentation of the line-leading literal tokens from each of them.

    A line that starts with an interpolation or directive counts as indentation zero; a line of
    only whitespace does not count (and keeps its whitespace).
    """
    min_spaces: int | None = None
    at_line_start = True
    adjust: list[_Lit] = []
    for tok in tokens:
        if at_line_start:
            at_line_start = False
            if isinstance(tok, _Lit):
                stripped = tok.val.lstrip()
                if stripped or not tok.val.endswith("\n"):
                    spaces = len(tok.val) - len(stripped)
                    adjust.append(tok)
                    min_spaces = spaces if min_spaces is None else min(min_spaces, spaces)
            else:
                min_spaces = 0
        if isinstance(tok, _Lit) and tok.val.endswith("\n"):
            at_line_start = True
    if min_spaces:
        for tok in adjust:
            tok.val = tok.val[min_spaces:]


def _finish_template(rng: SourceRange, parts: list[ast.TemplatePart]) -> ast.Expr:
    if not parts:
        return ast.Literal(rng, "")
    if len(parts) == 1:
        only = parts[0]
        if isinstance(only, str):
            return ast.Literal(rng, only)
        if isinstance(only, ast.Expr):
            return ast.TemplateWrap(rng, only)
    return ast.Template(rng, tuple(parts))


def _merge_strings(parts: list[ast.TemplatePart]) -> list[ast.TemplatePart]:
    out: list[ast.TemplatePart] = []
    for p in parts:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + p
        else:
            out.append(p)
    return out


def _tag_strips(tag: Node) -> tuple[bool, bool]:
    """(strip before the tag, strip after it) from ``%{~ … ~}`` markers."""
    children = tag.children
    left = len(children) > 1 and children[1].type == "strip_marker"
    right = len(children) > 1 and children[-2].type == "strip_marker"
    return left, right


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        # Point at the first token inside an ERROR node: that is where the parse went wrong.
        return node
    for child in node.children:
        if child.has_error or child.is_missing or child.type == "ERROR":
            found = _first_error(child)
            if found is not None:
                return found
    return None


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _unescape(text: str, *, quoted: bool) -> str:
    if "$${" in text:
        text = text.replace("$${", "${")
    if "%%{" in text:
        text = text.replace("%%{", "%{")
    if not quoted or "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "u" and i + 6 <= n:
                out.append(code_point(text[i + 2 : i + 6], i))
                i += 6
                continue
            if nxt == "U" and i + 10 <= n:
                out.append(code_point(text[i + 2 : i + 10], i))
                i += 10
                continue
        out.append(ch)
        i += 1
    return "".join(out)
