"""``ctl state …``: look at and repair the stored state by hand, as with ``terraform state``.

Each subcommand parses its options, calls one function of ``engine.state_tools`` and prints the
result: machine output (addresses, JSON, the state document, a lock ID) on stdout so it can be
piped, confirmations on stderr. Commands that change the state hold the workspace lock.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli import output
from cli.common import print_json
from cli.completion import complete_addresses, complete_instances
from cli.global_options import options
from engine.errors import ExitCode

if TYPE_CHECKING:
    from engine.locking.options import LockOptions
    from engine.state_tools.rollback import RollbackPlan

state_app = typer.Typer(
    name="state",
    help="Inspect and edit the state: list, show, mv, rm, pull, push, lock, unlock, lock-status, history, "
         "rollback.",
    no_args_is_help=True,
    rich_markup_mode=None,
    suggest_commands=False,  # click already suggests the closest command
)

LOCK_HELP = "Hold the state lock while changing it (--lock=false skips it)."
LOCK_TIMEOUT_HELP = "How long to retry a held state lock, e.g. 30s (default 0, or CTL_LOCK_TIMEOUT)."


def register(app: typer.Typer) -> None:
    app.add_typer(state_app, name="state")


def lock_options(lock: bool, timeout: str | None) -> LockOptions:
    """The lock settings of a command that changes state; skipping the lock is said out loud."""
    from cli.run_options import lock_timeout
    from engine.locking.options import LockOptions

    if not lock:
        output.warn("Not locking the state (--lock=false): a concurrent run may overwrite this change.")
    return LockOptions(enabled=lock, timeout=lock_timeout(timeout))


def _lock_timeout_option() -> Any:
    """The ``--lock-timeout`` option (a fresh object per command, as click requires)."""
    return typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP)


def _root(ctx: typer.Context) -> Path:
    return options(ctx).root


@state_app.command("list", help="""List the resource instances in the state, optionally only those under ADDRESS.

An address filters by prefix: a resource matches all its instances, module.NAME everything in it.

Example: ctl state list 'module.net'""")
def list_command(
    ctx: typer.Context,
    addresses: list[str] = typer.Argument(None, help="Only instances under these addresses.",
                                         autocompletion=complete_addresses),
    resource_id: str = typer.Option(None, "--id", help="Only instances whose id attribute is this."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON list of addresses."),
) -> int:
    from engine.state_tools.access import read_state
    from engine.state_tools.listing import list_addresses

    found = list_addresses(read_state(_root(ctx)), list(addresses or []), resource_id)
    if json_out:
        print_json(found)
    else:
        sys.stdout.write("".join(f"{a}\n" for a in found))
    return int(ExitCode.OK)


@state_app.command("show", help="""Show one resource instance in the state, its secrets masked.

Example: ctl state show 'random_id.a[0]' --json""")
def show_command(
    ctx: typer.Context,
    address: str = typer.Argument(..., help="The instance address, e.g. random_id.a or random_id.b[0].",
                                 autocompletion=complete_instances),
    json_out: bool = typer.Option(False, "--json", help="Print the instance as ctl show --json does."),
    show_sensitive: bool = typer.Option(False, "--show-sensitive", help="Show sensitive values in clear."),
) -> int:
    from engine.state_tools.access import read_state
    from engine.state_tools.listing import find_instance, instance_json

    shown = find_instance(read_state(_root(ctx)), address)
    if json_out:
        print_json(instance_json(shown, show_sensitive=show_sensitive))
        return int(ExitCode.OK)
    from cli.render_plan import render_instance

    attrs = shown.instance.attributes if show_sensitive else shown.instance.marked_attributes()
    sys.stdout.write(render_instance(shown.address, attrs, color=output.color_enabled(sys.stdout)))
    return int(ExitCode.OK)


@state_app.command("mv", help="""Rename an object in the state without touching the real object.

SOURCE and DESTINATION are instance, resource or module addresses; a resource moves with all its
instances. Nothing is overwritten: an existing DESTINATION is refused.

Example: ctl state mv random_id.old random_id.new""")
def mv_command(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="What to move.", autocompletion=complete_addresses),
    destination: str = typer.Argument(..., help="Its new address."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would move; change nothing."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = _lock_timeout_option(),
) -> int:
    from engine.state_tools.moving import move_in_state

    moved = move_in_state(_root(ctx), source, destination, lock_options(lock, lock_timeout), dry_run=dry_run)
    verb = "Would move" if dry_run else "Move"
    sys.stdout.write("".join(f'{verb} "{old}" to "{new}"\n' for old, new in moved))
    if not dry_run:
        sys.stdout.write(f"Successfully moved {len(moved)} object(s).\n")
    return int(ExitCode.OK)


@state_app.command("rm", help="""Forget objects: they stay where they are but ctl no longer manages them.

Each ADDRESS is an instance, a resource (all its instances) or a module (everything in it).

Example: ctl state rm 'random_id.a[1]'""")
def rm_command(
    ctx: typer.Context,
    addresses: list[str] = typer.Argument(..., help="What to remove from the state.",
                                         autocompletion=complete_addresses),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be removed; change nothing."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = _lock_timeout_option(),
) -> int:
    from engine.state_tools.moving import remove_from_state

    removed = remove_from_state(_root(ctx), list(addresses), lock_options(lock, lock_timeout), dry_run=dry_run)
    verb = "Would remove" if dry_run else "Removed"
    sys.stdout.write("".join(f"{verb} {a}\n" for a in removed))
    if not dry_run:
        sys.stdout.write(f"Successfully removed {len(removed)} resource instance(s).\n")
    return int(ExitCode.OK)


@state_app.command("pull", help="""Print the stored state document (an interrupted apply's journal applied).

Example: ctl state pull > backup.tfstate""")
def pull_command(ctx: typer.Context) -> int:
    from engine.state_tools.pull_push import pull

    data = pull(_root(ctx))
    if data is not None:
        sys.stdout.buffer.write(data if data.endswith(b"\n") else data + b"\n")
        sys.stdout.flush()
    return int(ExitCode.OK)


@state_app.command("push", help="""Replace the stored state with FILE ('-' reads standard input).

Refused, unless --force, when FILE is another state (lineage), an older copy (lower serial) or a
diverged copy (same serial, other content).

Example: ctl state push fixed.tfstate""")
def push_command(
    ctx: typer.Context,
    file: str = typer.Argument(..., help="The state file to upload, or - for standard input."),
    force: bool = typer.Option(False, "--force", help="Overwrite even a newer or unrelated state."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = _lock_timeout_option(),
) -> int:
    from engine.errors import UsageError
    from engine.state_tools.pull_push import push

    if file == "-":
        data, source = sys.stdin.buffer.read(), "standard input"
    else:
        try:
            data, source = Path(file).read_bytes(), file
        except OSError as exc:
            raise UsageError(f"Cannot read {file}: {exc.strerror}", hint="Give the path of a state file.") from None
    result = push(_root(ctx), data, source, lock_options(lock, lock_timeout), force=force)
    if not result.written:
        output.info(f"The stored state is already identical to {source} (serial {result.serial}); nothing written.")
    elif result.forced:
        output.warn(f"Overwrote the stored state with {source} (--force); it now has serial {result.serial}.")
    else:
        output.info(f"Pushed {source}: the stored state now has serial {result.serial}.")
    return int(ExitCode.OK)


@state_app.command("lock", help="""Take the state lock and leave it held; prints the lock ID.

Hand the ID to later runs with CTL_LOCK_ID, and release it with `ctl state unlock ID`.
Exit 4 when somebody else holds the lock.

Example: export CTL_LOCK_ID=$(ctl state lock --reason "release 42")""")
def lock_command(
    ctx: typer.Context,
    reason: str = typer.Option("", "--reason", help="Why the state is locked (shown to anyone blocked)."),
    json_out: bool = typer.Option(False, "--json", help="Print the lock information as JSON."),
    lock_timeout: str = _lock_timeout_option(),
) -> int:
    from cli.run_options import lock_timeout as parse_timeout
    from engine.state_tools.locks import lock

    info = lock(_root(ctx), reason, parse_timeout(lock_timeout))
    if json_out:
        print_json(asdict(info))
    else:
        sys.stdout.write(info.ID + "\n")
        output.info(f"State locked. Release it with: ctl state unlock {info.ID}")
    return int(ExitCode.OK)


@state_app.command("unlock", help="""Release the state lock with this ID.

A wrong ID is refused, showing who holds the lock; --force breaks whatever lock is held (for an
apparently abandoned lock, the error message prints the exact command). Breaking a lock is logged
with who broke it and whose lock it was; a run whose lock is broken stops at its next heartbeat.

Example: ctl state unlock 6b2c8f0e-5d1a-4a47-9f1e-2f0c7a1d9e11""")
def unlock_command(
    ctx: typer.Context,
    lock_id: str = typer.Argument(..., help="The lock ID (printed by ctl state lock and in lock errors)."),
    force: bool = typer.Option(False, "--force", help="Break the lock even if its ID is another one."),
) -> int:
    from engine.state_tools.locks import unlock

    done = unlock(_root(ctx), lock_id, force=force)
    gone = done.lock
    if done.forced:
        output.warn(f"Broke the state lock {gone.ID or '(unreadable)'} held by {gone.Who or 'an unknown holder'} "
                    f"({gone.Operation}, since {gone.Created or 'an unknown time'}); broken by {done.by} "
                    "with --force.")
    output.stdout().print("[bold green]The state has been successfully unlocked![/]")
    return int(ExitCode.OK)


@state_app.command("lock-status", help="""Tell whether the state is locked: by whom, for what, since when, last heartbeat.

A lock whose holder stopped renewing its heartbeat (5 minutes, CTL_LOCK_STALE_SECONDS) is reported
as apparently abandoned, with the `ctl state unlock --force ID` command that breaks it.

Example: ctl state lock-status --json""")
def lock_status_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print {locked, lock, age_seconds, heartbeat_age_seconds, "
                                  "abandoned, unlock_command} as JSON."),
) -> int:
    from cli.render_state import lock_status_json, lock_status_text
    from engine.state_tools.locks import lock_status

    status = lock_status(_root(ctx))
    if json_out:
        sys.stdout.write(json.dumps(lock_status_json(status), indent=2) + "\n")
    else:
        sys.stdout.write(lock_status_text(status))
    return int(ExitCode.OK)


@state_app.command("history", help="""List the kept versions of the state: serial, time, who wrote it, resources.

Every write keeps the version it replaces; the last line is the current state. Restore a kept
version with `ctl state rollback SERIAL`.

Example: ctl state history --json""")
def history_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print a JSON list of {serial, time, who, resources, "
                                  "version, current, policy_override}."),
) -> int:
    from cli.render_state import history_table
    from engine.state_tools.history import history

    rows = history(_root(ctx))
    if json_out:
        print_json([asdict(r) for r in rows])
    elif not rows:
        output.info("The state has no versions yet.")
    else:
        sys.stdout.write(history_table(rows))
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
    lock_timeout: str = _lock_timeout_option(),
) -> int:
    from cli.common import input_enabled
    from cli.render_state import rollback_diff
    from engine.errors import CtlError
    from engine.state_tools.rollback import rollback

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

    result = rollback(_root(ctx), serial, lock_options(lock, lock_timeout), confirm)
    plan = result.plan
    if not result.written:
        output.info(f"The kept version {plan.serial} has the same resources and outputs as the current state "
                    f"(serial {plan.current_serial}); nothing written.")
    else:
        output.info(f"Restored the version with serial {plan.serial}: the state now has serial {plan.new_serial} "
                    f"(serial {plan.current_serial} is kept in the history).")
    return int(ExitCode.OK)
