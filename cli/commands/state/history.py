"""``ctl state history`` and ``ctl state rollback``: the kept versions of the state, and restoring one.

A rollback shows the difference, asks for 'yes' and writes the old version as a new serial, so the
version it replaces stays in the history too.
"""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from cli import output
from cli.commands.state.group import state_app
from cli.common import print_json
from cli.options.globals import root_dir
from cli.options.lock import LOCK_HELP, lock_options, lock_timeout_option
from vocab.errors import ExitCode

if TYPE_CHECKING:
    from engine.state_tools.rollback import RollbackPlan


@state_app.command("history", help="""List the kept versions of the state: serial, time, who wrote it, resources.

Every write keeps the version it replaces; the last line is the current state. Restore a kept
version with `ctl state rollback SERIAL`. An encrypted version is opened with the configured key to
count its resources; without one it is shown as sealed.

Example: ctl state history --json""")
def history_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print a JSON list of {serial, time, who, resources, "
                                  "version, current, policy_override}; resources is null for an encrypted "
                                  "version no configured key opens."),
) -> int:
    from cli.views.state import history_table
    from engine.state_tools.history import history

    rows = history(root_dir(ctx))
    if json_out:
        print_json([asdict(r) for r in rows])
    elif not rows:
        output.info("The state has no versions yet.")
    else:
        sys.stdout.write(history_table(rows))
        if any(r.resources is None for r in rows):
            output.info("Versions shown as sealed are encrypted, and no configured key opens them; with the "
                        "key that wrote them (an encryption block in terraform {}, or CTL_ENCRYPTION) their "
                        "resources are counted.")
    return int(ExitCode.OK)


@state_app.command("rollback", help="""Restore a kept version of the state (see `ctl state history`).

Under the state lock, shows what changes between the current state and that version, asks for
'yes', then writes it as a new serial (current + 1) — the replaced version stays in the history.
A version of another lineage (a different state) is refused.

Example: ctl state rollback 41 --auto-approve""")
def rollback_command(
    ctx: typer.Context,
    serial: int = typer.Argument(..., help="The serial of the kept version to restore."),
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Skip the confirmation prompt."),
    input_: bool = typer.Option(None, "--input/--no-input", help="Ask for confirmation (on a terminal)."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = lock_timeout_option(),
) -> int:
    from cli.common import input_enabled
    from cli.views.state import rollback_diff
    from engine.state_tools.rollback import rollback
    from vocab.errors import CtlError

    interactive = input_enabled(input_)

    def confirm(plan: RollbackPlan) -> bool:
        sys.stdout.write(rollback_diff(plan))
        sys.stdout.flush()
        if auto_approve:
            return True
        if not interactive:
            raise CtlError("Rollback needs confirmation, but input is disabled",
                           hint=f"Run `ctl state rollback {plan.serial} --auto-approve` to restore it without "
                                "a prompt.")
        output.stdout().print("\nDo you want to restore this version?\n  Only 'yes' will be accepted to approve.\n")
        answer = typer.prompt("  Enter a value", default="", show_default=False)
        return str(answer).strip() == "yes"

    result = rollback(root_dir(ctx), serial, lock_options(lock, lock_timeout), confirm)
    plan = result.plan
    if not result.written:
        output.info(f"The kept version {plan.serial} has the same resources and outputs as the current state "
                    f"(serial {plan.current_serial}); nothing written.")
    else:
        output.info(f"Restored the version with serial {plan.serial}: the state now has serial {plan.new_serial} "
                    f"(serial {plan.current_serial} is kept in the history).")
    return int(ExitCode.OK)
