"""``ctl state ...``: the group, and its subcommands, which attach themselves to it when imported."""

from __future__ import annotations

import importlib

import typer

# The subcommand modules, in the order ``ctl state --help`` lists their commands.
SUBCOMMANDS = ("read", "edit", "transfer", "lock", "history")


def register(app: typer.Typer) -> None:
    from cli.commands.state import group

    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}")
    group.register(app)
