"""``ctl validate``: check a configuration and report every problem at once."""

from __future__ import annotations

import typer

from cli import output
from cli.common import VAR_FILE_HELP, VAR_HELP, hidden_flag, ordered_var_args, print_json
from cli.lifetime import keep_until_exit
from cli.options.globals import options
from vocab.errors import CtlError, ExitCode


def register(app: typer.Typer) -> None:
    app.command("validate", help=_HELP)(validate_command)


_HELP = """Check that the configuration is valid: syntax, references, types, schemas, cycles.

Reports every problem at once, sorted by file and line. Exit 0 when valid, 1 otherwise.

Example: ctl validate --json | jq '.diagnostics[].summary'
"""


def validate_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print Terraform's validate -json shape."),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    compact_warnings: bool = hidden_flag("--compact-warnings"),
) -> int:
    from engine.validate import validate

    if compact_warnings:
        output.compact_warnings()

    opts = options(ctx)
    try:
        loaded = validate(opts.root, var_args=ordered_var_args(var, var_file))
        keep_until_exit(loaded)
        diags = loaded.diags.sorted()
    except CtlError as err:
        if not json_out:
            raise
        diags = err.diagnostics()  # --json promises JSON on stdout, even when nothing could be loaded
    errors = [d for d in diags if d.severity == "error"]
    warnings = [d for d in diags if d.severity == "warning"]
    if json_out:
        print_json({
            "format_version": "1.0",
            "valid": not errors,
            "error_count": len(errors),
            "warning_count": len(warnings),
            "diagnostics": [output.diagnostic_json(d) for d in diags],
        })
    else:
        output.print_diagnostics(diags)
        if not errors:
            output.stdout().print("[bold green]Success![/] The configuration is valid.")
    return int(ExitCode.ERROR if errors else ExitCode.OK)
