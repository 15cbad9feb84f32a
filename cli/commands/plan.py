"""``ctl plan``: show what apply would change, optionally saving the plan for a later apply."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli import ci_summary, output, progress
from cli.interrupts import stop_providers_on_interrupt
from cli.lifetime import keep_until_exit
from cli.options import run_flags
from cli.options.globals import options
from cli.views import json_ui
from cli.views import timings as timings_view
from cli.views.run import report_recovery, show_plan, show_policy
from vocab.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from adapters.registry import Registry
    from engine.operations import Planned

_HELP = """Show the changes that apply would make, after refreshing the state.

Exit codes: 0 success, 1 error, 2 changes present (with --detailed-exitcode), 4 lock held.

Example: ctl plan --out tfplan && ctl apply tfplan
"""


def register(app: typer.Typer) -> None:
    app.command("plan", help=_HELP)(plan_command)


@run_flags.shared_run_flags(lock_default=False, lock_help="Hold the state lock while planning.",
                            refresh_help="Read real objects first (--refresh=false skips).",
                            input_help="Ask for missing variables (--input=false never asks).")
def plan_command(
    ctx: typer.Context,
    out: Path = typer.Option(None, "--out", help="Save the plan to this file for `ctl apply FILE`."),
    destroy: bool = typer.Option(False, "--destroy", help="Plan to destroy everything in the state."),
    refresh_only: bool = typer.Option(False, "--refresh-only", help="Only record changes made outside ctl."),
    detailed_exitcode: bool = typer.Option(False, "--detailed-exitcode", help="Exit 2 when there are changes."),
    json_out: bool = typer.Option(False, "--json", help="Stream Terraform's machine-readable UI (JSON lines)."),
    summary_md: Path = typer.Option(None, "--summary-md", help="Write a markdown summary (for a PR comment)."),
    generate_config_out: Path = typer.Option(
        None, "--generate-config-out", metavar="FILE",
        help="Write resource blocks for import targets the configuration lacks into FILE (a new .tf file), "
             "then plan with them."),
    flags: run_flags.RunFlags = run_flags.SHARED,
) -> int:
    from engine.operations import plan_only
    from engine.plan.planfile import save_plan

    if destroy and refresh_only:
        raise UsageError("--destroy and --refresh-only cannot be combined")
    opts = options(ctx)
    ui = json_ui.start() if json_out else None  # first, so the version line comes first
    view = ui or progress.for_terminal()
    if ui is not None:
        flags.input_ = False  # a prompt would corrupt the JSON stream
    mode = "destroy" if destroy else ("refresh-only" if refresh_only else "normal")
    run = flags.run_options(opts.root, mode=mode, take_lock=flags.lock)
    run.plan.read_as_document = out is not None
    # Generating configuration reads the providers' schemas: the plan then uses the same registry.
    registry = _generate(run, generate_config_out, quiet=ui is not None) if generate_config_out is not None else None
    color = output.color_enabled(__import__("sys").stdout)
    con = output.stdout()

    def on_recovery(rec: object) -> None:
        view.close()
        report_recovery(rec)

    def on_plan(result: Any) -> None:
        show_plan(result, ui, con, color=color, full=flags.full_plan)

    def on_policy(outcome: Any) -> None:
        show_policy(outcome, ui)

    restore = stop_providers_on_interrupt()
    ended: list[Any] = []  # the timing report, once the run's progress has ended

    def end_progress() -> Any:
        """Once per run, whether the plan was made or not: the progress view closed, the timings shown."""
        if not ended:
            restore()
            view.close()
            ended.append(timings_view.report_of(run.plan.timings))
            timings_view.show(ended[0], ui)
            timings_view.finish_trace(run.plan.timings, "plan")
        return ended[0]

    def on_planned(planned: Planned) -> None:
        """What a made plan leaves behind, denied or not: the engine refuses a denied plan after this."""
        timings = end_progress()
        keep_until_exit(planned)
        plan = planned.plan
        ci_summary.after_plan(plan, summary_md, timings)
        if out is None:
            return
        denied = planned.policy is not None and planned.policy.denied
        # A denied plan is saved too, its verdict inside: CI can publish it, `ctl show` it, and check it
        # again with `ctl policy check` once an exception is granted; `ctl apply` re-checks and refuses it.
        save_plan(plan, out if out.is_absolute() else Path.cwd() / out, var_args=run.plan.var_args)
        if ui is None and denied:
            con.print(f"\nSaved the denied plan to: {out} (`ctl show {out}` shows it; `ctl apply {out}` "
                      "refuses it while the policies deny it)")
        elif ui is None:
            con.print(f"\nSaved the plan to: {out}\n\nTo perform exactly these actions, run:\n  ctl apply {out}")

    try:
        planned = plan_only(run, registry, events=view, on_recovery=on_recovery, on_plan=on_plan, on_policy=on_policy,
                            on_planned=on_planned)
    finally:
        end_progress()
    if detailed_exitcode and planned.plan.has_changes:
        return int(ExitCode.CHANGES_PRESENT)
    return int(ExitCode.OK)


def _generate(run: Any, out: Path, *, quiet: bool) -> Registry:
    """Write the missing resource blocks; the registry it read the providers' schemas into, for the plan."""
    from engine.plan.generate_config import generate
    from engine.plugins.registry import registry_for

    target = out if out.is_absolute() else Path.cwd() / out
    p = run.plan
    registry = registry_for(run.root)
    written = generate(run.root, target, var_args=p.var_args, environ=p.environ, prompt=p.prompt,
                       workspace=p.workspace, registry=registry)
    if written and not quiet:
        output.warn(f"Config generation is experimental: review {out} ({', '.join(written)}) before applying.")
    return registry


