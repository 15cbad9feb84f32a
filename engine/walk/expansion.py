"""How many instances a resource or module call has: its ``count`` or ``for_each`` evaluated and
checked as Terraform checks it, each instance's key with its ``count.index`` or ``each`` binding.

Kept apart from the walk that drives it because its rules (what for_each accepts, how unknown and
sensitive values are refused, the instance limit) are one thing to read and to test.
"""

from __future__ import annotations

from typing import Any

from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.state.address import Key
from engine.walk.addresses import UNKNOWN_KEY
from vocab.errors import CtlError, Diagnostics, SourceRange
from vocab.limits import MAX_INSTANCES_ENV, max_instances
from vocab.values import UNKNOWN, Marked, Null, SetValue, Unknown, contains_unknown, is_marked, unmark


def expand(
    count: Any, for_each: Any, ctx: EvalContext, what: str, diags: Diagnostics, *, plan_mode: bool
) -> tuple[str, list[tuple[Key, dict[str, Any] | None]]]:
    """("single"|"count"|"for_each", [(key, bindings for count/each)])."""
    if count is not None:
        n = _eval(diags, count.expr, ctx)
        n, count_marks = unmark(n)
        if isinstance(n, Unknown):
            return "count", _unknown_expansion(diags, plan_mode, count.expr.rng, what, "count")
        if isinstance(n, str) and n.strip().lstrip("-").isdigit():
            n = int(n)
        if isinstance(n, bool) or not isinstance(n, int | float) or n < 0 or int(n) != n:
            diags.error(
                "Invalid count argument",
                detail=f"The count of {what} must be a whole number of zero or more, not "
                       f"{'(sensitive value)' if count_marks else repr(n)}.",
                range=count.expr.rng,
            )
            return "count", []
        if _too_many(diags, int(n), count.expr.rng, what, "count"):
            return "count", []
        return "count", [(i, {"count": {"index": i}}) for i in range(int(n))]
    if for_each is not None:
        coll = _eval(diags, for_each.expr, ctx)
        if isinstance(coll, Marked) or is_marked(coll):
            diags.error(
                "Invalid for_each argument",
                detail="Sensitive values, or values derived from them, cannot be used as for_each arguments: "
                       "they would be shown as instance keys.",
                range=for_each.expr.rng,
            )
            return "for_each", []
        if isinstance(coll, Unknown):
            return "for_each", _unknown_expansion(diags, plan_mode, for_each.expr.rng, what, "for_each")
        if isinstance(coll, dict | list) and _too_many(diags, len(coll), for_each.expr.rng, what, "for_each"):
            return "for_each", []
        if isinstance(coll, dict):
            if any(isinstance(k, Unknown) for k in coll):
                return "for_each", _unknown_expansion(diags, plan_mode, for_each.expr.rng, what, "for_each")
            return "for_each", [(k, {"each": {"key": k, "value": coll[k]}}) for k in sorted(coll)]
        if isinstance(coll, list):
            if contains_unknown(coll):
                return "for_each", _unknown_expansion(diags, plan_mode, for_each.expr.rng, what, "for_each")
            if not isinstance(coll, SetValue):
                diags.error(
                    "Invalid for_each argument",
                    detail="for_each needs a map, or a set of strings, and this is a list: its order and "
                           "duplicates would not give stable instance keys. Convert it with toset([...]).",
                    range=for_each.expr.rng,
                )
                return "for_each", []
            if not all(isinstance(x, str) for x in coll):
                diags.error(
                    "Invalid for_each argument",
                    detail="for_each needs a map, or a set of strings (use toset([...]) for a list of strings).",
                    range=for_each.expr.rng,
                )
                return "for_each", []
            return "for_each", [(k, {"each": {"key": k, "value": k}}) for k in sorted(set(coll))]
        diags.error(
            "Invalid for_each argument",
            detail=f"for_each needs a map or a set of strings, not {'null' if coll is None or isinstance(coll, Null) else type(coll).__name__}.",
            range=for_each.expr.rng,
        )
        return "for_each", []
    return "single", [(None, None)]

def _too_many(diags: Diagnostics, n: int, rng: SourceRange, what: str, arg: str) -> bool:
    """More instances than ``CTL_MAX_INSTANCES`` allows: an error now, not minutes of silence."""
    limit = max_instances()
    if n <= limit:
        return False
    diags.error(
        f"Too many instances for {arg}",
        detail=f"{what} would have {n:,} instances; ctl allows at most {limit:,} per resource, data source "
               f"or module call.",
        hint=f"If that many are really meant, raise the limit with {MAX_INSTANCES_ENV}={n}.",
        range=rng,
    )
    return True

def _unknown_expansion(diags: Diagnostics, plan_mode: bool, rng: SourceRange, what: str, arg: str) -> list[tuple[Key, dict[str, Any] | None]]:
    if plan_mode:
        diags.error(
            f"Invalid {arg} argument",
            detail=f'The "{arg}" of {what} depends on values that cannot be known until apply, so ctl '
                   "cannot tell how many instances to plan.",
            hint="Apply the resources it depends on first with --target, or derive it from variables.",
            range=rng,
        )
        return []
    binding = {"count": {"index": UNKNOWN}} if arg == "count" else {"each": {"key": UNKNOWN, "value": UNKNOWN}}
    return [(UNKNOWN_KEY, binding)]


def _eval(diags: Diagnostics, expr: ast.Expr, ctx: EvalContext) -> Any:
    try:
        return evaluate(expr, ctx)
    except CtlError as err:
        diags.add(err)
        return UNKNOWN
