"""Expressions in HCL: literals, collections, calls, operators, conditionals, ``for``, traversals
and splats, each turned into an ``engine.lang.ast`` node with its position.

Operands of operators are flat node sequences in tree-sitter's tree (a primary followed by
``get_attr``/``index``/``splat`` siblings); ``_sequence`` reads them into traversals and splats.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar

from tree_sitter import Node

from engine.lang import ast
from engine.lang.hcl_templates import TemplateConverter
from engine.lang.literals import LiteralError, number
from vocab.errors import Diagnostic, DiagnosticsError
from vocab.limits import MAX_NESTING
from vocab.positions import as_range

_CHILDREN = attrgetter("children")
_BINARY_OPS = frozenset({"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"})
_NESTING_NODES = frozenset({"expression", "operation"})  # one level of nesting each


class ExpressionConverter(TemplateConverter):
    """Expression nodes to ``ast`` expressions, at most ``MAX_NESTING`` deep."""

    def __init__(self, src: bytes, filename: str, **where: Any) -> None:
        super().__init__(src, filename, **where)
        # A node's children without the comments the grammar lets stand between any two tokens.
        # Reading a child's type costs a call into the parser library, and this runs for nearly
        # every node, so a source with no comment marker at all skips the filter (``may_comment``).
        # Both are plain functions, as the handlers below are the class's: a bound method kept on
        # the converter would make it a reference cycle, left for the collector once a string's
        # template is converted (a large JSON configuration converts one per template string).
        self._kids: Callable[[Node], list[Node]] = _uncommented if self.may_comment else _CHILDREN

    # The converter of each node type an expression can be, called with the converter and the node
    # (filled in after the class).
    _EXPR_HANDLERS: ClassVar[dict[str, Callable[[ExpressionConverter, Node], ast.Expr]]] = {}

    # ---- expressions -----------------------------------------------------------------------

    def expr(self, node: Node) -> ast.Expr:
        """Convert an ``expression`` node (or any expression-valued node), at most ``MAX_NESTING`` deep.

        Every later stage (evaluation, type checks, JSON encoding) recurses over the same tree, so
        refusing the depth here, with a position, keeps a ``RecursionError`` out of all of them.
        """
        kind = node.type
        if kind not in _NESTING_NODES:
            return self._convert(node, kind)
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise self.too_deep(node)
            return self._convert(node, kind)
        finally:
            self.depth -= 1

    def too_deep(self, node: Node) -> DiagnosticsError:
        return DiagnosticsError([Diagnostic(
            "error", "Expression nested too deeply",
            detail=f"Expressions may be nested (or operators chained) at most {MAX_NESTING} levels deep "
                   "(MAX_NESTING); this one goes deeper here. Split it into locals.",
            range=as_range(self.rng(node)),
        )])

    def _convert(self, node: Node, kind: str) -> ast.Expr:
        """``node``, of type ``kind`` (read once by ``expr``: each read is a call into the parser library)."""
        if kind != "expression":
            handler = self._EXPR_HANDLERS.get(kind)
            if handler is not None:
                return handler(self, node)
            return self._sequence([node])
        children = self._kids(node)
        if children and children[0].type == "(":
            # ``(x[*].name)[0]``: the steps after ")" apply to the parenthesised value, so the
            # splat ends at the parenthesis, as in HCL.
            close = next(i for i, c in enumerate(children) if c.type == ")")
            inner = self._child(node, "expression")
            parens = ast.Parens(self._span(children[0], children[close]), self.expr(inner))
            if close == len(children) - 1:
                return parens
            return self._sequence(children[close:], base=parens)
        if len(children) == 1:
            only = children[0]
            handler = self._EXPR_HANDLERS.get(only.type)
            if handler is not None:
                return handler(self, only)
        return self._sequence(children)

    def _sequence(self, nodes: list[Node], base: ast.Expr | None = None) -> ast.Expr:
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
                handler = self._EXPR_HANDLERS.get(first.type)
                if handler is None:
                    raise self._unsupported(first)
                base = handler(self, first)
            result = base
            if steps:
                result = ast.RelativeTraversal(self.join(base._rng, self.rng(rest[len(steps) - 1])), base, tuple(steps))
        if tail:
            first_splat, *after = self._splat_chain(tail)
            assert isinstance(first_splat, ast.SplatStep)
            span = self.join(result._rng, self.rng(tail[-1]))
            result = ast.Splat(span, result, first_splat.each, first_splat.full)
            if after:
                result = ast.RelativeTraversal(span, result, tuple(after))
        return result

    def _splat_chain(self, splats: list[Node]) -> list[ast.Step]:
        """The steps that ``splats`` (siblings, ``[*]`` or ``.*`` each) apply to a value, as HCL reads them.

        A full splat ``[*]`` takes every step after it, later splats included, for each element. An
        attribute-only splat ``.*`` takes only the ``.name`` and ``.0`` steps right after it: in
        ``a.*.b[0]`` the ``[0]`` indexes the list of ``b``s, not each ``b``, and a ``.*`` right after
        those steps is HCL's "Nested splat expression not allowed".
        """
        inner = self._kids(splats[0])[0]
        kids = self._kids(inner)[1:]
        if inner.type == "full_splat":
            each, more = self._steps(kids)
            if more:
                raise self._unsupported(more[0])
            if len(splats) > 1:
                each.extend(self._splat_chain(splats[1:]))
            return [ast.SplatStep(tuple(each), True, self.rng(splats[0]))]
        cut = next((i for i, k in enumerate(kids) if k.type == "index" and self._kids(k)[0].type != "legacy_index"),
                   len(kids))
        each, more = self._steps(kids[:cut])
        after, more_after = self._steps(kids[cut:])
        if more or more_after:
            raise self._unsupported((more or more_after)[0])
        chain: list[ast.Step] = [ast.SplatStep(tuple(each), False, self.rng(splats[0])), *after]
        if len(splats) > 1:
            following = self._kids(splats[1])[0]
            if cut == len(kids) and following.type == "attr_splat":
                raise DiagnosticsError([Diagnostic(
                    "error", "Nested splat expression not allowed",
                    detail="A splat expression (*) cannot be used inside another attribute-only splat expression.",
                    range=as_range(self.rng(following)),
                )])
            chain.extend(self._splat_chain(splats[1:]))
        return chain

    def _steps(self, nodes: list[Node]) -> tuple[list[ast.Step], list[Node]]:
        steps: list[ast.Step] = []
        for i, node in enumerate(nodes):
            kind = node.type
            if kind == "get_attr":
                ident = self._kids(node)[-1]
                steps.append(ast.AttrStep(self.text(ident), self.rng(node)))
            elif kind == "index":
                idx = self._kids(node)[0]
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


    def _literal_value(self, node: Node) -> ast.Expr:
        lit = self._kids(node)[0]
        kind = lit.type
        rng = self.rng(node)
        if kind == "numeric_lit":
            try:
                return ast.Literal(rng, number(self.text(lit)))
            except LiteralError as exc:
                raise DiagnosticsError([Diagnostic("error", "Invalid number", detail=exc.message, range=as_range(rng))]) from None
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
        children = self._kids(node)
        start = children[0].end_byte
        end = children[-1].start_byte if len(children) > 1 else node.end_byte
        return self._unescape_at(start, end, quoted=True)

    def _collection_value(self, node: Node) -> ast.Expr:
        return self.expr(self._kids(node)[0])

    def _tuple(self, node: Node) -> ast.Expr:
        items = tuple(self.expr(c) for c in self._kids(node) if c.type == "expression")
        return ast.TupleCons(self.rng(node), items)

    def _object(self, node: Node) -> ast.Expr:
        items: list[ast.ObjectItem] = []
        previous: Node | None = None
        for elem in self._kids(node):
            kind = elem.type
            if kind != "object_elem":
                if kind == ",":
                    previous = None
                continue
            if previous is not None and self.same_line(previous, elem):
                raise DiagnosticsError([Diagnostic(  # the grammar accepts ``{ a = 1 b = 2 }``
                    "error", "Missing attribute separator",
                    detail="Expected a newline or comma to mark the beginning of the next attribute.",
                    range=as_range(self.rng(elem)),
                )])
            previous = elem
            parts = self._kids(elem)
            if len(parts) != 3:  # the key, "=" or ":", the value: anything else is read by kind
                parts = [c for c in parts if c.type == "expression"]
            key_node, value_node = parts[0], parts[-1]
            items.append(ast.ObjectItem(self._object_key(key_node), self.expr(value_node)))
        return ast.ObjectCons(self.rng(node), tuple(items))

    def _object_key(self, node: Node) -> ast.Expr:
        """A key: a bare name is its own text (``{ name = 1 }``), anything else an expression.
        Most keys are bare names, read here without the traversal they would otherwise become."""
        only = self._kids(node)
        if len(only) == 1 and only[0].type == "variable_expr":
            return ast.Literal(self.rng(only[0]), self.text(only[0]))
        key = self.expr(node)
        if isinstance(key, ast.ScopeTraversal) and not key.steps:
            key = ast.Literal(key._rng, key.root)
        return key

    def _function_call(self, node: Node) -> ast.Expr:
        children = self._kids(node)
        name = self.text(children[0])
        args: list[ast.Expr] = []
        expand = False
        for child in children:
            if child.type == "function_arguments":
                for arg in self._kids(child):
                    if arg.type == "expression":
                        args.append(self.expr(arg))
                    elif arg.type == "ellipsis":
                        expand = True
        return ast.FunctionCall(self.rng(node), name, tuple(args), expand)

    def _conditional(self, node: Node) -> ast.Expr:
        # tree-sitter-hcl groups a chain ``a ? x : b ? y : z`` to the left, as ``(a ? x : b) ? y : z``;
        # HCL reads it to the right, as ``a ? x : (b ? y : z)``. Rebuild the chain the HCL way.
        pairs, otherwise = self._conditional_chain(node)
        result = self.expr(otherwise)
        for cond, value in reversed(pairs):
            rng = self.join(self.rng(cond), self.rng(node))
            result = ast.Conditional(rng, self.expr(cond), self.expr(value), result)
        return result

    def _operation(self, node: Node) -> ast.Expr:
        return self.expr(self._kids(node)[0])

    def _binary(self, node: Node) -> ast.Expr:
        children = self._kids(node)
        split = next(
            (i for i, c in enumerate(children) if i > 0 and not c.is_named and c.type in _BINARY_OPS), None
        )
        if split is None:
            raise self.incomplete(node)
        left = self._operand(children[:split])
        right = self._operand(children[split + 1 :])
        return ast.BinaryOp(self.rng(node), children[split].type, left, right)

    def _unary(self, node: Node) -> ast.Expr:
        children = self._kids(node)
        return ast.UnaryOp(self.rng(node), children[0].type, self._operand(children[1:]))

    def _operand(self, nodes: list[Node]) -> ast.Expr:
        if nodes[0].type == "(":
            inner = self._first_of(nodes, "expression")
            parens: ast.Expr = ast.Parens(self._span(nodes[0], nodes[-1]), self.expr(inner))
            return parens
        if len(nodes) == 1:
            return self.expr(nodes[0])
        return self._sequence(nodes)

    def _for_expr(self, node: Node) -> ast.Expr:
        inner = self._kids(node)[0]
        intro = self._child(inner, "for_intro")
        idents = [self.text(c) for c in self._kids(intro) if c.type == "identifier"]
        coll = self.expr(self._child(intro, "expression"))
        key_var, value_var = (idents[0], idents[1]) if len(idents) == 2 else (None, idents[0])
        body_exprs = [c for c in self._kids(inner) if c.type == "expression"]
        cond_node = next((c for c in self._kids(inner) if c.type == "for_cond"), None)
        cond = None
        if cond_node is not None:
            cond = self.expr(self._child(cond_node, "expression"))
        if inner.type == "for_object_expr":
            group = any(c.type == "ellipsis" for c in self._kids(inner))
            return ast.ForExpr(
                self.rng(node), key_var, value_var, coll, self.expr(body_exprs[0]), self.expr(body_exprs[1]), cond, group
            )
        return ast.ForExpr(self.rng(node), key_var, value_var, coll, None, self.expr(body_exprs[0]), cond, False)

    def _conditional_chain(self, node: Node) -> tuple[list[tuple[Node, Node]], Node]:
        """A left-grouped chain of conditionals as [(condition, value), …] and the final else branch."""
        cond, value, otherwise = [c for c in self._kids(node) if c.type == "expression"]
        inner = self._kids(cond)
        if len(inner) == 1 and inner[0].type == "conditional":
            pairs, last = self._conditional_chain(inner[0])
            return [*pairs, (last, value)], otherwise
        return [(cond, value)], otherwise



def _uncommented(node: Node) -> list[Node]:
    """``_kids`` of a source that may hold comments: the children that are not one."""
    return [c for c in node.children if c.type != "comment"]


ExpressionConverter._EXPR_HANDLERS.update({
    "literal_value": ExpressionConverter._literal_value,
    "collection_value": ExpressionConverter._collection_value,
    "template_expr": ExpressionConverter._template_expr,
    "function_call": ExpressionConverter._function_call,
    "for_expr": ExpressionConverter._for_expr,
    "operation": ExpressionConverter._operation,
    "conditional": ExpressionConverter._conditional,
    "expression": ExpressionConverter.expr,
    "string_lit": ExpressionConverter._string_lit,
    "tuple": ExpressionConverter._tuple,
    "object": ExpressionConverter._object,
    "quoted_template": ExpressionConverter._quoted_template,
    "heredoc_template": ExpressionConverter._heredoc_template,
    "binary_operation": ExpressionConverter._binary,
    "unary_operation": ExpressionConverter._unary,
})
