"""``ctl plan``: show what apply would change, optionally saving the plan for a later apply."""

from __future__ import annotations

from pathlib import Path

import typer

from cli import ci_summary, json_ui, output, progress, run_options
from cli.common import VAR_FILE_HELP, VAR_HELP
from cli.completion import complete_addresses, complete_instances
from cli.global_options import options
from engine.errors import ExitCode, UsageError

_HELP = """Show the changes that apply would make, after refreshing the state.

Exit codes: 0 success, 1 error, 2 changes present (with --detailed-exitcode), 4 lock held.

Example: ctl plan --out tfplan && ctl apply tfplan
"""


def register(app: typer.Typer) -> None:
    app.command("plan", help=_HELP)(plan_command)


def plan_command(
    ctx: typer.Context,
    out: Path = typer.Option(None, "--out", help="Save the plan to this file for `ctl apply FILE`."),
    destroy: bool = typer.Option(False, "--destroy", help="Plan to destroy everything in the state."),
    refresh_only: bool = typer.Option(False, "--refresh-only", help="Only record changes made outside ctl."),
    refresh: bool = typer.Option(True, "--refresh/--no-refresh", help="Read real objects first (--refresh=false skips)."),
    target: list[str] = typer.Option(None, "--target", help=run_options.TARGET_HELP,
                                    autocompletion=complete_addresses),
    exclude: list[str] = typer.Option(None, "--exclude", help=run_options.EXCLUDE_HELP,
                                     autocompletion=complete_addresses),
    replace: list[str] = typer.Option(None, "--replace", help=run_options.REPLACE_HELP,
                                     autocompletion=complete_instances),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    detailed_exitcode: bool = typer.Option(False, "--detailed-exitcode", help="Exit 2 when there are changes."),
    json_out: bool = typer.Option(False, "--json", help="Stream Terraform's machine-readable UI (JSON lines)."),
    summary_md: Path = typer.Option(None, "--summary-md", help="Write a markdown summary (for a PR comment)."),
    lock: bool = typer.Option(False, "--lock/--no-lock", help="Hold the state lock while planning."),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP),
    parallelism: int = typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP),
    input_: bool = typer.Option(None, "--input/--no-input", help="Ask for missing variables (--input=false never asks)."),
    policy_dir: list[Path] = typer.Option(None, "--policy-dir", help="Also check the policies in this directory."),
    no_builtin_policies: bool = typer.Option(False, "--no-builtin-policies", help="Skip the built-in policy pack."),
    policy_override: str = typer.Option(None, "--policy-override", help='Accept soft-mandatory failures: "reason".'),
) -> int:
    from cli.render_plan import render_drift, render_plan
    from engine.operations import plan_only
    from engine.plan.planfile import save_plan

    if destroy and refresh_only:
        raise UsageError("--destroy and --refresh-only cannot be combined")
    opts = options(ctx)
    ui = json_ui.start() if json_out else None  # first, so the version line comes first
    view = ui or progress.for_terminal()
    input_ = False if ui is not None else input_  # a prompt would corrupt the JSON stream
    mode = "destroy" if destroy else ("refresh-only" if refresh_only else "normal")
    run = run_options.build(opts.root, mode=mode, refresh=refresh, targets=target, excludes=exclude,
                            replace=replace, var=var, var_file=var_file, input_flag=input_, lock=lock,
                            lock_timeout_text=lock_timeout, parallelism_value=parallelism, take_lock=lock)
    try:
        result, rec = plan_only(run, events=view)
    finally:
        view.close()
    report_recovery(rec)
    plan = result.plan
    output.print_diagnostics(result.diags.warnings())
    color = output.color_enabled(__import__("sys").stdout)
    con = output.stdout()
    if ui is not None:
        ui.plan(plan)
    else:
        if plan.drift:
            con.out(render_drift(plan.drift, color=color), highlight=False)
        con.out(render_plan(plan, color=color), highlight=False)
    from cli.policy_cmd import enforce, gate_options, print_outcome
    from policies.gate import check_plan

    outcome = check_plan(plan, opts.root, gate_options(policy_dir, no_builtin_policies, policy_override))
    if ui is None:
        print_outcome(outcome)
    plan.policy_results = outcome.results_json()
    plan.policy_override = outcome.override if outcome.override_used else None
    if ui is not None:
        ui.policy(plan.policy_results)
    ci_summary.after_plan(plan, summary_md)
    enforce(outcome)
    if out is not None:
        save_plan(plan, out if out.is_absolute() else Path.cwd() / out)
        if ui is None:
            con.print(f"\nSaved the plan to: {out}\n\nTo perform exactly these actions, run:\n  ctl apply {out}")
    if detailed_exitcode and plan.has_changes:
        return int(ExitCode.CHANGES_PRESENT)
    return int(ExitCode.OK)


def report_recovery(rec: object) -> None:
    """Tell the user about a journal left behind by an interrupted apply, and what became of it."""
    from engine.recovery import Recovery, describe

    assert isinstance(rec, Recovery)
    if rec.replayed:
        output.warn("Recovered the results of an interrupted apply from its journal.")
    for line in describe(rec):
        output.warn(line)
