"""``ctl graph``: print the dependency graph of the configuration's instances."""

from __future__ import annotations

import sys
from enum import StrEnum

import typer

from cli import output
from cli.common import VAR_FILE_HELP, VAR_HELP, ordered_var_args
from cli.global_options import options
from engine.errors import DiagnosticsError, ExitCode


class GraphFormat(StrEnum):
    dot = "dot"
    mermaid = "mermaid"


_HELP = """Print the dependency graph: a node per resource instance, data source, variable, local,
output and module call; edges from references and depends_on.

Example: ctl graph --format dot | dot -Tsvg > graph.svg
"""


def register(app: typer.Typer) -> None:
    app.command("graph", help=_HELP)(graph_command)


def graph_command(
    ctx: typer.Context,
    fmt: GraphFormat = typer.Option(GraphFormat.dot, "--format", help="dot or mermaid."),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
) -> int:
    from engine.graph_view import instance_graph, to_dot, to_mermaid
    from engine.validate import load_and_evaluate

    opts = options(ctx)
    loaded = load_and_evaluate(opts.root, var_args=ordered_var_args(var, var_file))  # defaults expand instances
    if loaded.diags.has_errors or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.items)
    output.print_diagnostics(loaded.diags.warnings())
    g = instance_graph(loaded.walk)
    sys.stdout.write(to_dot(g) if fmt == GraphFormat.dot else to_mermaid(g))
    return int(ExitCode.OK)
