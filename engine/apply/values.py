"""Values an apply operation hands to adapters and takes back: what is known, what stays secret."""

from __future__ import annotations

from typing import Any

from engine.plan.model import CREATE, READ, UPDATE, ResourceChange
from engine.state.journal import planned_identity
from vocab.values import Marked, Unknown, unmark


def op_of(change: ResourceChange) -> str:
    if change.mode == "data":
        return READ
    if CREATE in change.actions:
        return CREATE
    return UPDATE


def identity(change: ResourceChange) -> Any:
    """What the adapter can look for after a crash: the known arguments of the planned object."""
    return planned_identity(change.after if change.after is not None else change.before)


def known(planned: dict[str, Any]) -> dict[str, Any]:
    """Computed attributes still unknown are left for the adapter to fill in (as None)."""
    return {k: (None if isinstance(unmark(v)[0], Unknown) else v) for k, v in planned.items()}


def remark(result: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
    """Secrets that were marked in the planned arguments stay marked in the result."""
    out = result  # copied at the first secret to mark: most results have none
    for k, v in planned.items():
        if isinstance(v, Marked) and k in out and not isinstance(out[k], Marked):
            if out is result:
                out = dict(result)
            out[k] = Marked(out[k], v.marks)
    return out
