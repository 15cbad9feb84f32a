"""What every part of the expression evaluator shares: the scope an expression sees
(``EvalContext``), the error it raises (``EvalError``), and the rules for conditions and iteration
that both expressions and template directives follow.

The evaluator is ``engine.lang.eval``: it dispatches each node type to its rule. The rules for
function calls (``engine.lang.calls``), templates (``engine.lang.template_eval``) and traversals
(``engine.lang.traversal``) evaluate sub-expressions with the ``evaluate`` it hands them (an
``Evaluate``), so they build on this module and never import the evaluator back.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine.lang import ast
from engine.lang.operators import to_bool
from vocab.errors import CtlError
from vocab.values import SetValue, Unknown, type_name, unmark

if TYPE_CHECKING:
    from engine.lang.functions import FunctionContext

MISSING = object()
"""What a scope look-up finds for a name nothing binds (``None`` is a value: null)."""


class EvalError(CtlError):
    """An expression could not be evaluated; ``range`` is the offending node's source range."""

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}: {self.detail}" if self.detail else base


@dataclass(slots=True)
class EvalContext:
    """The names visible to an expression; ``child`` scopes chain to their parent without copying."""

    variables: dict[str, object]
    func_ctx: FunctionContext | None = None
    functions: dict[str, Callable[[list[Any]], object]] | None = None
    parent: EvalContext | None = None

    def child(self, bindings: dict[str, object]) -> EvalContext:
        """A nested scope (for-expression, template ``for``) that sees everything this one does."""
        return EvalContext(bindings, self.func_ctx, self.functions, self)

    def names(self) -> set[str]:
        """Every name visible here (only used to suggest a fix after a typo)."""
        out: set[str] = set()
        c: EvalContext | None = self
        while c is not None:
            out.update(c.variables)
            c = c.parent
        return out


class CallsUnknown(dict[str, Callable[[list[Any]], object]]):
    """``EvalContext.functions`` under which every call is unknown, ``try``'s and ``can``'s too, its
    arguments never evaluated: an expression read with no functions at all, as Terraform reads one
    to describe a configuration (the plan JSON's ``configuration`` gives ``upper("a")`` no constant
    value, yet ``true ? "a" : upper("b")`` the constant ``"a"``)."""


class Evaluate(Protocol):
    """The evaluator's entry point, as the rules it dispatches to receive it."""

    def __call__(self, expr: ast.Expr, ctx: EvalContext, /) -> Any: ...


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """A hint naming the candidate closest to a misspelt ``name``, or '' when none is close."""
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f'Did you mean "{close[0]}"?' if close else ""


def condition(value: Any, node: ast.Expr, what: str) -> tuple[bool | Unknown, frozenset[str]]:
    """A condition's value as a bool (or unknown) and its marks; null or non-bool is an error."""
    v, marks = unmark(value)
    if isinstance(v, Unknown):
        return v, marks
    if v is None:
        raise EvalError(
            "Null condition", detail=f"The {what} is null; it must be true or false.", range=node.rng
        )
    b = to_bool(v)
    if b is None:
        raise EvalError(
            "Incorrect condition type",
            detail=f"The {what} must be of type bool, not {type_name(v)}.",
            range=node.rng,
        )
    return b, marks


def iteration(coll: Any, node: ast.Expr, what: str) -> Iterable[tuple[Any, Any]]:
    """(key, value) pairs of a for/template-for collection: list index order, sorted map keys, and
    for a set each element as its own key (a set has no indexes)."""
    if isinstance(coll, SetValue):
        return ((v, v) for v in coll)
    if isinstance(coll, list):
        return enumerate(coll)
    if isinstance(coll, dict):
        return ((k, coll[k]) for k in sorted(coll))
    if coll is None:
        raise EvalError(
            "Iteration over null value",
            detail=f"A null value cannot be used as the collection in a {what}.",
            range=node.rng,
        )
    raise EvalError(
        "Iteration over non-iterable value",
        detail=f"A value of type {type_name(coll)} cannot be used as the collection in a {what}.",
        range=node.rng,
    )
