"""Keeping a held state lock visibly alive, and telling a live lock from an abandoned one.

A lock file alone cannot tell a slow run from a crashed one: both leave the same object behind. So
while a command holds the lock, a daemon thread rewrites the lock's ``Heartbeat`` time every 30 s
(``CTL_LOCK_HEARTBEAT_SECONDS``) with the store's compare-and-swap ``renew_lock``. Anyone who finds the
lock held can then look at that time: a heartbeat older than 5 minutes (``CTL_LOCK_STALE_SECONDS``)
means nobody is renewing it, and the message says the lock is apparently abandoned and gives the
exact ``ctl state unlock --force <ID>`` command.

The renewal is also how a run learns that its lock was broken: ``renew_lock`` raises ``LockLost``
when the lock is gone or carries another ID. The heartbeat then sets the run's ``stop`` event (the
apply starts nothing new, lets running operations finish and persists) and keeps the error for
``engine.session.locked`` to raise once the command's body is done, so the command exits 1 saying who
broke the lock. A failed renewal for any other reason (the network, throttling) is only logged and
retried at the next beat: a missed beat or two is far from the stale threshold, while stopping an
apply for a transient error would leave work half done for nothing.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime

from backends.base import LockInfo, LockLost, StateStore
from engine.errors import CtlError, UsageError

HEARTBEAT_ENV = "CTL_LOCK_HEARTBEAT_SECONDS"
STALE_ENV = "CTL_LOCK_STALE_SECONDS"
DEFAULT_INTERVAL_S = 30.0
DEFAULT_STALE_S = 300.0
UNLOCK_COMMAND = "ctl state unlock"
_JOIN_TIMEOUT_S = 60.0  # a renewal in flight when the run ends: wait for it before the lock is released

_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())  # a library's records: shown only when CTL_LOG asks


def _seconds_from_env(name: str, default: float) -> float:
    """A positive number of seconds from the environment; a malformed value is an error, not ignored.

    Silently falling back to the default would make a typo in a CI setting invisible — and a stale
    threshold set by mistake to "5" instead of "300" would report every live lock as abandoned.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise UsageError(f'{name} must be a positive number of seconds (got "{raw}")',
                         hint=f"Unset {name} to use the default of {default:g} seconds.")
    return value


def heartbeat_interval() -> float:
    """Seconds between two renewals of a held lock (``CTL_LOCK_HEARTBEAT_SECONDS``, default 30)."""
    return _seconds_from_env(HEARTBEAT_ENV, DEFAULT_INTERVAL_S)


def stale_after() -> float:
    """Seconds without a heartbeat after which a lock counts as abandoned (``CTL_LOCK_STALE_SECONDS``)."""
    return _seconds_from_env(STALE_ENV, DEFAULT_STALE_S)


# -- how alive a lock looks ---------------------------------------------------------------------------


def parse_time(text: str) -> datetime | None:
    """An RFC 3339 time as stored in lock files; None when missing or unreadable."""
    if not text:
        return None
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Liveness:
    """How long a lock has been held, how long since its last heartbeat, and what that means."""

    held_seconds: float | None  # since Created; None when Created is unreadable
    silent_seconds: float | None  # since Heartbeat (Created for a lock written without one)
    abandoned: bool

    @property
    def last_beat_known(self) -> bool:
        return self.silent_seconds is not None


def liveness(info: LockInfo, *, now: datetime | None = None, stale_s: float | None = None) -> Liveness:
    """Judge a lock by its heartbeat: abandoned when nobody renewed it for ``stale_s`` seconds.

    A lock with neither a readable heartbeat nor a readable creation time (an unreadable lock file)
    is never called abandoned: nothing says how old it is, and ``--force`` is the way out anyway.
    """
    now = now or datetime.now(UTC)
    threshold = stale_after() if stale_s is None else stale_s
    created = parse_time(info.Created)
    beat = parse_time(info.Heartbeat) or created
    held = None if created is None else max((now - created).total_seconds(), 0.0)
    silent = None if beat is None else max((now - beat).total_seconds(), 0.0)
    return Liveness(held, silent, silent is not None and silent > threshold)


def human_duration(seconds: float) -> str:
    """``45s``, ``12m``, ``3h5m``, ``2d4h``: short enough for one line of a lock message."""
    s = int(max(seconds, 0))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60}m"
    return f"{s // 86400}d{(s % 86400) // 3600}h"


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


# -- renewing a held lock -----------------------------------------------------------------------------


class Heartbeat:
    """A daemon thread renewing one held lock every ``interval`` seconds until ``close``.

    ``lost`` is set (and ``stop``, when given, too) the first time a renewal finds the lock gone or
    replaced; the thread ends then, since renewing somebody else's lock is exactly what must not
    happen. Use it as a context manager, or ``start`` and ``close`` it.
    """

    def __init__(self, store: StateStore, workspace: str, info: LockInfo, *,
                 interval: float | None = None, stop: threading.Event | None = None) -> None:
        self.store = store
        self.workspace = workspace
        self.info = info  # the lock as last renewed
        self.interval = heartbeat_interval() if interval is None else interval
        self.stop = stop
        self.renewals = 0
        self._lost: LockLost | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"ctl-lock-heartbeat-{info.ID[:8]}",
                                        daemon=True)

    @property
    def lost(self) -> LockLost | None:
        """The error of the renewal that found the lock broken, if one did."""
        return self._lost

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop renewing; waits for a renewal in flight so it cannot land after the lock is released."""
        self._closing.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(_JOIN_TIMEOUT_S)

    def __enter__(self) -> Heartbeat:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def error_after(self, failure: CtlError) -> LockLost:
        """The lost-lock error for a body that also failed: the lock news first, the failure's hint kept.

        The failure is often a consequence (a state write refused because whoever broke the lock wrote
        the state since), and its hint is the actionable part — for a refused write it names the
        ``errored.tfstate`` saved and the ``ctl state push`` that uploads it.
        """
        lost = self._lost or LockLost("the state lock was lost")
        detail = f"Then: {failure.summary}" + (f"\n{failure.detail}" if failure.detail else "")
        return LockLost(lost.summary, detail=detail, hint=failure.hint or lost.hint)

    def beat(self) -> bool:
        """Renew once now; False (with ``lost`` set) when the lock is no longer ours."""
        if self._lost is not None:
            return False
        try:
            self.info = self.store.renew_lock(self.workspace, self.info)
        except LockLost as exc:
            self._lost = exc
            _log.warning("state lock lost: %s", exc.summary,
                         extra={"lock_id": self.info.ID, "workspace": self.workspace})
            if self.stop is not None:
                self.stop.set()
            return False
        self.renewals += 1
        _log.debug("renewed state lock %s", self.info.ID,
                   extra={"lock_id": self.info.ID, "heartbeat": self.info.Heartbeat})
        return True

    def _run(self) -> None:
        while not self._closing.wait(self.interval):
            try:
                if not self.beat():
                    return
            except Exception as exc:  # a network blip must not kill the thread: try at the next beat
                _log.warning("could not renew the state lock %s (will retry in %gs): %s",
                             self.info.ID, self.interval, getattr(exc, "summary", exc),
                             extra={"lock_id": self.info.ID, "workspace": self.workspace})


__all__ = [
    "DEFAULT_INTERVAL_S",
    "DEFAULT_STALE_S",
    "HEARTBEAT_ENV",
    "STALE_ENV",
    "Heartbeat",
    "Liveness",
    "abandoned_phrase",
    "heartbeat_interval",
    "held_summary",
    "human_duration",
    "liveness",
    "operation_name",
    "parse_time",
    "release_hint",
    "stale_after",
    "unlock_command",
]
