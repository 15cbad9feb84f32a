"""The summary of an apply or destroy: its outcome, counts, and what happened to each planned change."""

from __future__ import annotations

from typing import Any

from cli.ci_summary.document import Document, Table
from cli.ci_summary.tables import action_of, policy_table
from cli.ci_summary.text import ACTION_LABELS, cell, code


def apply_document(plan: Any, result: Any, mode: str) -> Document:
    """The summary of an apply: the outcome, counts, and what happened to each planned change."""
    verb = "destroy" if mode == "destroy" else "apply"
    if result is None:
        return Document(f"ctl {verb}: no changes", ["Nothing to do: the infrastructure matches the configuration."])
    c = result.counts
    counts = f"{c['add']} added, {c['change']} changed, {c['destroy']} destroyed"
    if result.interrupted:
        outcome = "⚠️ interrupted"
    elif result.ok:
        outcome = "✅ complete"
    else:
        outcome = "❌ failed"
    title = f"ctl {verb} {outcome}: {counts}"
    lines = [f"Workspace {code(getattr(plan, 'workspace', 'default'))}"]
    if result.failed or result.skipped:
        lines.append(f"{len(result.failed)} failed, {len(result.skipped)} not attempted.")
    doc = Document(title, lines)
    applied = set(result.applied)
    cancelled = set(getattr(result, "cancelled", []) or [])
    rows = []
    for ch in plan.changes:
        action = action_of(ch)
        if action is None:
            continue
        if ch.address in result.failed:
            status, note = "❌ failed", cell(_first_line(result.failed[ch.address]))
        elif ch.address in result.skipped:
            blocker = result.skipped[ch.address]
            status, note = "⏭️ not attempted", f"{code(str(blocker))} failed"
        elif ch.address in cancelled:
            status, note = "⏹️ cancelled", ""
        elif ch.address in applied or action == "move":
            status, note = "✅ done", ""
        else:
            status, note = "⏹️ not run", ""
        rows.append([status, ACTION_LABELS.get(action, action), code(ch.address), note])
    if rows:
        doc.tables.append(Table("Changes", ["Result", "Action", "Resource", "Note"], rows))
    policy = policy_table(plan)
    if policy is not None:
        doc.tables.append(policy)
    return doc


def _first_line(exc: object) -> str:
    text = str(getattr(exc, "summary", None) or exc)
    return text.splitlines()[0] if text else ""
