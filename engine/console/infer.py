"""The type of a console expression, worked out from the configuration it refers to.

Terraform knows the type of every value; ctl's values do not carry one (see ``engine.console.types``).
So, to print ``tolist([...])`` where Terraform does, the console follows the expression the way
Terraform's type checker would: a variable has its declared type, a resource attribute the type its
schema gives, a local or module output the type of its own expression, ``split`` returns a list,
``[for …]`` a tuple. The value itself is evaluated by the engine, never here: this only decides how
it is printed, and where it cannot tell, the value's own shape (``DYNAMIC``) is the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.registry import Registry
from engine.console.declared import DeclaredNames
from engine.console.function_types import return_type
from engine.console.types import (
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    Repeated,
    TupleType,
    attribute,
    element,
    list_of,
    members,
    of_value,
    unify,
)
from engine.graph import Graph, ModPath
from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.lang.operators import scalar_to_string
from vocab.errors import CtlError
from vocab.types import type_of_value
from vocab.values import Unknown, unmark

_log = logging.getLogger(__name__)
_NOT_KNOWN = object()


@dataclass
class _Where:
    """Where an expression is written: its module, the ``for`` variables in scope, and the scope to
    evaluate an index key or a ``try`` in (None inside a ``for``, whose variables have no value here)."""

    path: ModPath
    ctx: EvalContext | None
    bindings: dict[str, CtyType] = field(default_factory=dict)


class Typer:
    """Types of expressions over one evaluated configuration; locals and outputs are typed once."""

    def __init__(self, graph: Graph | None, registry: Registry | None,
                 scope_ctx: Callable[[ModPath], EvalContext | None]) -> None:
        def infer_in(expr: ast.Expr, path: ModPath, ctx: EvalContext | None) -> CtyType:
            return self._infer(expr, _Where(path, ctx))

        self._names = DeclaredNames(graph, registry, scope_ctx, infer_in)

    def type_of(self, expr: ast.Expr, ctx: EvalContext) -> CtyType:
        """The type Terraform would give ``expr`` in the root module; ``DYNAMIC`` when unsure."""
        try:
            return self._infer(expr, _Where((), ctx))
        except Exception:  # only the printed form depends on it: fall back to the value's own shape
            _log.debug("no type for the console expression", exc_info=True)
            return DYNAMIC

    # -- expressions ---------------------------------------------------------------------------

    def _infer(self, e: ast.Expr, w: _Where) -> CtyType:
        if isinstance(e, ast.Literal):
            return type_of_value(e.value)
        if isinstance(e, ast.TemplateWrap | ast.Parens):
            return self._infer(e.inner, w)
        if isinstance(e, ast.Template):
            return STRING
        if isinstance(e, ast.TupleCons):
            return TupleType(tuple(self._infer(item, w) for item in e.items))
        if isinstance(e, ast.ObjectCons):
            return self._object(e, w)
        if isinstance(e, ast.ScopeTraversal):
            if e.root in w.bindings:
                return self._steps(w.bindings[e.root], e.steps, w)
            root, steps = self._names.reference(e.root, e.steps, w.path)
            return self._steps(root, steps, w)
        if isinstance(e, ast.RelativeTraversal):
            return self._steps(self._infer(e.source, w), e.steps, w)
        if isinstance(e, ast.Splat):
            return self._splat(self._infer(e.source, w), e.each, w)
        if isinstance(e, ast.FunctionCall):
            return self._call(e, w)
        if isinstance(e, ast.Conditional):
            # A result of no known type (a null) takes the other's, as HCL's conditional does.
            true, false = self._refined(e.true, w), self._refined(e.false, w)
            return false if true is DYNAMIC else true if false is DYNAMIC else unify([true, false])
        if isinstance(e, ast.ForExpr):
            return self._for(e, w)
        return DYNAMIC  # operators: numbers and bools print the same whatever their type

    def _refined(self, e: ast.Expr, w: _Where) -> CtyType:
        """The static type, or where that says nothing, the type of the value (a conditional's
        branches unify by type, so an untyped variable's tuple must count as one)."""
        t = self._infer(e, w)
        if t is DYNAMIC:
            value = self._constant(e, w)
            if value is not _NOT_KNOWN:
                return of_value(value)
        return t

    def _object(self, e: ast.ObjectCons, w: _Where) -> CtyType:
        attrs: dict[str, CtyType] = {}
        for item in e.items:
            key = self._constant(item.key, w)
            name = scalar_to_string(key) if key is not _NOT_KNOWN else None
            if name is None:
                return DYNAMIC
            attrs[name] = self._infer(item.value, w)
        return ObjectType(attrs)

    def _call(self, e: ast.FunctionCall, w: _Where) -> CtyType:
        if e.name in _PASS_THROUGH:  # the result is one of the arguments, unconverted
            chosen = self._chosen_argument(e, w, _PASS_THROUGH[e.name])
            if chosen is not None:
                return self._infer(chosen, w)
            return unify(self._infer(a, w) for a in e.args)
        args = [self._infer(a, w) for a in e.args]
        if e.expand_final and args:
            args.append(members(args.pop()))
        return return_type(e.name, args)

    def _chosen_argument(self, e: ast.FunctionCall, w: _Where, wanted: Callable[[Any], bool]) -> ast.Expr | None:
        """The first argument whose value ``wanted`` accepts (one that evaluates, for ``try``)."""
        if w.ctx is None or e.expand_final:
            return None
        for arg in e.args:
            try:
                value, _ = unmark(evaluate(arg, w.ctx))
            except CtlError:
                continue
            if wanted(value):
                return arg
        return None

    def _for(self, e: ast.ForExpr, w: _Where) -> CtyType:
        key_type, value_type = _iteration(self._infer(e.collection, w))
        bindings = {**w.bindings, e.value_var: value_type}
        if e.key_var is not None:
            bindings[e.key_var] = key_type
        body = self._infer(e.value_expr, _Where(w.path, None, bindings))
        if e.key_expr is None:
            return Repeated("tuple", body)
        return Repeated("object", Repeated("tuple", body) if e.group else body)

    def _constant(self, e: ast.Expr, w: _Where) -> Any:
        """The value of a key or condition when it can be known here, else ``_NOT_KNOWN``."""
        if isinstance(e, ast.Literal):
            return e.value
        if w.ctx is None:
            return _NOT_KNOWN
        try:
            value, _ = unmark(evaluate(e, w.ctx))
        except CtlError:
            return _NOT_KNOWN
        return _NOT_KNOWN if isinstance(value, Unknown) else value

    # -- traversals ----------------------------------------------------------------------------

    def _steps(self, t: CtyType, steps: tuple[ast.Step, ...], w: _Where) -> CtyType:
        for step in steps:
            if isinstance(step, ast.AttrStep):
                t = attribute(t, step.name)
            elif isinstance(step, ast.IndexStep):
                t = self._index(t, step.key, w)
            else:
                t = self._splat(t, step.each, w)
        return t

    def _index(self, t: CtyType, key_expr: ast.Expr, w: _Where) -> CtyType:
        key = self._constant(key_expr, w)
        if isinstance(t, ObjectType):
            name = scalar_to_string(key) if key is not _NOT_KNOWN else None
            return attribute(t, name) if name is not None else unify(t.attributes.values())
        if isinstance(t, TupleType):
            if isinstance(key, str) and key.isdigit():
                key = int(key)
            number = isinstance(key, int | float) and not isinstance(key, bool)
            return element(t, int(key) if number else None)
        if isinstance(t, Collection | Repeated):
            return t.element
        return DYNAMIC

    def _splat(self, source: CtyType, each: tuple[ast.Step, ...], w: _Where) -> CtyType:
        """``source[*]…``: a list or set gives a list, anything else a tuple (one element for a
        single value, as HCL wraps it)."""
        if isinstance(source, Collection) and source.kind in ("list", "set"):
            return list_of(self._steps(source.element, each, w))
        if isinstance(source, TupleType):
            return TupleType(tuple(self._steps(t, each, w) for t in source.elements))
        if source is DYNAMIC or (isinstance(source, Repeated) and source.kind == "tuple"):
            return Repeated("tuple", self._steps(members(source), each, w))
        return TupleType((self._steps(source, each, w),))

# Functions that return one of their arguments as it is: which one, judged by its value.
_PASS_THROUGH: dict[str, Callable[[Any], bool]] = {
    "try": lambda value: True,
    "coalescelist": lambda value: isinstance(value, list) and len(value) > 0,
}


def _iteration(t: CtyType) -> tuple[CtyType, CtyType]:
    """The types a ``for`` binds its key and value variables to, iterating over a ``t``."""
    if isinstance(t, Collection | Repeated):
        key = t.element if t.kind == "set" else (NUMBER if t.kind in ("list", "tuple") else STRING)
        return key, t.element
    if isinstance(t, TupleType | ObjectType):
        values = list(t.elements) if isinstance(t, TupleType) else list(t.attributes.values())
        same = values[0] if values and all(v == values[0] for v in values) else DYNAMIC
        return (NUMBER if isinstance(t, TupleType) else STRING), same
    return DYNAMIC, DYNAMIC


__all__ = ["Typer"]
