"""``ctl init`` and ``ctl version``: prepare a working directory; say what is installed."""

from __future__ import annotations

import json
import sys

import typer

from cli import output
from cli.state import options
from engine.errors import ExitCode

_INIT_HELP = """Prepare the configuration directory: check the configuration and backend settings, check
that an adapter is installed for every resource type used, and create .ctl/.

Example: ctl init
"""


def register(app: typer.Typer) -> None:
    app.command("init", help=_INIT_HELP)(init_command)
    app.command("version", help="Print the version of ctl and its installed adapters.\n\nExample: ctl version --json")(
        version_command
    )


def init_command(ctx: typer.Context) -> int:
    from engine.init import initialize

    report = initialize(options(ctx).root)
    con = output.stdout()
    con.print(f"Backend: [bold]{report.backend}[/] ({report.location})")
    for name, source in report.providers:
        con.print(f"- Using adapter {name} ({source})")
    con.print("\n[bold green]ctl has been successfully initialized![/]")
    return int(ExitCode.OK)


def version_command(json_out: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> int:
    from adapters.registry import Registry
    from engine.version import VERSION

    providers = {p.name: p.source for p in Registry.discover().providers()}
    if json_out:
        sys.stdout.write(json.dumps({"ctl_version": VERSION, "adapters": providers}, indent=2) + "\n")
    else:
        sys.stdout.write(f"ctl {VERSION}\n")
        for name, source in sorted(providers.items()):
            sys.stdout.write(f"+ adapter {name} ({source})\n")
    return int(ExitCode.OK)
