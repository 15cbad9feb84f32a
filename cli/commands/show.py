"""``ctl show``: a saved plan or the current state, for people or as Terraform's JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli import output
from cli.common import print_json_line
from cli.options.globals import options
from vocab.errors import ExitCode

_HELP = """Show a saved plan (ctl show PLANFILE) or the current state (ctl show).

--json prints Terraform's machine-readable plan or state shape, which conftest, checkov and jq
scripts read unchanged; sensitive values are masked unless --show-sensitive.

Example: ctl show --json tfplan | jq '.resource_changes[].change.actions'
"""


def register(app: typer.Typer) -> None:
    app.command("show", help=_HELP)(show_command)


def show_command(
    ctx: typer.Context,
    planfile: Path = typer.Argument(None, help="A plan saved with `ctl plan --out`."),
    json_out: bool = typer.Option(False, "--json", help="Terraform's JSON plan/state representation."),
    show_sensitive: bool = typer.Option(False, "--show-sensitive", help="Show sensitive values in clear."),
) -> int:
    from engine.plan.json_view import plan_to_json, state_to_json
    from vocab.version import VERSION

    color = output.color_enabled(sys.stdout)
    if planfile is not None:
        from cli.views.plan import plan_lines
        from engine.plan.planfile import load_plan

        plan = load_plan(planfile)
        if json_out:
            data = plan_to_json(plan, show_sensitive=show_sensitive, ctl_version=VERSION)
            print_json_line(data)
        else:
            sys.stdout.writelines(line + "\n" for line in plan_lines(plan, color=color))
            if plan.policy_results:
                from policies.report import render_saved

                sys.stdout.write("\nPolicy check:\n" + render_saved(plan.policy_results, plan.policy_override))
        return int(ExitCode.OK)
    from engine.state_tools.access import read_state

    state = read_state(options(ctx).root)
    if json_out:
        print_json_line(state_to_json(state, show_sensitive=show_sensitive, ctl_version=VERSION))
        return int(ExitCode.OK)
    if state.is_empty and not state.outputs:
        sys.stdout.write("The state is empty: nothing has been applied yet.\n")
        return int(ExitCode.OK)
    from cli.views.plan import render_instance

    for addr, inst in state.instances():
        sys.stdout.write(f"# {addr}:\n")
        sys.stdout.write(render_instance(str(addr), inst.marked_attributes(), color=color) + "\n")
    if state.outputs:
        from cli.views.outputs import render_outputs

        sys.stdout.write("Outputs:\n\n" + render_outputs(state))
    return int(ExitCode.OK)
