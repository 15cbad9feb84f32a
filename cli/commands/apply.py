"""``ctl apply`` and ``ctl destroy``: make the planned changes, concurrently, without losing any."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import typer

from cli import ci_summary, output, progress
from cli.common import input_enabled
from cli.interrupts import install_stop_signals
from cli.lifetime import keep_until_exit
from cli.options import run_flags
from cli.options.globals import options
from cli.views import json_ui
from cli.views import timings as timings_view
from cli.views.run import report_recovery, show_plan, show_policy
from vocab.errors import CtlError, Diagnostic, ExitCode, UsageError

_APPLY_HELP = """Make the changes of a plan: plan now and ask for confirmation, or apply a saved plan.

A saved plan applies without a prompt; it is refused when the state or configuration changed since.
Ctrl-C once: start nothing new, finish running operations, save state, exit 130. Twice: stop waiting.

Example: ctl apply --auto-approve
"""
_DESTROY_HELP = """Destroy every object this configuration manages (same options as apply).

Example: ctl destroy --auto-approve
"""

_JSON_HELP = "Stream Terraform's machine-readable UI (JSON lines); needs --auto-approve or a plan file."


_REFRESH_HELP = """Update the state to match the real objects, changing none of them (Terraform's refresh).

The same as ctl apply --refresh-only --auto-approve: no confirmation is asked. To see what would
be recorded first, run ctl plan --refresh-only.

Example: ctl refresh
"""


def register(app: typer.Typer) -> None:
    app.command("apply", help=_APPLY_HELP)(apply_command)
    app.command("destroy", help=_DESTROY_HELP)(destroy_command)
    app.command("refresh", help=_REFRESH_HELP)(refresh_command)


@run_flags.shared_run_flags()
def apply_command(
    ctx: typer.Context,
    planfile: Path = typer.Argument(None, help="A plan saved with `ctl plan --out`."),
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Skip the confirmation prompt."),
    destroy: bool = typer.Option(False, "--destroy", help="Destroy everything (like ctl destroy)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
    refresh_only: bool = typer.Option(False, "--refresh-only", help="Only record changes made outside ctl."),
    flags: run_flags.RunFlags = run_flags.SHARED,
) -> int:
    mode = "destroy" if destroy else ("refresh-only" if refresh_only else "normal")
    return _run(ctx, planfile, mode, auto_approve, flags, json_out=json_out)


@run_flags.shared_run_flags(replace=False)
def destroy_command(
    ctx: typer.Context,
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Skip the confirmation prompt."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
    flags: run_flags.RunFlags = run_flags.SHARED,
) -> int:
    return _run(ctx, None, "destroy", auto_approve, flags, json_out=json_out)


@run_flags.shared_run_flags(replace=False, refresh_help="Accepted for Terraform's command line; reading the "
                                                      "real objects is what refresh does (--refresh=false is refused).")
def refresh_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Stream Terraform's machine-readable UI (JSON lines)."),
    flags: run_flags.RunFlags = run_flags.SHARED,
) -> int:
    if not flags.refresh:
        raise UsageError("refresh cannot skip reading the real objects (--refresh=false)",
                         hint="Leave out --refresh=false.")
    return _run(ctx, None, "refresh-only", True, flags, json_out=json_out)


def _run(ctx: typer.Context, planfile: Path | None, mode: str, auto_approve: bool, flags: run_flags.RunFlags,
         *, json_out: bool) -> int:
    from engine.operations import apply_run, exit_code_for

    policy = flags.policy_options()  # a usage error comes before anything is shown
    opts = options(ctx)
    ui = json_ui.start() if json_out else None  # first, so the version line comes first
    if ui is not None:
        json_ui.require_approval_source(auto_approve, planfile)
    view = ui or progress.for_terminal()
    if ui is not None:
        flags.input_ = False  # a prompt would corrupt the JSON stream
    run = flags.run_options(opts.root, mode=mode, take_lock=True, policy=policy)
    color = output.color_enabled(sys.stdout)
    con = output.stdout()
    interactive = input_enabled(flags.input_)

    def on_plan(result: Any) -> None:
        view.end_phase()
        show_plan(result, ui, con, color=color, full=flags.full_plan)

    def on_policy(outcome: Any) -> None:
        show_policy(outcome, ui)

    def confirm(plan: Any) -> bool:
        if auto_approve:
            return True
        if not interactive:
            raise CtlError(
                "Apply needs confirmation, but input is disabled",
                hint="Run with --auto-approve, or save a plan with `ctl plan --out FILE` and `ctl apply FILE`.",
            )
        what = "destroy all resources" if mode == "destroy" else "perform these actions"
        con.print(f"\nDo you want to {what}?\n  Only 'yes' will be accepted to approve.\n")
        answer: str = typer.prompt("  Enter a value", default="", show_default=False)
        return answer.strip() == "yes"

    stop, abandon = threading.Event(), threading.Event()
    restore = install_stop_signals(
        stop, abandon,
        first=lambda _name: ("\nInterrupt received: waiting for running operations to finish "
                             "(interrupt again to stop waiting).\n"),
        second="\nSecond interrupt: no longer waiting for running operations; saving state.\n")
    started = time.monotonic()
    result = None
    try:
        _plan, result = apply_run(run, saved_plan=planfile, confirm=confirm, events=view,
                                 stop=stop, abandon=abandon, on_plan=on_plan,
                                 on_recovery=report_recovery, on_policy=on_policy)
    finally:
        restore()
        view.close()
        timings = timings_view.report_of(run.plan.timings)
        timings_view.show(timings, ui)
        timings_view.finish_trace(run.plan.timings, mode if mode != "normal" else "apply",
                                  failure=timings_view.apply_failure(result))
    keep_until_exit(_plan, result)
    ci_summary.after_apply(_plan, result, mode, timings)
    if result is None:
        if ui is not None:
            ui.apply_done(mode, None, _plan.prior_state)
        return int(ExitCode.OK)
    report_failures(result)
    for addr, blocker in sorted(result.skipped.items()):
        output.warn(f"{addr} was not applied because {blocker[1] if isinstance(blocker, tuple) else blocker} failed.")
    if ui is not None:
        ui.apply_done(mode, result, result.state)
        return int(exit_code_for(result))
    c = result.counts
    elapsed = time.monotonic() - started
    if result.interrupted:
        output.warn("Apply interrupted: the state records every operation that finished.")
    elif result.ok:
        verb = "Destroy" if mode == "destroy" else "Apply"
        imported = sum(1 for ch in _plan.changes if ch.importing_id) if _plan is not None else 0
        adopted = f"{imported} imported, " if imported else ""
        con.print(f"\n[bold green]{verb} complete![/] Resources: {adopted}{c['add']} added, {c['change']} changed, "
                  f"{c['destroy']} destroyed. ({elapsed:.1f}s)")
    else:
        failed = "Destroy failed." if mode == "destroy" else "Apply failed."
        con.print(f"\n[bold red]{failed}[/] Resources: {c['add']} added, {c['change']} changed, "
                  f"{c['destroy']} destroyed; {len(result.failed)} failed, {len(result.skipped)} not attempted.")
    if result.ok and result.state.outputs and mode != "destroy":
        from cli.views.outputs import render_outputs

        con.print("\nOutputs:\n")
        output.write_rendered(con, render_outputs(result.state))
    return int(exit_code_for(result))


def report_failures(result: Any) -> None:
    """Each failed operation's error once, then the run's other diagnostics.

    An operation that made its object and then failed (a postcondition, a provider's partial
    result) is both a failure and a diagnostic of the run; it is shown once, as the failure.
    """
    shown: list[Diagnostic] = []
    for addr, exc in result.failed.items():
        err = exc if isinstance(exc, CtlError) else CtlError(f"{addr}: {exc}", address=addr)
        output.print_error(err)
        shown.extend(err.diagnostics())
    output.print_diagnostics([d for d in result.diags.items if d not in shown])
