"""``ctl state list`` and ``ctl state show``: read the stored state, change nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli import output
from cli.commands.state.group import state_app
from cli.common import STATE_FILE_HELP, print_json, read_state_or_file
from cli.completion.completers import complete_addresses, complete_instances
from cli.options.globals import root_dir
from vocab.errors import ExitCode


@state_app.command("list", help="""List the resource instances in the state, optionally only those under ADDRESS.

An address filters by prefix: a resource matches all its instances, module.NAME everything in it.

Example: ctl state list 'module.net'""")
def list_command(
    ctx: typer.Context,
    addresses: list[str] = typer.Argument(None, help="Only instances under these addresses.",
                                         autocompletion=complete_addresses),
    resource_id: str = typer.Option(None, "--id", help="Only instances whose id attribute is this."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON list of addresses."),
    state: Path = typer.Option(None, "--state", metavar="FILE", help=STATE_FILE_HELP),
) -> int:
    from engine.state_tools.listing import list_addresses

    found = list_addresses(read_state_or_file(root_dir(ctx), state), list(addresses or []), resource_id)
    if json_out:
        print_json(found)
    else:
        sys.stdout.write("".join(f"{a}\n" for a in found))
    return int(ExitCode.OK)


@state_app.command("show", help="""Show one resource instance in the state, its secrets masked.

Example: ctl state show 'random_id.a[0]' --json""")
def show_command(
    ctx: typer.Context,
    address: str = typer.Argument(..., help="The instance address, e.g. random_id.a or random_id.b[0].",
                                 autocompletion=complete_instances),
    json_out: bool = typer.Option(False, "--json", help="Print the instance as ctl show --json does."),
    show_sensitive: bool = typer.Option(False, "--show-sensitive", help="Show sensitive values in clear."),
    state: Path = typer.Option(None, "--state", metavar="FILE", help=STATE_FILE_HELP),
) -> int:
    from engine.state_tools.listing import find_instance, instance_json

    shown = find_instance(read_state_or_file(root_dir(ctx), state), address)
    if json_out:
        print_json(instance_json(shown, show_sensitive=show_sensitive))
        return int(ExitCode.OK)
    from cli.views.plan import render_instance

    attrs = shown.instance.attributes if show_sensitive else shown.instance.marked_attributes()
    sys.stdout.write(render_instance(shown.address, attrs, color=output.color_enabled(sys.stdout)))
    return int(ExitCode.OK)
