"""Showing the timing report of ``--timings``: a table after the run, or a JSON UI message.

The report goes to standard error in text mode: it describes the run, not its result, so a script
reading the plan from standard output is not disturbed by asking for it. In the JSON UI it is one
``timings`` message, written as soon as the run's work is over.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.telemetry.timings import TimingReport, Timings


def report_of(timings: Timings | None) -> TimingReport | None:
    """The report, taken once when the run is over (None when timings were not asked for)."""
    return timings.report() if timings is not None and timings.report_wanted else None


def finish_trace(timings: Timings | None, command: str, *, failure: tuple[str, str] | None = None) -> None:
    """Export the run's trace when the OTEL_* variables ask for one; a failure is one warning.

    Called in a ``finally`` clause: the exception under way, if any, marks the trace as failed, as
    ``failure`` (its kind and short message) does for a run that failed without one.
    """
    from engine.telemetry.tracing import finish

    problem = finish(timings, command, error=sys.exc_info()[1], failure=failure)
    if problem is not None:
        from cli import output

        output.warn(problem)


def apply_failure(result: Any) -> tuple[str, str] | None:
    """An apply whose operations failed, as the trace's root span says it: its kind and which failed.

    Addresses only: each failed step's own span carries its message.
    """
    if result is None or not result.failed:
        return None
    failed = sorted(result.failed)
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    return "ApplyFailed", f"{len(failed)} operation{'s' if len(failed) > 1 else ''} failed: {', '.join(failed[:3])}{more}"


def show(report: TimingReport | None, ui: Any) -> None:
    """Print the report as a table on standard error, or emit it as the JSON UI's ``timings`` message."""
    if report is None:
        return
    if ui is not None:
        ui.emit("timings", f"Run took {report.total:.3f}s", timings=report.to_json())
        return
    sys.stderr.write("\n" + "\n".join(report.lines()) + "\n")
    sys.stderr.flush()
