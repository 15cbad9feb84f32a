"""``ctl state …``: look at and repair the stored state by hand, as with ``terraform state``.

Each subcommand parses its options, calls one function of ``engine.state_tools`` and prints the
result: machine output (addresses, JSON, the state document, a lock ID) on stdout so it can be
piped, confirmations on stderr. Commands that change the state hold the workspace lock.

This module holds the ``state`` command group and the options its subcommands share; the
subcommands live in ``state_read_cmd`` (list, show), ``state_edit_cmd`` (mv, rm, replace-provider),
``state_transfer_cmd`` (pull, push), ``state_lock_cmd`` (lock, unlock, lock-status) and
``state_history_cmd`` (history, rollback), and attach themselves to ``state_app`` when imported.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli import output
from cli.global_options import options

if TYPE_CHECKING:
    from engine.locking.options import LockOptions

state_app = typer.Typer(
    name="state",
    help="Inspect and edit the state: list, show, mv, rm, replace-provider, pull, push, lock, unlock, "
         "lock-status, history, rollback.",
    no_args_is_help=True,
    rich_markup_mode=None,
    suggest_commands=False,  # click already suggests the closest command
)

LOCK_HELP = "Hold the state lock while changing it (--lock=false skips it)."
LOCK_TIMEOUT_HELP = "How long to retry a held state lock, e.g. 30s (default 0, or CTL_LOCK_TIMEOUT)."


# The modules whose commands attach to ``state_app``, in the order ``ctl state --help`` lists them.
SUBCOMMAND_MODULES = ("state_read_cmd", "state_edit_cmd", "state_transfer_cmd", "state_lock_cmd",
                      "state_history_cmd")


def register(app: typer.Typer) -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"cli.{name}")
    app.add_typer(state_app, name="state")


def lock_options(lock: bool, timeout: str | None) -> LockOptions:
    """The lock settings of a command that changes state; skipping the lock is said out loud."""
    from cli.run_options import lock_timeout
    from engine.locking.options import LockOptions

    if not lock:
        output.warn("Not locking the state (--lock=false): a concurrent run may overwrite this change.")
    return LockOptions(enabled=lock, timeout=lock_timeout(timeout))


def lock_timeout_option() -> Any:
    """The ``--lock-timeout`` option (a fresh object per command, as click requires)."""
    return typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP)


def root_dir(ctx: typer.Context) -> Path:
    return options(ctx).root
