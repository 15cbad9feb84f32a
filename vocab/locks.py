"""Who holds a state lock, and since when: the JSON a lock file holds, shared by every layer.

The engine reports a held lock (``errors.LockHeld``), the backends read and write it, the CLI prints
it; so the record lives here, below all of them, with the clock and the ``user@host`` it records.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_rfc3339() -> str:
    """The current UTC time as RFC 3339 with microseconds, the format of every time a store records."""
    return _now()


def who_am_i() -> str:
    """``user@host`` of this process, as recorded in locks and history entries."""
    return _who()


def _who() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no passwd entry in some containers
        user = os.environ.get("USER", "unknown")
    return f"{user}@{socket.gethostname()}"


@dataclass
class LockInfo:
    """The JSON held in a lock file, with Terraform's field names (plus ``PID`` and ``Heartbeat``)."""

    ID: str = field(default_factory=lambda: str(uuid.uuid4()))
    Operation: str = "OperationTypeInvalid"
    Info: str = ""
    Who: str = field(default_factory=_who)
    Version: str = "0.1.0"
    Created: str = field(default_factory=_now)
    Path: str = ""
    PID: int = field(default_factory=os.getpid)
    Heartbeat: str = ""

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=2).encode()

    @classmethod
    def from_json(cls, data: bytes) -> LockInfo:
        """Parse a lock file; ValueError unless it is a JSON object with a string ``ID``.

        Without that check a truncated or foreign file would parse as a lock with a fresh random ID
        that nobody holds and nobody could name to unlock it.
        """
        raw = json.loads(data)
        if not isinstance(raw, dict) or not isinstance(raw.get("ID"), str):
            raise ValueError("not lock-info JSON (an object with an ID)")
        known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw}
        return cls(**known)



def unreadable_lock(detail: str) -> LockInfo:
    """What a lock object that is not lock JSON is reported as: present, held, ID unknown."""
    return LockInfo(ID="", Who="", Created="", PID=0, Info=f"(unreadable lock file: {detail})")
