"""The message a user reads about a lock somebody else holds: who, since when, for what, how alive,
and the exact command that releases it (or, for an abandoned lock, breaks it).

Every path that meets a held lock — a run taking it, ``ctl state lock``, ``ctl workspace delete``,
``ctl state unlock`` with the wrong ID, ``ctl state lock-status`` — words it through these functions,
so the user reads the same facts and the same command everywhere.
"""

from __future__ import annotations

from backends.base import LocalStateFile, StateStore
from backends.local.holders import holder_is_gone
from engine.locking.liveness import Liveness, human_duration, liveness
from vocab.errors import LockHeld
from vocab.locks import LockInfo

UNLOCK_COMMAND = "ctl state unlock"

_OPERATIONS = {
    "OperationTypeApply": "apply",
    "OperationTypePlan": "plan",
    "OperationTypeRefresh": "refresh",
    "OperationTypeInvalid": "a manual lock",
    "OperationTypeStateLock": "state lock",
    "OperationTypeStateMv": "state mv",
    "OperationTypeStateRm": "state rm",
    "OperationTypeStatePush": "state push",
    "OperationTypeStateRollback": "state rollback",
    "OperationTypeImport": "import",
}


def operation_name(operation: str) -> str:
    """``OperationTypeApply`` -> ``apply``: how a person names what the holder was doing."""
    if operation in _OPERATIONS:
        return _OPERATIONS[operation]
    if operation.startswith("OperationType") and len(operation) > len("OperationType"):
        return operation[len("OperationType"):].lower()
    return operation or "an unknown operation"


def abandoned_phrase(info: LockInfo, live: Liveness) -> str:
    """``apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)``."""
    silent = human_duration(live.silent_seconds or 0.0)
    who = info.Who or "an unknown holder"
    return f"apparently abandoned (no heartbeat for {silent}, held by {who} for {operation_name(info.Operation)})"


def unlock_command(info: LockInfo, live: Liveness) -> str:
    """The exact command that releases this lock: with ``--force`` for an abandoned (or unreadable) one.

    An abandoned lock's holder is not around to release it, so it is broken rather than released; the
    ``--force`` in the command says so, and makes the break logged as such.
    """
    if live.abandoned or not info.ID:
        return f"{UNLOCK_COMMAND} --force {info.ID or '<ID>'}"
    return f"{UNLOCK_COMMAND} {info.ID}"


def held_summary(info: LockInfo, live: Liveness) -> str:
    """The first line of a held-lock error: who holds it, or that it looks abandoned."""
    if live.abandoned:
        return f"The state is locked, {abandoned_phrase(info, live)}"
    return f"The state is locked by {info.Who or 'an unknown holder'} ({info.Operation})"


def release_hint(info: LockInfo, live: Liveness) -> str:
    """What to do about a held lock, with the exact command to run."""
    if live.abandoned:
        return (f"The lock is {abandoned_phrase(info, live)}. If no run is using the state, break it "
                f"with: {unlock_command(info, live)}")
    if not info.ID:
        return f"The lock file cannot be read; if no run is active, remove it with: {unlock_command(info, live)}"
    return f"If no run is active, release it with: {unlock_command(info, live)}"


def describe_lock(info: LockInfo, store: StateStore) -> tuple[str, str]:
    """(detail, hint): who holds a lock, since when, for what, its last heartbeat, how to release it.

    A lock nobody renewed for longer than the stale threshold is called apparently abandoned and the
    hint gives the exact ``ctl state unlock --force <ID>``: its holder is not around to release it,
    so it is broken, knowingly. A live lock keeps the plain ``ctl state unlock <ID>``.
    """
    live = liveness(info)
    since = info.Created
    if live.held_seconds is not None:
        since = f"{info.Created} ({human_duration(live.held_seconds)} ago)"
    if info.Heartbeat and live.silent_seconds is not None:
        beat = f"{info.Heartbeat} ({human_duration(live.silent_seconds)} ago)"
    else:
        beat = "none recorded (the holder does not renew it)"
    lines = [
        f"Lock ID:   {info.ID}",
        f"Path:      {info.Path or store.describe()}",
        f"Held by:   {info.Who}",
        f"Operation: {info.Operation}",
        f"Since:     {since}",
        f"Heartbeat: {beat}",
    ]
    if info.Info:
        lines.append(f"Reason:    {info.Info}")
    if live.abandoned:
        lines.append(f"Status:    {abandoned_phrase(info, live)}")
    if isinstance(store, LocalStateFile) and holder_is_gone(info):  # a lock file here: its PID is ours to check
        lines.append(f"The process holding it (PID {info.PID}) no longer runs: the lock was left behind.")
    return "\n".join(lines), release_hint(info, live)


class DescribedLockHeld(LockHeld):
    """A ``LockHeld`` already worded for the store it came from.

    A lock taken inside another command's lock (``ctl init --migrate-state`` locks two stores) must
    reach the user described against its own store, not re-described by the outer lock's.
    """


def held_error(holder: LockInfo, store: StateStore, summary: str | None = None) -> DescribedLockHeld:
    """The error for a lock somebody else holds: ``summary`` (default: who holds it) with the description."""
    detail, hint = describe_lock(holder, store)
    if summary is None:
        summary = held_summary(holder, liveness(holder))
    return DescribedLockHeld(summary, detail=detail, hint=hint, holder=holder)


__all__ = [
    "UNLOCK_COMMAND", "DescribedLockHeld", "abandoned_phrase", "describe_lock", "held_error", "held_summary",
    "operation_name", "release_hint", "unlock_command",
]
