"""``ctl state lock-status``: the lock held on a workspace, described for people and scripts."""

from __future__ import annotations

from dataclasses import dataclass

from backends.base import StateStore
from engine.locking.describe import describe_lock, unlock_command
from engine.locking.liveness import liveness
from vocab.locks import LockInfo


@dataclass(frozen=True)
class LockStatus:
    info: LockInfo | None  # None: not locked
    description: str = ""  # who, since when, for what (as a held lock is reported)
    age_seconds: float | None = None
    heartbeat_age_seconds: float | None = None  # since the last renewal (creation if never renewed)
    abandoned: bool = False
    unlock_command: str = ""  # the exact command that releases (or, abandoned, breaks) it


def lock_status_in(store: StateStore, workspace: str) -> LockStatus:
    """A workspace's lock with its age, last heartbeat and whether it looks abandoned."""
    held = store.lock_info(workspace)
    if held is None:
        return LockStatus(None)
    live = liveness(held)
    return LockStatus(held, describe_lock(held, store)[0], live.held_seconds, live.silent_seconds,
                      live.abandoned, unlock_command(held, live))


__all__ = ["LockStatus", "lock_status_in"]
