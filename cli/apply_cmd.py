"""``ctl apply`` and ``ctl destroy``: make the planned changes, concurrently, without losing any."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import typer

from cli import ci_summary, json_ui, output, progress, run_options
from cli.common import VAR_FILE_HELP, VAR_HELP, input_enabled
from cli.completion import complete_addresses, complete_instances
from cli.global_options import options
from cli.plan_cmd import report_recovery
from engine.errors import CtlError, ExitCode

_APPLY_HELP = """Make the changes of a plan: plan now and ask for confirmation, or apply a saved plan.

A saved plan applies without a prompt; it is refused when the state or configuration changed since.
Ctrl-C once: start nothing new, finish running operations, save state, exit 130. Twice: stop waiting.

Example: ctl apply --auto-approve
"""
_DESTROY_HELP = """Destroy every object this configuration manages (same options as apply).

Example: ctl destroy --auto-approve
"""

_JSON_HELP = "Stream Terraform's machine-readable UI (JSON lines); needs --auto-approve or a plan file."


def register(app: typer.Typer) -> None:
    app.command("apply", help=_APPLY_HELP)(apply_command)
    app.command("destroy", help=_DESTROY_HELP)(destroy_command)


def apply_command(
    ctx: typer.Context,
    planfile: Path = typer.Argument(None, help="A plan saved with `ctl plan --out`."),
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Skip the confirmation prompt."),
    destroy: bool = typer.Option(False, "--destroy", help="Destroy everything (like ctl destroy)."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
    refresh_only: bool = typer.Option(False, "--refresh-only", help="Only record changes made outside ctl."),
    refresh: bool = typer.Option(True, "--refresh/--no-refresh", help="Read real objects first."),
    target: list[str] = typer.Option(None, "--target", help=run_options.TARGET_HELP,
                                    autocompletion=complete_addresses),
    exclude: list[str] = typer.Option(None, "--exclude", help=run_options.EXCLUDE_HELP,
                                     autocompletion=complete_addresses),
    replace: list[str] = typer.Option(None, "--replace", help=run_options.REPLACE_HELP,
                                     autocompletion=complete_instances),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    lock: bool = typer.Option(True, "--lock/--no-lock", help="Hold the state lock (--lock=false skips it)."),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP),
    parallelism: int = typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP),
    input_: bool = typer.Option(None, "--input/--no-input", help="Ask for missing values and confirmation."),
    policy_dir: list[Path] = typer.Option(None, "--policy-dir", help="Also check the policies in this directory."),
    no_builtin_policies: bool = typer.Option(False, "--no-builtin-policies", help="Skip the built-in policy pack."),
    policy_override: str = typer.Option(None, "--policy-override", help='Accept soft-mandatory failures: "reason".'),
) -> int:
    from cli.policy_cmd import gate_options

    policy = gate_options(policy_dir, no_builtin_policies, policy_override)
    mode = "destroy" if destroy else ("refresh-only" if refresh_only else "normal")
    return _run(ctx, planfile, mode, auto_approve, refresh, target, exclude, replace, var, var_file, lock,
                lock_timeout, parallelism, input_, policy=policy, json_out=json_out)


def destroy_command(
    ctx: typer.Context,
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Skip the confirmation prompt."),
    json_out: bool = typer.Option(False, "--json", help=_JSON_HELP),
    refresh: bool = typer.Option(True, "--refresh/--no-refresh", help="Read real objects first."),
    target: list[str] = typer.Option(None, "--target", help=run_options.TARGET_HELP,
                                    autocompletion=complete_addresses),
    exclude: list[str] = typer.Option(None, "--exclude", help=run_options.EXCLUDE_HELP,
                                     autocompletion=complete_addresses),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    lock: bool = typer.Option(True, "--lock/--no-lock", help="Hold the state lock (--lock=false skips it)."),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP),
    parallelism: int = typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP),
    input_: bool = typer.Option(None, "--input/--no-input", help="Ask for missing values and confirmation."),
    policy_dir: list[Path] = typer.Option(None, "--policy-dir", help="Also check the policies in this directory."),
    no_builtin_policies: bool = typer.Option(False, "--no-builtin-policies", help="Skip the built-in policy pack."),
    policy_override: str = typer.Option(None, "--policy-override", help='Accept soft-mandatory failures: "reason".'),
) -> int:
    from cli.policy_cmd import gate_options

    policy = gate_options(policy_dir, no_builtin_policies, policy_override)
    return _run(ctx, None, "destroy", auto_approve, refresh, target, exclude, None, var, var_file, lock,
                lock_timeout, parallelism, input_, policy=policy, json_out=json_out)


def _run(ctx: typer.Context, planfile: Path | None, mode: str, auto_approve: bool, refresh: bool,
         target: list[str] | None, exclude: list[str] | None, replace: list[str] | None, var: list[str] | None,
         var_file: list[str] | None, lock: bool, lock_timeout: str | None, parallelism: int | None,
         input_: bool | None, policy: Any = None, json_out: bool = False) -> int:
    from cli.policy_cmd import enforce, print_outcome
    from cli.render_plan import render_drift, render_plan
    from engine.operations import apply_run, exit_code_for
    from policies.gate import check_plan

    opts = options(ctx)
    ui = json_ui.start() if json_out else None  # first, so the version line comes first
    if ui is not None:
        json_ui.require_approval_source(auto_approve, planfile)
    view = ui or progress.for_terminal()
    input_ = False if ui is not None else input_  # a prompt would corrupt the JSON stream
    run = run_options.build(opts.root, mode=mode, refresh=refresh, targets=target, excludes=exclude,
                            replace=replace, var=var, var_file=var_file, input_flag=input_, lock=lock,
                            lock_timeout_text=lock_timeout, parallelism_value=parallelism, take_lock=True)
    color = output.color_enabled(sys.stdout)
    con = output.stdout()
    interactive = input_enabled(input_)

    def on_plan(result: Any) -> None:
        view.end_phase()
        output.print_diagnostics(result.diags.warnings())
        if ui is not None:
            ui.plan(result.plan)
        else:
            if result.plan.drift:
                con.out(render_drift(result.plan.drift, color=color), highlight=False)
            con.out(render_plan(result.plan, color=color), highlight=False)
        if policy is not None:
            checked = check_plan(result.plan, opts.root, policy)
            result.plan.policy_results = checked.results_json()  # for the job summary
            if ui is None:
                print_outcome(checked)
            else:
                ui.policy(result.plan.policy_results)
            enforce(checked)
            if checked.override_used:
                run.policy_override = checked.override

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
        answer = typer.prompt("  Enter a value", default="", show_default=False)
        return answer.strip() == "yes"

    if planfile is not None and policy is not None:  # policies may have changed since the plan
        from engine.plan.planfile import load_plan

        saved = load_plan(planfile)
        if policy.override is None:
            policy.override = saved.policy_override
        checked = check_plan(saved, opts.root, policy)
        if ui is None:
            print_outcome(checked)
        else:
            ui.policy(checked.results_json())
        enforce(checked)
        if checked.override_used:
            run.policy_override = checked.override
    stop, abandon = threading.Event(), threading.Event()
    restore = _install_signals(stop, abandon)
    started = time.monotonic()
    try:
        _plan, result = apply_run(run, saved_plan=planfile, confirm=confirm, events=view,
                                 stop=stop, abandon=abandon, on_plan=on_plan,
                                 on_recovery=report_recovery)
    finally:
        restore()
        view.close()
    ci_summary.after_apply(_plan, result, mode)
    if result is None:
        if ui is not None:
            ui.apply_done(mode, None, _plan.prior_state)
        return int(ExitCode.OK)
    for addr, exc in result.failed.items():
        output.print_error(exc if isinstance(exc, CtlError) else CtlError(f"{addr}: {exc}", address=addr))
    output.print_diagnostics(result.diags.errors())
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
        con.print(f"\n[bold green]{verb} complete![/] Resources: {c['add']} added, {c['change']} changed, "
                  f"{c['destroy']} destroyed. ({elapsed:.1f}s)")
    else:
        con.print(f"\n[bold red]Apply failed.[/] Resources: {c['add']} added, {c['change']} changed, "
                  f"{c['destroy']} destroyed; {len(result.failed)} failed, {len(result.skipped)} not attempted.")
    if result.ok and result.state.outputs and mode != "destroy":
        from cli.output_cmd import render_outputs

        con.print("\nOutputs:\n")
        con.out(render_outputs(result.state), highlight=False)
    return int(exit_code_for(result))


def _install_signals(stop: threading.Event, abandon: threading.Event) -> Any:
    """First SIGINT/SIGTERM: start nothing new. Second: stop waiting for running operations."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            abandon.set()
            sys.stderr.write("\nSecond interrupt: no longer waiting for running operations; saving state.\n")
        else:
            stop.set()
            sys.stderr.write("\nInterrupt received: waiting for running operations to finish "
                             "(interrupt again to stop waiting).\n")

    old_int = signal.signal(signal.SIGINT, handler)
    old_term = signal.signal(signal.SIGTERM, handler)

    def restore() -> None:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
    return restore
