"""The lock settings a user controls: ``--lock``/``--lock-timeout``, ``CTL_LOCK_ID`` and the
heartbeat and stale thresholds (``CTL_LOCK_HEARTBEAT_SECONDS``, ``CTL_LOCK_STALE_SECONDS``).

They are read in one place so that a malformed value is one clear usage error, the same for every
command, rather than something each caller parses (or silently ignores) its own way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from vocab.errors import UsageError

LOCK_ID_ENV = "CTL_LOCK_ID"
HEARTBEAT_ENV = "CTL_LOCK_HEARTBEAT_SECONDS"
STALE_ENV = "CTL_LOCK_STALE_SECONDS"
DEFAULT_INTERVAL_S = 30.0
DEFAULT_STALE_S = 300.0

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


@dataclass
class LockOptions:
    """How a command that changes state locks it: at all (``--lock``), and how long it waits."""

    enabled: bool = True
    timeout: float = 0.0
    reason: str = ""


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


def lock_id_from_env() -> str | None:
    """The lock ID handed down by a wrapper that holds the lock (``CTL_LOCK_ID``), if any."""
    return os.environ.get(LOCK_ID_ENV) or None


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


__all__ = [
    "DEFAULT_INTERVAL_S", "DEFAULT_STALE_S", "HEARTBEAT_ENV", "LOCK_ID_ENV", "STALE_ENV", "LockOptions",
    "heartbeat_interval", "lock_id_from_env", "parse_duration", "stale_after",
]
