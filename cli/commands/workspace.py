"""``ctl workspace …``: several named states for one configuration (dev, staging, prod …).

The selected workspace is recorded in ``.ctl/environment`` (``CTL_WORKSPACE`` overrides it) and
every state command, plan and apply uses its state. Deleting is guarded: never ``default``, never
the selected one, and never one that still records objects unless ``--force``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli import output
from cli.completion.completers import complete_deletable_workspaces, complete_workspaces
from cli.options.globals import options
from cli.options.lock import LOCK_HELP, lock_options
from cli.options.run import LOCK_TIMEOUT_HELP
from vocab.errors import CtlError, ExitCode

workspace_app = typer.Typer(
    name="workspace",
    help="Manage workspaces (separate states of one configuration): list, new, select, show, delete.",
    no_args_is_help=True,
    rich_markup_mode=None,
    suggest_commands=False,  # click already suggests the closest command
)


def register(app: typer.Typer) -> None:
    app.add_typer(workspace_app, name="workspace")


@workspace_app.command("list", help="""List the workspaces; the selected one is marked with *.

Example: ctl workspace list""")
def list_command(ctx: typer.Context) -> int:
    from engine.state_tools.workspaces import workspaces

    names, current = workspaces(options(ctx).root)
    if current not in names:  # selected through CTL_WORKSPACE but never created
        names = [*names, current]
    sys.stdout.write("".join(f"{'*' if n == current else ' '} {n}\n" for n in names))
    return int(ExitCode.OK)


@workspace_app.command("new", help="""Create a workspace with an empty state and select it.

With --state FILE, the new workspace starts with a copy of that state file instead (as Terraform's
workspace new -state does), written under the workspace's lock.

Example: ctl workspace new staging""")
def new_command(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The new workspace's name."),
    state: Path = typer.Option(None, "--state", metavar="FILE",
                               help="Start the workspace with a copy of this state file."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP),
) -> int:
    from engine.state.codec import decode_state
    from engine.state_tools.pull_push import push
    from engine.state_tools.workspaces import new_workspace
    from vocab.errors import UsageError

    locks = lock_options(lock, lock_timeout)
    data = None
    if state is not None:
        try:
            data = state.read_bytes()
        except OSError as exc:
            raise UsageError(f"Cannot read --state {state}: {exc.strerror or exc}",
                             hint="Give the path of a state file.") from None
        try:  # a file that is not a state is refused before anything is created
            decode_state(data, str(state))
        except CtlError as exc:
            raise CtlError(exc.summary, hint="Give a state file: a terraform.tfstate, or what "
                                             "`ctl state pull` writes.") from None
    root = options(ctx).root
    new_workspace(root, name)
    if data is not None:
        push(root, data, str(state), locks, force=True)
    output.stdout().print(f'[bold green]Created and switched to workspace "{name}"![/]')
    if data is None:
        output.info("It has an empty state: plan and apply now work on it.")
    else:
        output.info(f"Its state is a copy of {state}.")
    return int(ExitCode.OK)


@workspace_app.command("select", help="""Switch to an existing workspace.

Example: ctl workspace select staging""")
def select_command(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The workspace to switch to.", autocompletion=complete_workspaces),
    or_create: bool = typer.Option(False, "--or-create", help="Create the workspace if it does not exist."),
) -> int:
    from engine.state_tools.workspaces import select

    created = select(options(ctx).root, name, or_create=or_create)
    what = "Created and switched to" if created else "Switched to"
    output.stdout().print(f'{what} workspace "{name}".')
    return int(ExitCode.OK)


@workspace_app.command("show", help="""Print the selected workspace's name.

Example: ctl workspace show""")
def show_command(
    ctx: typer.Context,
    # Terraform's workspace show reads no flags, so the common ones a script passes everywhere pass here.
    input_: bool = typer.Option(None, "--input/--no-input", hidden=True),
    lock: bool = typer.Option(None, "--lock/--no-lock", hidden=True),
    lock_timeout: str = typer.Option(None, "--lock-timeout", hidden=True),
) -> int:
    from engine.session import selected_workspace

    sys.stdout.write(selected_workspace(options(ctx).root) + "\n")
    return int(ExitCode.OK)


@workspace_app.command("delete", help="""Delete a workspace and its state.

Refused for "default", for the selected workspace, and for one whose state still records objects
(unless --force, which makes ctl forget them; the objects themselves are left alone).

Example: ctl workspace delete staging""")
def delete_command(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The workspace to delete.",
                               autocompletion=complete_deletable_workspaces),
    force: bool = typer.Option(False, "--force", help="Delete even if its state still records objects."),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP),
) -> int:
    from engine.state_tools.workspaces import delete_workspace

    forgotten = delete_workspace(options(ctx).root, name, lock_options(lock, lock_timeout), force=force)
    if forgotten:
        output.warn(f"{forgotten} resource instance(s) of workspace \"{name}\" are no longer managed by ctl; "
                    "the objects themselves still exist.")
    output.stdout().print(f'[bold green]Deleted workspace "{name}"![/]')
    return int(ExitCode.OK)
