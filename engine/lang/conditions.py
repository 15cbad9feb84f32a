"""Evaluating one ``condition``/``error_message`` pair: validations, pre- and postconditions, checks.

Every kind of rule asks the same question (does the condition hold, and if not, what does its
message say) and differs only in what a failure means: an error for a validation or a
precondition, a warning for a ``check`` assertion. The answer is computed here once.
"""

from __future__ import annotations

from typing import Any

from engine.lang.eval import EvalContext, evaluate
from vocab.errors import CtlError
from vocab.redact import condition_message
from vocab.values import contains_unknown, unmark

UNREADABLE_MESSAGE = "(error_message could not be evaluated)"


def failed_condition(rule: Any, ctx: EvalContext) -> str | None:
    """The error message of a rule whose condition is false; None when it holds or is unknown yet.

    A condition that cannot be evaluated raises its ``CtlError``; a message that cannot be is
    replaced by a note, since the failure itself is what must be reported. Secrets in the message
    withhold it (``condition_message``).
    """
    ok, _ = unmark(evaluate(rule.condition, ctx))
    if contains_unknown(ok) or ok is True:
        return None
    try:
        return condition_message(evaluate(rule.error_message, ctx))
    except CtlError:
        return UNREADABLE_MESSAGE


__all__ = ["UNREADABLE_MESSAGE", "failed_condition"]
