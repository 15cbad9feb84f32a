"""Holding the workspace lock around a command's body: taken (or reused through ``CTL_LOCK_ID``),
renewed by a heartbeat while the body runs, released afterwards whatever happens.

A wrapper script that took the lock once (``ctl state lock``) can hand its ID to several ctl runs
through ``CTL_LOCK_ID``: those runs then check that the lock is theirs and leave it in place.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from backends.base import BackendError, StateStore
from engine.locking.acquire import acquire
from engine.locking.describe import DescribedLockHeld, held_error
from engine.locking.heartbeat import Heartbeat
from engine.locking.options import LOCK_ID_ENV, LockOptions, lock_id_from_env
from vocab.errors import CtlError, LockHeld
from vocab.locks import LockInfo


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
    except BaseException as failure:
        try:
            store.unlock(workspace, info.ID)
        except Exception as exc:  # the body's own error is the one worth reporting, with what is left
            if isinstance(failure, CtlError) and isinstance(exc, BackendError):
                failure.hint = " ".join(filter(None, (failure.hint, _still_held(info.ID))))
        raise
    try:
        store.unlock(workspace, info.ID)
    except BackendError as exc:
        raise CtlError(f"could not release the state lock {info.ID}: {exc.summary}",
                       hint=_still_held(info.ID)) from None
    except CtlError as exc:
        raise CtlError(
            f"could not release the state lock {info.ID}: {exc.summary}",
            hint="Someone removed or replaced the lock while this run held it; check the state "
            "with `ctl state list` before the next run.",
        ) from None


def _still_held(lock_id: str) -> str:
    return (f"The state lock {lock_id} could not be released and is still held: once the storage "
            f"answers, release it with `ctl state unlock {lock_id}`.")


def _verify_reused(store: StateStore, workspace: str, lock_id: str) -> LockInfo:
    held = store.lock_info(workspace)
    where = store.describe()
    if held is None:
        raise CtlError(
            f"{LOCK_ID_ENV} is {lock_id} but the state at {where} is not locked",
            hint=f"Take the lock first, or unset {LOCK_ID_ENV} to let ctl lock the state itself.",
        )
    if lock_id != held.ID:
        raise LockHeld(
            f"{LOCK_ID_ENV} is {lock_id} but the state at {where} is locked by {held.Who} "
            f"with lock ID {held.ID}",
            hint=f"Wait for that run to finish, or unset {LOCK_ID_ENV}.",
            holder=held,
        )
    return held


@contextmanager
def locked(store: StateStore, workspace: str, operation: str, opts: LockOptions, *,
           stop: threading.Event | None = None) -> Iterator[LockInfo | None]:
    """Hold the workspace lock (or reuse ``CTL_LOCK_ID``) for the body, renewing its heartbeat.

    A held lock becomes a message naming the holder, or saying it looks abandoned. While the body
    runs, a ``Heartbeat`` thread renews the lock (a wrapper's lock reused through ``CTL_LOCK_ID``
    too, so it does not look abandoned while this command works). If a renewal finds the lock
    broken, ``stop`` is set — an apply then starts nothing new, finishes what runs and persists —
    and when the body is done ``LockLost`` is raised (exit 1) naming who broke it: the lock is no
    longer ours to release, and the user must hear that the run was not protected to the end.
    """
    if not opts.enabled:
        yield None
        return
    try:
        with held_lock(store, workspace, operation, opts.reason, opts.timeout, lock_id_from_env()) as info:
            beat = Heartbeat(store, workspace, info, stop=stop).start()
            try:
                yield info
            except CtlError as exc:
                beat.close()
                if beat.lost is not None:
                    raise beat.error_after(exc) from exc
                raise
            finally:
                beat.close()
            if beat.lost is not None:
                raise beat.lost
    except LockHeld as exc:
        if exc.holder is None or isinstance(exc, DescribedLockHeld):
            raise
        # With CTL_LOCK_ID the summary says which ID was expected; with a timeout, how long we waited.
        summary = exc.summary if lock_id_from_env() or opts.timeout > 0 else None
        raise held_error(exc.holder, store, summary) from None


__all__ = ["held_lock", "locked"]
