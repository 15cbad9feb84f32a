"""``ctl state pull`` and ``ctl state push``: the whole state document out to stdout and back in from a file.

``pull`` writes the raw document so it can be redirected to a file; ``push`` refuses to replace the
stored state with an unrelated, older or diverged one unless ``--force``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli import output
from cli.commands.state.group import state_app
from cli.common import IGNORE_REMOTE_VERSION_HELP
from cli.options.globals import root_dir
from cli.options.lock import LOCK_HELP, lock_options, lock_timeout_option
from vocab.errors import ExitCode


@state_app.command("pull", help="""Print the stored state document (an interrupted apply's journal applied).

Example: ctl state pull > backup.tfstate""")
def pull_command(ctx: typer.Context) -> int:
    from engine.state_tools.pull_push import pull

    data = pull(root_dir(ctx))
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
    lock_timeout: str = lock_timeout_option(),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
) -> int:
    from engine.state_tools.pull_push import push
    from vocab.errors import UsageError

    if file == "-":
        data, source = sys.stdin.buffer.read(), "standard input"
    else:
        try:
            data, source = Path(file).read_bytes(), file
        except OSError as exc:
            raise UsageError(f"Cannot read {file}: {exc.strerror}", hint="Give the path of a state file.") from None
    result = push(root_dir(ctx), data, source, lock_options(lock, lock_timeout), force=force)
    if not result.written:
        output.info(f"The stored state is already identical to {source} (serial {result.serial}); nothing written.")
    elif result.forced:
        output.warn(f"Overwrote the stored state with {source} (--force); it now has serial {result.serial}.")
    else:
        output.info(f"Pushed {source}: the stored state now has serial {result.serial}.")
    return int(ExitCode.OK)
