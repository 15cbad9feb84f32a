"""``ctl init`` and ``ctl version``: prepare a working directory; say what is installed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import typer
from rich.markup import escape

from cli import output
from cli.common import IGNORE_REMOTE_VERSION_HELP, hidden_flag, hidden_values
from cli.options.globals import options
from cli.options.run import LOCK_TIMEOUT_HELP
from vocab.errors import CtlError, ExitCode, UsageError

_INIT_HELP = """Prepare the configuration directory: check the configuration, the adapters and the backend, and
record the backend's settings in .ctl/backend.json.

The backend's store must really refuse a second conditional create and a stale compare-and-swap,
or it is refused. Credentials are never recorded: later commands take them from the environment.
Changing the backend later needs --migrate-state (copy every workspace's state, keeping lineage and
serial) or --reconfigure (switch without copying).

Providers that need a plugin are installed from the plugin directories, the CLI configuration's
provider_installation methods or their registry, verified (signed SHA256SUMS, the lock file's hashes),
and pinned in .terraform.lock.hcl; --upgrade chooses newer versions within the constraints.

Example: ctl init --backend-config bucket=team-state --backend-config backend.hcl
"""
_BACKEND_CONFIG_HELP = ("A backend setting NAME=VALUE, or a file of settings in HCL; repeatable, later ones "
                        "win over earlier ones and over the backend block.")


def register(app: typer.Typer) -> None:
    app.command("init", help=_INIT_HELP)(init_command)


def init_command(
    ctx: typer.Context,
    backend_config: list[str] = typer.Option(None, "--backend-config", metavar="NAME=VALUE|FILE",
                                             help=_BACKEND_CONFIG_HELP),
    migrate_state: bool = typer.Option(False, "--migrate-state",
                                       help="Copy every workspace's state from the previous backend to the new one; "
                                            "also moves a terraform.tfstate found here into ctl's backend."),
    reconfigure: bool = typer.Option(False, "--reconfigure",
                                     help="Use the configured backend without copying the previous backend's state."),
    force_copy: bool = typer.Option(False, "--force-copy",
                                    help="Like --migrate-state, without asking for confirmation."),
    lock: bool = typer.Option(True, "--lock/--no-lock",
                              help="Hold the state locks while migrating state (--lock=false skips them)."),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP),
    plugin_dir: list[str] = typer.Option(None, "--plugin-dir", metavar="DIR",
                                         help="Look for provider plugins in DIR first (repeatable; remembered "
                                              "by later runs; like Terraform's -plugin-dir)."),
    upgrade: bool = typer.Option(False, "--upgrade",
                                 help="Choose the newest provider versions the constraints allow, ignoring the "
                                      "versions .terraform.lock.hcl records (and update it)."),
    native: bool = typer.Option(None, "--native/--no-native",
                                help="Serve each provider its native adapter covers by that adapter even when a "
                                     "plugin is at hand (--native), or every provider by its plugin "
                                     "(--native=false). Unset: a plugin found in the plugin directories, or "
                                     "chosen by the last init, serves its provider; the native adapter "
                                     "serves the others. Remembered by later runs."),
    input_: bool = typer.Option(None, "--input/--no-input",
                                help="Ask before copying state (--input=false: never ask; --force-copy copies)."),
    backend: bool = typer.Option(True, "--backend/--no-backend",
                                 help="Check and record the backend (--backend=false leaves it as it is: no "
                                      "credentials needed, e.g. to validate in CI)."),
    get: bool = typer.Option(True, "--get/--no-get",
                             help="Accepted for Terraform's command line: ctl reads modules from their local "
                                  "directories in place, so there is nothing to download either way."),
    from_module: str = typer.Option(None, "--from-module", metavar="SOURCE",
                                    help="First copy the module in the local directory SOURCE into this empty "
                                         "directory (like Terraform's -from-module)."),
    lockfile: str = typer.Option(None, "--lockfile", metavar="MODE",
                                 help="readonly: check the providers against .terraform.lock.hcl and fail rather "
                                      "than change it (like Terraform's -lockfile=readonly)."),
    ignore_remote_version: bool = typer.Option(False, "--ignore-remote-version", help=IGNORE_REMOTE_VERSION_HELP),
    compact_warnings: bool = hidden_flag("--compact-warnings"),
    # init evaluates nothing that reads variables or targets; Terraform takes them and so does ctl.
    target: list[str] = hidden_values("--target"),
    var: list[str] = hidden_values("--var"),
    var_file: list[str] = hidden_values("--var-file"),
) -> int:
    if compact_warnings:
        output.compact_warnings()
    from cli.common import input_enabled
    from cli.options.run import lock_timeout as parse_timeout
    from cli.progress.download import download_progress
    from engine.init import initialize
    from engine.init.options import InitOptions, Migration
    from engine.locking.options import LockOptions

    con = output.stdout()

    if lockfile is not None and lockfile != "readonly":
        raise UsageError(f'Invalid --lockfile mode "{lockfile}"', hint="The one mode is readonly.")

    def confirm(plan: Migration) -> bool:
        if not input_enabled(input_):
            raise CtlError(
                "Migrating the state needs confirmation, but input is disabled",
                hint="Run with --force-copy to copy without asking.",
            )
        con.print(f"\nCopy the state of {len(plan.workspaces)} workspace(s) ({', '.join(plan.workspaces)})\n"
                  f"  from {plan.source}\n  to   {plan.destination}?\n  Only 'yes' will be accepted.\n")
        return str(typer.prompt("  Enter a value", default="", show_default=False)).strip() == "yes"

    opts = InitOptions(
        backend_config=list(backend_config or []),
        migrate_state=migrate_state,
        reconfigure=reconfigure,
        force_copy=force_copy,
        lock=LockOptions(enabled=lock, timeout=parse_timeout(lock_timeout)),
        confirm=confirm,
        plugin_dirs=list(plugin_dir) if plugin_dir else None,
        native=native,
        upgrade=upgrade,
        backend=backend,
    )
    root = options(ctx).root
    if from_module is not None:
        from engine.init.from_module import copy_module

        copied = copy_module(from_module, root)
        con.print(f"Copied {len(copied)} file(s) and directories from {escape(from_module)}.")
    with download_progress() as progress, readonly_lock_file(root, lockfile == "readonly"):
        opts.progress = progress
        report = initialize(root, opts)
    for warning in report.warnings:
        output.warn(warning)
    if report.previous is not None:
        if report.migrated:
            for m in report.migrated:
                what = "already there, identical" if m.already_there else "copied"
                con.print(f'- Workspace "{m.workspace}": serial {m.serial}, lineage {m.lineage}, '
                          f"{m.resources} resource(s) {what}")
            con.print(f"Migrated the state from {report.previous}.")
        elif migrate_state or force_copy:
            con.print(f"No state to migrate from {report.previous}.")
        else:
            con.print(f"Switched from {report.previous} without copying its state.")
    con.print(f"Backend: [bold]{report.backend}[/] ({report.location})")
    for line in report.terraform_moved:
        con.print(f"- Moved Terraform's state {escape(line)}")
    for name, source in report.providers:
        con.print(f"- Using adapter {name} ({source})")
    for line in report.plugins:
        con.print(f"- Using provider plugin {escape(line)}")
    con.print("\n[bold green]ctl has been successfully initialized![/]")
    return int(ExitCode.OK)


@contextlib.contextmanager
def readonly_lock_file(root: Path, readonly: bool) -> Iterator[None]:
    """``--lockfile=readonly``: the providers are chosen and checked as usual, and the lock file is
    left exactly as it was; a change init would have made to it is an error naming the file."""
    from engine.install.lockfile import LOCK_FILE

    if not readonly:
        yield
        return
    path = root / LOCK_FILE
    before = path.read_bytes() if path.exists() else None
    try:
        yield
    finally:
        after = path.read_bytes() if path.exists() else None
        changed = after != before
        if changed:
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(before)
    if changed:
        raise CtlError(f"The providers do not match {LOCK_FILE}, which --lockfile=readonly keeps as it is",
                       detail="init would have " + ("created it." if before is None else "changed it."),
                       hint="Run ctl init without --lockfile=readonly to update it, and commit the change.")
