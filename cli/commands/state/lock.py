"""``ctl state lock``, ``unlock`` and ``lock-status``: take, release and inspect the state lock by hand.

A lock taken with ``ctl state lock`` stays held after the command exits, so a release or a series of
runs (``CTL_LOCK_ID``) can share it; ``unlock --force`` breaks somebody else's lock, and says so.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

import typer

from cli import output
from cli.commands.state.group import state_app
from cli.common import print_json
from cli.options.globals import root_dir
from cli.options.lock import lock_timeout_option
from vocab.errors import ExitCode


@state_app.command("lock", help="""Take the state lock and leave it held; prints the lock ID.

Hand the ID to later runs with CTL_LOCK_ID, and release it with `ctl state unlock ID`.
Exit 4 when somebody else holds the lock.

Example: export CTL_LOCK_ID=$(ctl state lock --reason "release 42")""")
def lock_command(
    ctx: typer.Context,
    reason: str = typer.Option("", "--reason", help="Why the state is locked (shown to anyone blocked)."),
    json_out: bool = typer.Option(False, "--json", help="Print the lock information as JSON."),
    lock_timeout: str = lock_timeout_option(),
) -> int:
    from cli.options.run import lock_timeout as parse_timeout
    from engine.state_tools.locks import lock

    info = lock(root_dir(ctx), reason, parse_timeout(lock_timeout))
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

    done = unlock(root_dir(ctx), lock_id, force=force)
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
    from cli.views.state import lock_status_json, lock_status_text
    from engine.state_tools.locks import lock_status

    status = lock_status(root_dir(ctx))
    if json_out:
        sys.stdout.write(json.dumps(lock_status_json(status), indent=2) + "\n")
    else:
        sys.stdout.write(lock_status_text(status))
    return int(ExitCode.OK)
