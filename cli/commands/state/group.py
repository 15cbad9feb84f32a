"""``ctl state …``: look at and repair the stored state by hand, as with ``terraform state``.

Each subcommand parses its options, calls one function of ``engine.state_tools`` and prints the
result: machine output (addresses, JSON, the state document, a lock ID) on stdout so it can be
piped, confirmations on stderr. Commands that change the state hold the workspace lock.

This module holds the ``state`` command group; the subcommands live beside it in ``read`` (list,
show), ``edit`` (mv, rm, replace-provider), ``transfer`` (pull, push), ``lock`` (lock, unlock,
lock-status) and ``history`` (history, rollback), and attach themselves to ``state_app`` when
imported. The lock options they share are ``cli.options.lock``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    pass

state_app = typer.Typer(
    name="state",
    help="Inspect and edit the state: list, show, mv, rm, replace-provider, pull, push, lock, unlock, "
         "lock-status, history, rollback.",
    no_args_is_help=True,
    rich_markup_mode=None,
    suggest_commands=False,  # click already suggests the closest command
)



def register(app: typer.Typer) -> None:
    """Attach ``state`` (its subcommands attach themselves when ``cli.commands.state`` imports them)."""
    app.add_typer(state_app, name="state")
