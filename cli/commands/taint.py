"""``ctl taint ADDRESS`` and ``ctl untaint ADDRESS``: Terraform's commands of the same names."""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer

from cli.common import IGNORE_REMOTE_VERSION_HELP
from cli.completion.completers import complete_addresses
from cli.options.globals import options
from cli.options.lock import LOCK_HELP, lock_options
from cli.options.run import LOCK_TIMEOUT_HELP
from vocab.errors import ExitCode


def register(app: typer.Typer) -> None:
    app.command("taint", help="""Mark a resource instance for replacement by the next apply.

The object stays as it is until then; `ctl plan` shows it as "is tainted, so must be replaced".
`ctl plan --replace ADDRESS` does the same for one plan without changing the state.

Example: ctl taint 'aws_instance.web[0]'""")(taint_command)
    app.command("untaint", help="""Take back a taint: the object is kept, not replaced.

Also clears the mark a create that failed halfway left, when the object turned out fine.

Example: ctl untaint aws_instance.web""")(untaint_command)


def _command(tainted: bool) -> Callable[..., int]:
    """``taint`` and ``untaint`` take the same arguments; only what they set differs."""

    def command(
        ctx: typer.Context,
        address: str = typer.Argument(..., help="A resource instance in the state.",
                                      autocompletion=complete_addresses),
        allow_missing: bool = typer.Option(False, "--allow-missing",
                                           help="Succeed when the address is not in the state."),
        lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
        lock_timeout: str = typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP),
        ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version",
                                                   help=IGNORE_REMOTE_VERSION_HELP),
    ) -> int:
        return _run(ctx, address, tainted, allow_missing, lock, lock_timeout)

    return command


taint_command = _command(True)
untaint_command = _command(False)


def _run(ctx: typer.Context, address: str, tainted: bool, allow_missing: bool, lock: bool,
         lock_timeout: str | None) -> int:
    from engine.state_tools.tainting import set_tainted

    changed = set_tainted(options(ctx).root, address, tainted, lock_options(lock, lock_timeout),
                          allow_missing=allow_missing)
    if not changed:
        sys.stdout.write(f"Resource instance {address} is not in the state: nothing to do.\n")
    else:
        sys.stdout.write(f"Resource instance {address} has been marked as {'tainted' if tainted else 'not tainted'}.\n")
    return int(ExitCode.OK)
