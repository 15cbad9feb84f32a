"""Templates in expressions (``"a-${x}"``, ``%{ if }``, ``%{ for }``): rendered to a string.

A rule of the evaluator: ``engine.lang.eval`` dispatches ``Template`` nodes to ``eval_template`` and
hands it ``evaluate`` for the interpolations and directives; import the evaluator, not this module.
"""

from __future__ import annotations

from typing import Any

from engine.lang import ast
from engine.lang.evaluation import EvalContext, EvalError, Evaluate, condition, iteration
from engine.lang.literals import nfc
from engine.lang.operators import scalar_to_string
from vocab.values import Unknown, mark, type_name, unmark


class _Rendered:
    """What a template has produced so far: text pieces, marks seen, and whether anything was unknown."""

    __slots__ = ("marks", "out", "unknown")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.marks: frozenset[str] = frozenset()
        self.unknown = False


def eval_template(node: ast.Template, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """A template's string (unknown while any part is), marked with every mark of its parts."""
    parts = node.parts
    if len(parts) == 1 and type(parts[0]) is str:
        return parts[0]
    acc = _Rendered()
    _render(parts, ctx, acc, evaluate)
    if acc.unknown:
        return mark(Unknown("string"), acc.marks)
    return mark(nfc("".join(acc.out)), acc.marks)  # joined parts can compose: "e" then "\u0301"


def _render(parts: tuple[ast.TemplatePart, ...], ctx: EvalContext, acc: _Rendered, evaluate: Evaluate) -> None:
    for p in parts:
        if isinstance(p, str):
            acc.out.append(p)
        elif isinstance(p, ast.TemplateIf):
            _render_if(p, ctx, acc, evaluate)
        elif isinstance(p, ast.TemplateFor):
            _render_for(p, ctx, acc, evaluate)
        else:
            _interpolate(evaluate(p, ctx), p, acc)


def _interpolate(value: Any, node: ast.Expr, acc: _Rendered) -> None:
    v, marks = unmark(value)
    acc.marks |= marks
    if isinstance(v, Unknown):
        acc.unknown = True
        return
    if v is None:
        raise EvalError(
            "Invalid template interpolation value",
            detail="The expression result is null. Cannot include a null value in a string template.",
            range=node.rng,
        )
    s = scalar_to_string(v)
    if s is None:
        raise EvalError(
            "Invalid template interpolation value",
            detail=f"Cannot include the given value in a string template: string required, not {type_name(v)}.",
            range=node.rng,
        )
    acc.out.append(s)


def _render_if(part: ast.TemplateIf, ctx: EvalContext, acc: _Rendered, evaluate: Evaluate) -> None:
    b, marks = condition(evaluate(part.cond, ctx), part.cond)
    acc.marks |= marks
    if isinstance(b, Unknown):
        acc.unknown = True
        return
    _render(part.then if b else part.otherwise, ctx, acc, evaluate)


def _render_for(part: ast.TemplateFor, ctx: EvalContext, acc: _Rendered, evaluate: Evaluate) -> None:
    coll, marks = unmark(evaluate(part.collection, ctx))
    acc.marks |= marks
    if isinstance(coll, Unknown):
        acc.unknown = True
        return
    bindings: dict[str, object] = {}
    scope = ctx.child(bindings)
    for k, v in iteration(coll, part.collection, "'for' expression"):  # as HCL words a directive's too
        if part.key_var is not None:
            bindings[part.key_var] = k
        bindings[part.value_var] = v
        _render(part.body, scope, acc, evaluate)
