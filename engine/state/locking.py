"""Taking and releasing the state lock around a run, with ``--lock-timeout`` waiting.

Every command that may write state takes the lock first and releases it on the way out, whatever
happens. A wrapper script that took the lock once can hand its ID to several ctl runs through
``CTL_LOCK_ID``: those runs then check that the lock is theirs and leave it in place.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from backends.base import LockInfo, StateStore
from engine.errors import CtlError, LockHeld, UsageError

LOCK_ID_ENV = "CTL_LOCK_ID"
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 16.0

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """``"30s"``, ``"5m"``, ``"1h30m"``, ``"1.5s"``, ``"0"`` -> seconds (Go duration syntax, like Terraform)."""
    s = text.strip()
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if not m:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not s or pos != len(s):
        raise UsageError(
            f'invalid duration "{text}"', hint="Use a number with a unit, such as 0, 30s, 5m or 1h30m."
        )
    return total


def acquire(store: StateStore, workspace: str, info: LockInfo, timeout_s: float) -> LockInfo:
    """Lock the workspace, retrying with backoff (1 s doubling to 16 s) until ``timeout_s`` has passed.

    ``timeout_s == 0`` makes exactly one attempt. Raises the last ``LockHeld`` (with ``.holder``)
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
                    exc.summary = f"{exc.summary}; still held after waiting {_format_s(timeout_s)}"
                    exc.args = (exc.summary,)
                raise
            time.sleep(min(backoff, remaining))
            backoff = min(backoff * 2, MAX_BACKOFF_S)


def lock_id_from_env() -> str | None:
    """The lock ID handed down by a wrapper that holds the lock (``CTL_LOCK_ID``), if any."""
    return os.environ.get(LOCK_ID_ENV) or None


@contextmanager
def held_lock(
    store: StateStore,
    workspace: str,
    operation: str,
    info_text: str = "",
    timeout: float = 0.0,
    reuse_id: str | None = None,
) -> Iterator[LockInfo]:
    """Hold the workspace's lock for the body; release it afterwards even when the body fails.

    With ``reuse_id`` the lock must already be held with exactly that ID (taken by a wrapper); it
    is checked, used, and left in place.
    """
    if reuse_id:
        yield _verify_reused(store, workspace, reuse_id)
        return
    info = acquire(store, workspace, LockInfo(Operation=operation, Info=info_text), timeout)
    try:
        yield info
    except BaseException:
        with suppress(Exception):  # the body's own error is the one worth reporting
            store.unlock(workspace, info.ID)
        raise
    try:
        store.unlock(workspace, info.ID)
    except CtlError as exc:
        raise CtlError(
            f"could not release the state lock {info.ID}: {exc.summary}",
            hint="Someone removed or replaced the lock while this run held it; check the state "
            "with `ctl state list` before the next run.",
        ) from None


def _verify_reused(store: StateStore, workspace: str, lock_id: str) -> LockInfo:
    held = store.lock_info(workspace)
    where = store.describe()
    if held is None:
        raise CtlError(
            f"{LOCK_ID_ENV} is {lock_id} but the state at {where} is not locked",
            hint=f"Take the lock first, or unset {LOCK_ID_ENV} to let ctl lock the state itself.",
        )
    if lock_id != held.ID:
        err = LockHeld(
            f"{LOCK_ID_ENV} is {lock_id} but the state at {where} is locked by {held.Who} "
            f"with lock ID {held.ID}",
            hint=f"Wait for that run to finish, or unset {LOCK_ID_ENV}.",
        )
        err.holder = held  # type: ignore[attr-defined]
        raise err
    return held


def _format_s(seconds: float) -> str:
    return f"{seconds:g}s"


__all__ = ["LOCK_ID_ENV", "acquire", "held_lock", "lock_id_from_env", "parse_duration"]
