"""``ctl output``: the root module's outputs from state, for people and for scripts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from cli import output
from cli.common import STATE_FILE_HELP, hidden_flag, read_state_or_file
from cli.options.globals import options
from cli.views.outputs import hcl_value, render_outputs
from engine.lang.functions import json_text, json_text_indented
from vocab.errors import CtlError, ExitCode

_HELP = """Show the root module's outputs recorded in state.

--json prints {name: {sensitive, type, value}}; --raw NAME prints a string, number or bool as is.
Sensitive values are masked unless --json, --raw or --show-sensitive asks for them by name.

Example: ctl output --raw bucket_name
"""


def register(app: typer.Typer) -> None:
    app.command("output", help=_HELP)(output_command)


def output_command(
    ctx: typer.Context,
    name: str = typer.Argument(None, help="One output to print."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable JSON."),
    raw: bool = typer.Option(False, "--raw", help="Print a single string/number/bool without quotes."),
    show_sensitive: bool = typer.Option(False, "--show-sensitive", help="Show sensitive values in clear."),
    compact_warnings: bool = hidden_flag("--compact-warnings"),  # output has no warnings to compact
    state_file: Path = typer.Option(None, "--state", metavar="FILE", help=STATE_FILE_HELP),
) -> int:
    state = read_state_or_file(options(ctx).root, state_file)
    outs = state.outputs
    if name is not None and name not in outs:
        raise CtlError(f'Output "{name}" not found',
                       detail="The state has no output with this name: a new output is recorded by the "
                              "next apply, and one whose value is null is never recorded.",
                       hint="Run `ctl output` to list them, or `ctl apply` if the output is new.")
    if raw:
        if name is None:
            raise CtlError("--raw needs an output name")
        value = outs[name].value
        if isinstance(value, bool):
            sys.stdout.write("true" if value else "false")
        elif isinstance(value, int | float | str):
            sys.stdout.write(str(value))
        else:
            raise CtlError(f'Output "{name}" is not a string, number or bool', hint="Use --json instead.")
        return int(ExitCode.OK)
    if json_out:
        def entry(o: Any) -> dict[str, Any]:
            return {"sensitive": o.sensitive, "type": o.type, "value": o.value}
        # As Terraform and OpenTofu: one named output's value on one line, else the map laid out,
        # both with Go's escapes (``<`` as ``\u003c``, other characters as they are).
        if name is not None:
            sys.stdout.write(json_text(outs[name].value) + "\n")
        else:
            sys.stdout.write(json_text_indented({k: entry(v) for k, v in sorted(outs.items())}) + "\n")
        return int(ExitCode.OK)
    if name is not None:
        o = outs[name]
        text = "(sensitive value)" if o.sensitive and not show_sensitive else hcl_value(o.value)
        sys.stdout.write(text + "\n")
        return int(ExitCode.OK)
    if not outs:
        output.warn("No outputs found: the state has none, or every output's value is null.")
        return int(ExitCode.OK)
    sys.stdout.write(render_outputs(state, show_sensitive=show_sensitive))
    return int(ExitCode.OK)


