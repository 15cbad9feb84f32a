"""``ctl init`` and ``ctl version``: prepare a working directory; say what is installed."""

from __future__ import annotations

import typer
from rich.markup import escape

from cli import output
from cli.global_options import options
from cli.state_cmd import LOCK_TIMEOUT_HELP
from engine.errors import CtlError, ExitCode

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
) -> int:
    from cli.common import input_enabled
    from cli.download_progress import download_progress
    from cli.run_options import lock_timeout as parse_timeout
    from engine.init import initialize
    from engine.init_options import InitOptions, Migration
    from engine.locking.options import LockOptions

    con = output.stdout()

    def confirm(plan: Migration) -> bool:
        if not input_enabled(None):
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
        lock=LockOptions(timeout=parse_timeout(lock_timeout)),
        confirm=confirm,
        plugin_dirs=list(plugin_dir) if plugin_dir else None,
        native=native,
        upgrade=upgrade,
    )
    with download_progress() as progress:
        opts.progress = progress
        report = initialize(options(ctx).root, opts)
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
