"""``ctl force-unlock LOCK_ID``: Terraform's command for releasing a state lock by hand.

The same release as ``ctl state unlock LOCK_ID`` (the ID must be the held lock's), behind Terraform's
confirmation: "yes" at the prompt, or ``-force`` in a script. Kept under Terraform's name so the
runbooks and scripts teams already have keep working.
"""

from __future__ import annotations

import sys

import typer

from cli import output
from cli.options.globals import root_dir
from vocab.errors import CtlError, ExitCode

_HELP = """Release the state lock with this ID (Terraform's force-unlock; ctl state unlock is the same).

Asks for confirmation unless -force is given. The ID must be the held lock's: `ctl state lock-status`
shows it, and so does the error of a run that found the state locked.

Example: ctl force-unlock -force 6b2c8f0e-5d1a-4a47-9f1e-2f0c7a1d9e11
"""


def register(app: typer.Typer) -> None:
    app.command("force-unlock", help=_HELP)(force_unlock_command)


def force_unlock_command(
    ctx: typer.Context,
    lock_id: str = typer.Argument(..., help="The lock ID (printed by ctl state lock-status and in lock errors)."),
    force: bool = typer.Option(False, "--force", help="Do not ask for confirmation."),
) -> int:
    from engine.state_tools.locks import unlock

    if not force:
        if not sys.stdin.isatty():
            raise CtlError("force-unlock needs confirmation, and there is no terminal to ask on",
                           hint="Run `ctl force-unlock -force LOCK_ID` to release the lock without asking.")
        output.stdout().print(
            "Do you really want to force-unlock?\n  ctl will remove the lock on the remote state.\n"
            "  This will allow local ctl commands to modify this state, even though it may still be in use.\n"
            "  Only 'yes' will be accepted to confirm.\n")
        if str(typer.prompt("  Enter a value", default="", show_default=False)).strip() != "yes":
            output.stdout().print("force-unlock cancelled.")
            return int(ExitCode.ERROR)
    unlock(root_dir(ctx), lock_id, force=False)
    output.stdout().print("[bold green]The state has been successfully unlocked![/]")
    return int(ExitCode.OK)
