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


def name_suggestion(name: str, candidates: Iterable[str]) -> str:
    """Terraform's own suggestion for a misspelt name: the candidate fewest edits away, if within two
    (its ``didyoumean``; ``did_you_mean`` above is looser, for ctl's own hints), or ''."""
    near = sorted((edit_distance(name, candidate), candidate) for candidate in candidates)
    return near[0][1] if near and near[0][0] < 3 else ""


def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance between two names (what Terraform's suggestions measure)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def condition(value: Any, node: ast.Expr, *, for_clause: bool = False) -> tuple[bool | Unknown, frozenset[str]]:
    """A condition's value as a bool (or unknown) and its marks; null or non-bool is an error, worded
    as HCL words a conditional's or a template ``if``'s, or (``for_clause``) a ``for``'s ``if``."""
    v, marks = unmark(value)
    if isinstance(v, Unknown):
        return v, marks
    if v is None:
        if for_clause:
            raise EvalError("Condition is null", detail="The value of the 'if' clause must not be null.",
                            range=node.rng)
        raise EvalError("Null condition", detail="The condition value is null. Conditions must either be true or false.",
                        range=node.rng)
    b = to_bool(v)
    if b is None:
        if for_clause:
            reason = "a bool is required" if isinstance(v, str) else f"bool required, but have {type_name(v)}"
            raise EvalError("Invalid 'for' condition", detail=f"The 'if' clause value is invalid: {reason}.",
                            range=node.rng)
        raise EvalError("Incorrect condition type", detail="The condition expression must be of type bool.",
                        range=node.rng)
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
