"""What plan and apply print around a plan: recovery notes, the plan itself, the policy verdict."""

from __future__ import annotations

from typing import Any

from cli import output
from cli.views.policy import print_outcome


def report_recovery(rec: object) -> None:
    """Tell the user about a journal left behind by an interrupted apply, and what became of it."""
    from engine.recovery import Recovery, describe

    assert isinstance(rec, Recovery)
    if rec.replayed:
        output.warn("Recovered the results of an interrupted apply from its journal.")
    for line in describe(rec):
        output.warn(line)


def show_plan(result: Any, ui: Any, con: Any, *, color: bool, full: bool) -> None:
    """A computed plan, as plan and apply show it: warnings, then the drift and the changes (or the
    machine-readable view's events). A terminal shows a very large plan's first changes in full
    and counts the rest, unless ``full`` (``--full-plan``)."""
    from cli.views.plan import plan_lines, render_drift
    from cli.views.plan_summary import TERMINAL_LIMIT

    output.print_diagnostics(result.diags.warnings())
    if ui is not None:
        ui.plan(result.plan)
        return
    if result.plan.drift:
        output.write_rendered(con, render_drift(result.plan.drift, color=color))
    terminal = bool(getattr(con.file, "isatty", lambda: False)())
    limit = TERMINAL_LIMIT if terminal and not full else None
    output.write_lines(con, plan_lines(result.plan, color=color, limit=limit))


def show_policy(outcome: Any, ui: Any) -> None:
    """The policy gate's verdict on a plan, in text or as the machine-readable view's event."""
    if ui is None:
        print_outcome(outcome)
    else:
        ui.policy(outcome.results_json())
