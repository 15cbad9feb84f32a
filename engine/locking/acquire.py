"""Taking the workspace lock: one attempt, or retries with backoff until ``--lock-timeout`` runs out."""

from __future__ import annotations

import time

from backends.base import StateStore
from engine.locking.describe import held_error
from vocab.errors import LockHeld
from vocab.locks import LockInfo

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 16.0


def acquire(store: StateStore, workspace: str, info: LockInfo, timeout_s: float) -> LockInfo:
    """Lock the workspace, retrying with backoff (1 s doubling to 16 s) until ``timeout_s`` has passed.

    ``timeout_s == 0`` makes exactly one attempt. Raises the last ``LockHeld`` (with its ``holder``)
    when the lock is still held at the deadline.
    """
    deadline = time.monotonic() + max(timeout_s, 0.0)
    backoff = FIRST_BACKOFF_S
    while True:
        try:
            store.lock(workspace, info)
            return info
        except LockHeld as exc:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if timeout_s > 0:
                    exc.summary = f"{exc.summary}; still held after waiting {timeout_s:g}s"
                    exc.args = (exc.summary,)
                raise
            time.sleep(min(backoff, remaining))
            backoff = min(backoff * 2, MAX_BACKOFF_S)


def acquire_and_keep(store: StateStore, workspace: str, operation: str, reason: str, timeout: float,
                     *, pid: int | None = None) -> LockInfo:
    """Take the lock and keep it past this call; a held lock is reported like every run reports it (exit 4).

    For ``ctl state lock`` (the lock outlives the command, for a wrapper to use) and for
    ``ctl workspace delete`` (which releases it itself once the workspace is gone).
    """
    info = LockInfo(Operation=operation, Info=reason) if pid is None else \
        LockInfo(Operation=operation, Info=reason, PID=pid)
    try:
        return acquire(store, workspace, info, timeout)
    except LockHeld as exc:
        if exc.holder is None:
            raise
        raise held_error(exc.holder, store) from None


__all__ = ["FIRST_BACKOFF_S", "MAX_BACKOFF_S", "acquire", "acquire_and_keep"]
