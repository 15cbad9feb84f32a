"""``ctl state mv`` and ``ctl state rm``: change the addresses the state tracks, never the real objects.

Both hold the workspace lock (unless ``--no-lock``) and offer ``--dry-run``, which prints what would
change.
"""

from __future__ import annotations

import sys

import typer

from cli.commands.state.group import state_app
from cli.common import IGNORE_REMOTE_VERSION_HELP
from cli.completion.completers import complete_addresses
from cli.options.globals import root_dir
from cli.options.lock import LOCK_HELP, lock_options, lock_timeout_option
from vocab.errors import ExitCode


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


@state_app.command("replace-provider", help="""Point the state's resources at another provider source.

Every resource whose provider is FROM gets TO instead (alias and module kept): what a fork, a
private registry or a renamed namespace needs after required_providers changes. Addresses are
TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE, as in required_providers. Asks first, unless
--auto-approve.

Example: ctl state replace-provider hashicorp/aws registry.acme.corp/acme/aws""")
def replace_provider_command(
    ctx: typer.Context,
    from_source: str = typer.Argument(..., metavar="FROM", help="The provider the state names now."),
    to_source: str = typer.Argument(..., metavar="TO", help="The provider it should name."),
    auto_approve: bool = typer.Option(False, "--auto-approve", help="Replace without asking."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = lock_timeout_option(),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
) -> int:
    from cli import output
    from cli.common import input_enabled
    from engine.state_tools.replace_provider import replace_provider
    from vocab.errors import CtlError

    con = output.stdout()

    def confirm(old: object, new: object, addresses: list[str]) -> bool:
        con.print(f"ctl will perform the following actions:\n\n  ~ Updating provider:\n    - {old}\n    + {new}\n",
                  markup=False)
        con.print(f"Changing {len(addresses)} resources:\n\n" + "".join(f"  {a}\n" for a in addresses), markup=False)
        if auto_approve:
            return True
        if not input_enabled(None):
            raise CtlError("Replacing the provider needs confirmation, but input is disabled",
                           hint="Run with --auto-approve.")
        con.print("Do you want to make these changes?\nOnly 'yes' will be accepted to continue.\n", markup=False)
        return str(typer.prompt("Enter a value", default="", show_default=False)).strip() == "yes"

    changed = replace_provider(root_dir(ctx), from_source, to_source, lock_options(lock, lock_timeout),
                               confirm=confirm)
    if not changed:
        sys.stdout.write("No matching resources found.\n")
    else:
        sys.stdout.write(f"Successfully replaced provider for {len(changed)} resources.\n")
    return int(ExitCode.OK)
