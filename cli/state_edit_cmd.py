"""``ctl state mv`` and ``ctl state rm``: change the addresses the state tracks, never the real objects.

Both hold the workspace lock (unless ``--no-lock``) and offer ``--dry-run``, which prints what would
change.
"""

from __future__ import annotations

import sys

import typer

from cli.common import IGNORE_REMOTE_VERSION_HELP
from cli.completers import complete_addresses
from cli.state_cmd import LOCK_HELP, lock_options, lock_timeout_option, root_dir, state_app
from engine.errors import ExitCode


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
    lock_timeout: str = lock_timeout_option(),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
) -> int:
    from engine.state_tools.moving import move_in_state

    moved = move_in_state(root_dir(ctx), source, destination, lock_options(lock, lock_timeout), dry_run=dry_run)
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
    lock_timeout: str = lock_timeout_option(),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
) -> int:
    from engine.state_tools.moving import remove_from_state

    removed = remove_from_state(root_dir(ctx), list(addresses), lock_options(lock, lock_timeout), dry_run=dry_run)
    verb = "Would remove" if dry_run else "Removed"
    sys.stdout.write("".join(f"{verb} {a}\n" for a in removed))
    if not dry_run:
        sys.stdout.write(f"Successfully removed {len(removed)} resource instance(s).\n")
    return int(ExitCode.OK)
