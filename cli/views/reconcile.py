"""A reconcile round as one line of JSON on stdout (and its error, for a person, on stderr).

The line is public API (docs/drift.md): fields are only ever added, never renamed or dropped, so a
log pipeline or an alerting rule written against it keeps working.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from cli import output

if TYPE_CHECKING:
    from engine.drift.reconcile import RoundReport


def round_json(number: int, stamp: str, seconds: float, report: RoundReport, delay: float | None) -> dict[str, Any]:
    """One round as its JSON object."""
    err = report.error
    return {
        "type": "reconcile_round",
        "round": number,
        "timestamp": stamp,
        "workspace": report.workspace,
        "outcome": report.outcome,
        "exit_code": int(report.exit_code),
        "duration_seconds": round(seconds, 3),
        "drifted": [o.address for o in report.drifted],
        "changes": report.changes,
        "applied": report.applied,
        "allowed_by": {a: report.allowed_by[a] for a in report.applied if a in report.allowed_by},
        "refused": [r.as_json() for r in report.refused],
        "failed": report.failed,
        "recovered": report.recovered,
        "error": None if err is None else {"message": str(err), "hint": err.hint, "exit_code": int(err.exit_code)},
        "next_round_seconds": delay,
    }


def print_round(number: int, stamp: str, seconds: float, report: RoundReport, delay: float | None) -> None:
    if report.error is not None:
        output.print_error(report.error)  # the same error for a person reading the log, on stderr
    sys.stdout.write(json.dumps(round_json(number, stamp, seconds, report, delay), ensure_ascii=False) + "\n")
    sys.stdout.flush()


__all__ = ["print_round", "round_json"]
