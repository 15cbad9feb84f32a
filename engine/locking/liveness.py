"""How alive a held lock looks, judged by its heartbeat.

A lock file alone cannot tell a slow run from a crashed one: both leave the same object behind. A
holder renews the lock's ``Heartbeat`` time while it works (``engine.locking.heartbeat``), so anyone
who finds the lock held can look at that time: no renewal for longer than the stale threshold
(``CTL_LOCK_STALE_SECONDS``, 5 minutes) means nobody is renewing it, and the lock is apparently
abandoned.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from engine.locking.options import stale_after
from vocab.locks import LockInfo


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


__all__ = ["Liveness", "human_duration", "liveness", "parse_time"]
