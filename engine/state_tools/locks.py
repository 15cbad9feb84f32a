"""``ctl state lock``, ``unlock`` and ``lock-status`` on the selected workspace (``engine.locking`` does the work)."""

from __future__ import annotations

from pathlib import Path

from engine.locking.acquire import acquire_and_keep
from engine.locking.release import Unlocked, unlock_in
from engine.locking.status import LockStatus, lock_status_in
from engine.state_tools.access import open_backend
from vocab.locks import LockInfo


def lock(root_dir: Path, reason: str, timeout: float) -> LockInfo:
    """``ctl state lock``: acquire the workspace lock and leave it held for a wrapper to use."""
    store, workspace = open_backend(root_dir)
    # PID 0: the lock outlives this process on purpose, so it must not look "left behind" by it.
    taken = acquire_and_keep(store, workspace, "OperationTypeStateLock", reason, timeout, pid=0)
    return store.lock_info(workspace) or taken  # as stored (the store fills in Path)


def unlock(root_dir: Path, lock_id: str, *, force: bool = False) -> Unlocked:
    """``ctl state unlock``: release the lock with this ID (any ID with ``force``)."""
    store, workspace = open_backend(root_dir)
    return unlock_in(store, workspace, lock_id, force=force)


def lock_status(root_dir: Path) -> LockStatus:
    """The lock held on the selected workspace, if any, described for people and scripts."""
    store, workspace = open_backend(root_dir)
    return lock_status_in(store, workspace)


__all__ = ["lock", "lock_status", "unlock"]
