"""What an expression reads: every name, with its leading static steps, for the dependency graph."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from engine.lang import ast
from vocab.positions import Located


@dataclass(slots=True, unsafe_hash=True)
class Reference(ast.Ranged):
    """A name an expression reads, with its leading static steps (for the dependency graph).

    Never changed once made; not declared frozen, for the reason ``engine.graph.Node`` gives."""

    root: str
    parts: tuple[str | int, ...]
    _rng: Located


# ``resource.aws_vpc.main`` is ``aws_vpc.main`` written out in full, as Terraform (0.12+) accepts it.
MANAGED_PREFIX = "resource"


@dataclass(slots=True, frozen=True)
class _Found:
    """What one expression reads: the traversals as written and the references they make."""

    expr: ast.Expr  # held, so its id cannot be reused while the memo holds this
    traversals: tuple[ast.ScopeTraversal, ...]
    references: tuple[Reference, ...]


# Within ``remembered()``: what each expression reads, by the expression's id.
_memo: ContextVar[dict[int, _Found] | None] = ContextVar("references", default=None)


def references(expr: ast.Expr) -> tuple[Reference, ...]:
    """Every name ``expr`` reads, in source order, except names bound by enclosing ``for``s."""
    return _found(expr).references


def traversals(expr: ast.Expr) -> tuple[ast.ScopeTraversal, ...]:
    """The traversals behind ``references(expr)``, one each, as written: a plan's ``configuration``
    view spells every step (``var.m["k"]`` and ``var.m.k`` are different text, the same reference)."""
    return _found(expr).traversals


def _found(expr: ast.Expr) -> _Found:
    memo = _memo.get()
    if memo is not None:
        hit = memo.get(id(expr))
        if hit is not None and hit.expr is expr:
            return hit
    nodes: list[ast.ScopeTraversal] = []
    _collect(expr, frozenset(), nodes)
    found = _Found(expr, tuple(nodes), tuple(_reference(node) for node in nodes))
    if memo is not None:
        memo[id(expr)] = found
    return found


def _reference(node: ast.ScopeTraversal) -> Reference:
    parts = _static_parts(node.steps)
    if node.root == MANAGED_PREFIX and parts and isinstance(parts[0], str):
        return Reference(parts[0], parts[1:], node._rng)  # ``resource.TYPE.NAME``
    return Reference(node.root, parts, node._rng)


@contextmanager
def remembered() -> Iterator[None]:
    """Each expression's references worked out once while inside: a plan reads them to build the
    dependency graph and again for the plan's ``configuration`` view, and the second time is
    noticeable in a large plan."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def forget_remembered() -> None:
    """Empty the enclosing ``remembered()``'s memo: it holds every expression it saw, so a caller
    letting go of a configuration lets go of this too."""
    memo = _memo.get()
    if memo is not None:
        memo.clear()


def _static_parts(steps: tuple[ast.Step, ...]) -> tuple[str | int, ...]:
    parts: list[str | int] = []
    for s in steps:
        if isinstance(s, ast.AttrStep):
            parts.append(s.name)
            continue
        if isinstance(s, ast.SplatStep):
            break
        key = s.key
        if type(key) is not ast.Literal:
            break
        v = key.value
        if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
            parts.append(v)
        elif isinstance(v, float) and v.is_integer():
            parts.append(int(v))
        else:
            break
    return tuple(parts)


def _collect_steps(steps: tuple[ast.Step, ...], bound: frozenset[str], out: list[ast.ScopeTraversal]) -> None:
    for s in steps:
        if type(s) is ast.IndexStep:
            _collect(s.key, bound, out)
        elif type(s) is ast.SplatStep:
            _collect_steps(s.each, bound, out)


def _collect(node: Any, bound: frozenset[str], out: list[ast.ScopeTraversal]) -> None:
    t = type(node)
    if t is ast.Literal or t is str:
        return
    if t is ast.ScopeTraversal:
        if node.root not in bound:
            out.append(node)
        _collect_steps(node.steps, bound, out)
    elif t is ast.RelativeTraversal or t is ast.Splat:
        _collect(node.source, bound, out)
        _collect_steps(node.steps if t is ast.RelativeTraversal else node.each, bound, out)
    elif t is ast.ForExpr or t is ast.TemplateFor:
        _collect(node.collection, bound, out)
        inner = bound | {n for n in (node.key_var, node.value_var) if n is not None}
        if t is ast.TemplateFor:
            for p in node.body:
                _collect(p, inner, out)
        else:
            for sub in (node.key_expr, node.value_expr, node.cond):
                if sub is not None:
                    _collect(sub, inner, out)
    elif t is ast.TemplateIf:
        for p in (node.cond, *node.then, *node.otherwise):
            _collect(p, bound, out)
    elif t is ast.ObjectCons:  # most of a large configuration's values: keys are names, many values literals
        for item in node.items:
            if item.name is None:  # a key written as a literal string refers to nothing
                _collect(item.key, bound, out)
            if type(item.value) is not ast.Literal:
                _collect(item.value, bound, out)
    else:
        for child in _CHILDREN.get(t, _no_children)(node):
            if type(child) is not ast.Literal and type(child) is not str:  # neither reads a name
                _collect(child, bound, out)


def _no_children(node: Any) -> tuple[()]:
    return ()


_CHILDREN: dict[type, Callable[[Any], Iterable[Any]]] = {
    ast.FunctionCall: lambda n: n.args,
    ast.Conditional: lambda n: (n.cond, n.true, n.false),
    ast.BinaryOp: lambda n: (n.left, n.right),
    ast.UnaryOp: lambda n: (n.operand,),
    ast.TupleCons: lambda n: n.items,
    ast.Template: lambda n: n.parts,
    ast.TemplateWrap: lambda n: (n.inner,),
    ast.Parens: lambda n: (n.inner,),
}
