"""``ctl graph``: print the dependency graph of the configuration's instances."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from cli import output
from cli.common import VAR_FILE_HELP, VAR_HELP, ordered_var_args
from cli.options.globals import options
from vocab.errors import DiagnosticsError, ExitCode, UsageError


class GraphFormat(StrEnum):
    dot = "dot"
    mermaid = "mermaid"


class GraphType(StrEnum):
    plan = "plan"
    plan_destroy = "plan-destroy"
    apply = "apply"
    validate = "validate"
    input = "input"
    refresh = "refresh"


_TYPE_HELP = ("Accepted for Terraform's command line: ctl draws one graph, the dependencies of the "
              "configuration's instances, whichever operation is named.")

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
    plan: Path = typer.Option(None, "--plan", metavar="PLANFILE",
                              help="Expand the instances with the variable values and workspace of this saved "
                                   "plan (like Terraform's -plan)."),
    graph_type: GraphType = typer.Option(None, "--type", help=_TYPE_HELP),
    draw_cycles: bool = typer.Option(False, "--draw-cycles",
                                     help="Accepted for Terraform's command line: a cycle is always an error "
                                          "naming the objects on it, so no graph with one is drawn."),
    module_depth: int = typer.Option(None, "--module-depth", metavar="N",
                                     help="Accepted for Terraform's command line, where it has had no effect "
                                          "since 0.14: every module is drawn."),
) -> int:
    from engine.graph_view import instance_graph, to_dot, to_mermaid
    from engine.validate import load_and_evaluate

    opts = options(ctx)
    if plan is not None:
        from engine.plan.planfile import load_plan

        if var or var_file:
            raise UsageError("--plan takes the variable values the plan was made with",
                             hint="Leave out --var and --var-file.")
        saved = load_plan(plan, opts.root)
        loaded = load_and_evaluate(opts.root, workspace=saved.workspace, decided=saved.variables)
    else:
        loaded = load_and_evaluate(opts.root, var_args=ordered_var_args(var, var_file))  # defaults expand instances
    if loaded.diags.has_errors or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.items)
    output.print_diagnostics(loaded.diags.warnings())
    g = instance_graph(loaded.walk)
    sys.stdout.write(to_dot(g) if fmt == GraphFormat.dot else to_mermaid(g))
    return int(ExitCode.OK)
