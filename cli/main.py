"""Entry point of the ``ctl`` command (filled in by the CLI modules)."""

import typer

app = typer.Typer(name="ctl", no_args_is_help=True)
