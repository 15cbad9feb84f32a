"""The policy gate's verdict as people read it: after a plan, and from ``ctl policy check``."""

from __future__ import annotations

from typing import Any

from cli import output


def print_outcome(outcome: Any) -> None:
    """The human view of a policy check, after a plan (stdout), with the override on stderr."""
    from policies.report import render_text

    if not outcome.rules and not outcome.findings:
        return
    con = output.stdout()
    con.out("\nPolicy check:", highlight=False)
    con.out(render_text(outcome).rstrip("\n"), highlight=False)
    if outcome.override_used:
        output.warn(f"Soft-mandatory policy failures overridden: {outcome.override}")
