"""The tables a summary shows for a plan: its changes, the drift found, the policy results.

Only addresses, actions and policy messages go into them, never values, so no secret can leak into
a summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.ci_summary.document import Table
from cli.ci_summary.text import ACTION_LABELS, STATUS_LABELS, cell, code

if TYPE_CHECKING:
    from engine.telemetry.timings import TimingReport


def action_of(change: Any) -> str | None:
    from cli.views.json_ui import change_action

    return change_action(tuple(change.actions), change.previous_address)


def change_rows(changes: list[Any]) -> list[list[str]]:
    rows = []
    for c in changes:
        action = action_of(c)
        if action is None:
            continue
        note = f"moved from {code(c.previous_address)}" if c.previous_address else cell(_reason(c))
        rows.append([ACTION_LABELS.get(action, action), code(c.address), note])
    return rows


def _reason(c: Any) -> str:
    from cli.views.json_ui import CHANGE_REASONS

    reason = c.action_reason or ""
    return CHANGE_REASONS.get(reason, reason).replace("_", " ")


def drift_table(plan: Any) -> Table | None:
    if not plan.drift:
        return None
    rows = [[ACTION_LABELS.get(action_of(c) or "update", "update"), code(c.address)] for c in plan.drift]
    return Table("Changed outside ctl", ["Change", "Resource"], rows)


def policy_table(plan: Any) -> Table | None:
    results = list(getattr(plan, "policy_results", None) or [])
    if not results:
        return None
    counts: dict[str, int] = {}
    for r in results:
        status = str(r.get("status", "advisory"))
        counts[status] = counts.get(status, 0) + 1
    intro = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    if getattr(plan, "policy_override", None):
        intro += f" (override: {cell(plan.policy_override)})"
    rows = []
    for r in results:
        status = str(r.get("status", ""))
        where = code(str(r["address"])) if r.get("address") else ""
        rule = r.get("rule") or r.get("policy") or ""
        rows.append([STATUS_LABELS.get(status, cell(status)), cell(r.get("level", "")), code(str(rule)) if rule else "",
                     where, cell(r.get("message", ""))])
    return Table("Policy results", ["Status", "Level", "Rule", "Resource", "Message"], rows, intro=intro)


def summary_table(report: TimingReport) -> Table:
    """The report as a table of the CI job summary."""
    rows = [[code(what) if kind not in ("phase", "wait") else what, kind, f"{seconds:.3f}s"]
            for what, kind, seconds in report.rows()]
    return Table("Timings", ["What", "Kind", "Wall time"], rows,
                 intro=f"The run took {report.total:.3f}s; the slowest resource steps are listed.")
