"""``ctl state unlock``: releasing a lock by its ID, or breaking whatever lock is held (``--force``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from backends.base import StateStore
from engine.locking.describe import describe_lock
from engine.locking.liveness import liveness
from vocab.errors import CtlError
from vocab.locks import LockInfo, who_am_i

# The records keep the channel name they have always been published under (``@module`` in CTL_LOG
# output), so log filters and alerts set up for broken locks keep working.
_log = logging.getLogger("engine.state_ops")
_log.addHandler(logging.NullHandler())  # a library's records: shown only when CTL_LOG asks


class UnlockRefused(CtlError):
    """``state unlock`` found no lock, or a lock with another ID than the one given."""


@dataclass(frozen=True)
class Unlocked:
    """What ``ctl state unlock`` removed, and whether it was broken (``--force``) rather than released."""

    lock: LockInfo  # the lock as it was stored when it was removed
    forced: bool
    by: str  # user@host of whoever ran the unlock


def unlock_in(store: StateStore, workspace: str, lock_id: str, *, force: bool = False) -> Unlocked:
    """Release a workspace's lock; with ``force`` break it, and log who broke whose lock.

    Without ``force`` the right ID is the proof of ownership (a wrapper releasing its ``ctl state lock``).
    With it, the lock of another, possibly live, run may be removed: that run then stops at its next
    heartbeat, so the break is logged at warning level with both parties for whoever investigates.
    """
    held = store.lock_info(workspace)
    if held is None:
        raise UnlockRefused(f"The state at {store.describe()} is not locked",
                            hint="Nothing to unlock: the lock was already released.")
    if lock_id != held.ID and not force:
        detail, hint = describe_lock(held, store)
        if held.ID and not liveness(held).abandoned:
            hint = (f"Release that lock with `ctl state unlock {held.ID}` if no run is using it, or add "
                    "--force to release whatever lock is held.")
        raise UnlockRefused(f"Lock ID {lock_id} does not match the lock held on the state", detail=detail,
                            hint=hint)
    removed = store.unlock(workspace, lock_id, force=force)
    me = who_am_i()
    if force:
        _log.warning(
            "state lock %s of %s (%s, created %s) on %s broken with --force by %s",
            removed.ID or "(unreadable)", removed.Who or "an unknown holder", removed.Operation,
            removed.Created or "at an unknown time", store.describe(), me,
            extra={"lock_id": removed.ID, "lock_who": removed.Who, "lock_operation": removed.Operation,
                   "lock_created": removed.Created, "lock_heartbeat": removed.Heartbeat,
                   "broken_by": me, "workspace": workspace},
        )
    return Unlocked(removed, force, me)


__all__ = ["UnlockRefused", "Unlocked", "unlock_in"]
