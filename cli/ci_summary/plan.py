"""The summary of a plan: its counts, the changes, drift, changed outputs and policy results."""

from __future__ import annotations

from typing import Any

from cli.ci_summary.document import Document, Table
from cli.ci_summary.tables import change_rows, drift_table, policy_table
from cli.ci_summary.text import ACTION_LABELS, code


def plan_document(plan: Any) -> Document:
    """The summary of a plan: counts, the changes, drift, changed outputs, policy results."""
    add, change, destroy = plan.counts()
    workspace = getattr(plan, "workspace", "default")
    mode = getattr(plan, "mode", "normal")
    if not plan.has_changes:
        title = "ctl plan: no changes"
    else:
        title = f"ctl plan: {add} to add, {change} to change, {destroy} to destroy"
    lines = [f"Workspace {code(workspace)}" + ("" if mode == "normal" else f" · {mode} plan")]
    if not plan.has_changes:
        lines.append("Your infrastructure matches the configuration.")
    doc = Document(title, lines)
    rows = change_rows(plan.changes)
    if rows:
        doc.tables.append(Table("Changes", ["Action", "Resource", "Note"], rows))
    drift = drift_table(plan)
    if drift is not None:
        doc.tables.append(drift)
    outs = [[ACTION_LABELS.get(a, a), code(name)] for name, oc in sorted(plan.outputs.items())
            if (a := _output_action(oc)) is not None]
    if outs:
        doc.tables.append(Table("Outputs", ["Action", "Output"], outs))
    policy = policy_table(plan)
    if policy is not None:
        doc.tables.append(policy)
    return doc


def _output_action(oc: Any) -> str | None:
    from cli.views.json_ui import change_action

    return change_action(tuple(oc.actions))
