"""``ctl drift``: what changed outside ctl, per attribute, for a schedule or a CI job to act on.

Exit 0 when nothing drifted, 2 when something did, 1 on an error: a cron job or a CI schedule
alerts on the code alone. ``--json`` writes one JSON object per line (docs/drift.md has the shape);
on GitHub Actions the run adds a job summary and a warning annotation per drifted object, placed on
its resource block, as ``ctl plan`` does for its problems. Values the state holds as sensitive are
never shown, in any of these.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import typer

from cli import output, progress
from cli.common import VAR_FILE_HELP, VAR_HELP
from cli.completion.completers import complete_addresses
from cli.options import run as run_options
from cli.options.globals import options
from vocab.errors import ExitCode

if TYPE_CHECKING:
    from engine.drift.run import DriftReport

drift_app = typer.Typer(
    name="drift",
    help="Report what changed outside ctl (exit 2 when something did); `ctl drift adopt` writes it into "
         "the configuration.",
    invoke_without_command=True,
    rich_markup_mode=None,
    suggest_commands=False,
)

_HELP = """Refresh and report only what changed outside ctl, attribute by attribute.

Nothing is locked and nothing is written unless --refresh-state is given: then the state records
what was seen, as `ctl apply --refresh-only` does, under the state lock.

Exit codes: 0 no drift, 1 error, 2 drift found, 4 lock held (--refresh-state).

Example: ctl drift --json | your-alerting-hook
"""


def register(app: typer.Typer) -> None:
    """Attach ``drift`` (with the subcommands ``cli.commands.drift`` imported beside it)."""
    app.add_typer(drift_app, name="drift")


@drift_app.callback(help=_HELP)
def drift_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="One JSON object per line: each drifted object, "
                                                        "then a summary (see docs/drift.md)."),
    target: list[str] = typer.Option(None, "--target", help="Report only these resources or modules "
                                                            "(repeatable).", autocompletion=complete_addresses),
    refresh_state: bool = typer.Option(False, "--refresh-state",
                                       help="Record what was seen in the state (under the state lock)."),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP),
    parallelism: int = typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP),
) -> int:
    if ctx.invoked_subcommand is not None:
        return int(ExitCode.OK)
    from engine.drift.run import run_drift

    opts = options(ctx)
    run = run_options.build(opts.root, mode="refresh-only", targets=target, var=var, var_file=var_file,
                            input_flag=False, lock=True, lock_timeout_text=lock_timeout,
                            parallelism_value=parallelism, take_lock=refresh_state)
    view = None if json_out else progress.for_terminal()
    from cli.interrupts import stop_providers_on_interrupt

    restore = stop_providers_on_interrupt()  # Ctrl-C asks the providers to stop, as plan does
    try:
        report = run_drift(run, record=refresh_state, events=view)
    finally:
        restore()
        if view is not None:
            view.close()
    if json_out:
        _print_json(report)
    else:
        _print_text(report)
    _annotate(report)
    _step_summary(report)
    return int(ExitCode.CHANGES_PRESENT if report.drifted else ExitCode.OK)


def _print_text(report: DriftReport) -> None:
    from engine.drift.detect import literal

    con = output.stdout()
    if not report.objects:
        con.print("No drift: every object matches what ctl last recorded.", markup=False, highlight=False)
        return
    n = len(report.objects)
    con.print(f"Drift: {n} object{'s' if n != 1 else ''} changed outside ctl.", markup=False, highlight=False)
    for obj in report.objects:
        con.print("", markup=False)
        if obj.action == "delete":
            con.print(f"- {obj.address}: deleted outside ctl", markup=False, highlight=False)
            continue
        con.print(f"~ {obj.address}", markup=False, highlight=False)
        for a in obj.attributes:
            before, after = (a.before, a.after) if a.sensitive else (literal(a.before), literal(a.after))
            con.print(f"    {a.name}: {before} -> {after}", markup=False, highlight=False)
        if not obj.attributes:
            con.print("    (changed, in a way no single attribute shows)", markup=False, highlight=False)
    con.print("", markup=False)
    if report.recorded:
        con.print("The state now records these values (--refresh-state).", markup=False, highlight=False)
    else:
        con.print("Nothing was written. `ctl drift adopt` writes literal values into the configuration; "
                  "`ctl apply` reverts the objects; `ctl drift --refresh-state` records them in the state.",
                  markup=False, highlight=False)


def _print_json(report: DriftReport) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = sys.stdout
    for obj in report.objects:
        out.write(json.dumps({**obj.as_json(), "timestamp": stamp}, ensure_ascii=False) + "\n")
    summary = {"type": "drift_summary", "drifted": len(report.objects),
               "deleted": sum(1 for o in report.objects if o.action == "delete"),
               "workspace": report.plan.workspace, "recorded": report.recorded, "timestamp": stamp}
    out.write(json.dumps(summary) + "\n")
    out.flush()


def _annotate(report: DriftReport) -> None:
    """A GitHub Actions warning per drifted object, on its resource block when it has one."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return
    from cli.output import _escape_data, _escape_property

    for obj in report.objects:
        names = ", ".join(a.name for a in obj.attributes)
        what = "deleted outside ctl" if obj.action == "delete" else f"changed outside ctl: {names or 'object'}"
        rng = report.where.get(obj.address)
        loc = ""
        if rng is not None:
            loc = f" file={_escape_property(rng.filename)},line={rng.start.line},col={rng.start.column},"
            loc += "title=Drift"
        else:
            loc = " title=Drift"
        sys.stderr.write(f"::warning{loc}::{_escape_data(f'{obj.address}: {what}')}\n")


def _step_summary(report: DriftReport) -> None:
    """The job summary: addresses and attribute names only, never values."""
    if not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from cli.ci_summary import append_step_summary

    append_step_summary(drift_document(report))


def drift_document(report: DriftReport) -> Any:
    from cli.ci_summary.document import Document, Table
    from cli.ci_summary.text import cell, code

    n = len(report.objects)
    title = "ctl drift: no drift" if not n else f"ctl drift: {n} object{'s' if n != 1 else ''} changed outside ctl"
    lines = [f"Workspace {code(report.plan.workspace)}"]
    if report.recorded:
        lines.append("The state now records what was seen (`--refresh-state`).")
    doc = Document(title, lines)
    if n:
        rows = [["`-` deleted" if o.action == "delete" else "`~` changed", code(o.address),
                 cell(", ".join(a.name for a in o.attributes))] for o in report.objects]
        doc.tables.append(Table("Changed outside ctl", ["Change", "Resource", "Attributes"], rows))
    return doc


__all__ = ["drift_app", "register"]
