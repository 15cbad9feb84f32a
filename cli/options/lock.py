"""The state-lock options of every command that changes state: ``--lock`` and ``--lock-timeout``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from cli import output
from cli.options.run import LOCK_TIMEOUT_HELP, lock_timeout

if TYPE_CHECKING:
    from engine.locking.options import LockOptions

LOCK_HELP = "Hold the state lock while changing it (--lock=false skips it)."


def lock_options(lock: bool, timeout: str | None) -> LockOptions:
    """The lock settings of a command that changes state; skipping the lock is said out loud."""
    from engine.locking.options import LockOptions

    if not lock:
        output.warn("Not locking the state (--lock=false): a concurrent run may overwrite this change.")
    return LockOptions(enabled=lock, timeout=lock_timeout(timeout))


def lock_timeout_option() -> Any:
    """The ``--lock-timeout`` option (a fresh object per command, as click requires)."""
    return typer.Option(None, "--lock-timeout", help=LOCK_TIMEOUT_HELP)
