"""``ctl import ADDRESS ID``: adopt an object that already exists, so ctl manages it from now on.

The usual reason is an object created outside ctl, or one an interrupted apply created without
recording it (the journal recovery names the command to run).
"""

from __future__ import annotations

from pathlib import Path

import typer

from cli import output
from cli.common import (
    IGNORE_REMOTE_VERSION_HELP,
    VAR_FILE_HELP,
    VAR_HELP,
    hidden_flag,
    hidden_values,
    input_enabled,
    ordered_var_args,
    prompt_variable,
)
from cli.options.globals import options
from cli.options.lock import LOCK_HELP, lock_options
from cli.options.run import LOCK_TIMEOUT_HELP
from vocab.errors import ExitCode, UsageError

_HELP = """Bring an existing object under ctl's management at ADDRESS.

ADDRESS must be declared in the configuration (write the resource block first) and not be in the
state yet. ID is the adapter's import ID (e.g. random_id: B64URL or PREFIX,B64URL).

Example: ctl import 'random_id.suffix' 3q2-7w"""


def register(app: typer.Typer) -> None:
    app.command("import", help=_HELP)(import_command)


def import_command(
    ctx: typer.Context,
    address: str = typer.Argument(..., help="The resource instance address, e.g. random_id.a or x.y[0]."),
    resource_id: str = typer.Argument(..., help="The ID of the existing object, in the adapter's format."),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    lock: bool = typer.Option(True, "--lock/--no-lock", help=LOCK_HELP),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP),
    input_: bool = typer.Option(None, "--input/--no-input", help="Ask for missing variables."),
    config: Path = typer.Option(None, "--config", metavar="DIR",
                                help="The configuration directory to import with (default: the current one, "
                                     "or --chdir): its provider settings, backend and state."),
    allow_missing_config: bool = typer.Option(False, "--allow-missing-config",
                                              help="Import even when ADDRESS has no resource block, with its "
                                                   "type's default provider settings; the next plan destroys "
                                                   "the object unless a block is written."),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
    compact_warnings: bool = hidden_flag("--compact-warnings"),
    parallelism: int = typer.Option(None, "--parallelism", hidden=True),  # one object: nothing runs in parallel
    target: list[str] = hidden_values("--target"),  # import reads one object: nothing to limit
) -> int:
    if compact_warnings:
        output.compact_warnings()
    from rich.markup import escape

    from engine.state_tools.importing import import_resource
    from vocab.values import Marked

    con = output.stdout()
    locks = lock_options(lock, lock_timeout)
    con.print(f'{escape(address)}: Importing from ID "{escape(resource_id)}"...')
    root = options(ctx).root if config is None else config.resolve()
    if not root.is_dir():
        raise UsageError(f"--config: {config} is not a directory", hint="Give the configuration's directory.")
    done = import_resource(root, address, resource_id, locks,
                           var_args=ordered_var_args(var, var_file),
                           prompt=prompt_variable if input_enabled(input_) else None,
                           allow_missing_config=allow_missing_config)
    con.print(f"{escape(done.address)}: Import prepared!\n  Prepared {done.type} for import")
    ident = done.attributes.get("id")
    shown = "(sensitive value)" if isinstance(ident, Marked) else ident
    con.print(f"{done.address}: Refreshing state... [id={shown}]", markup=False)
    con.print("\n[bold green]Import successful![/]\n\n"
              "The resources that were imported are shown above. These resources are now in\n"
              "your ctl state and will henceforth be managed by ctl.")
    return int(ExitCode.OK)
