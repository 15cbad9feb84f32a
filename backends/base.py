"""The state storage interface every backend implements (local file, S3, GCS, Azure Blob).

A backend stores, per workspace, one state document plus a lock object beside it and an
append-only journal. The guarantees the engine relies on:

* ``read`` returns the bytes together with an opaque version token of exactly those bytes.
* ``write(..., expected=v)`` is a compare-and-swap: it stores the new bytes only if the stored
  version is still ``v`` (``None`` = "must not exist yet") and raises ``StateConflict`` otherwise.
  It keeps the replaced version as a backup. It never leaves a partial document behind.
* ``lock`` is a conditional create of ``<state>.tflock``: exactly one of many racing callers wins;
  the others get ``LockHeld`` carrying the current holder's ``LockInfo``.
* ``unlock`` removes the lock only if its ID matches (``force`` skips the ID check) and only the
  version it read, so it can never remove somebody else's newer lock.
* The journal is the crash log of an apply: entries appended (durably) one by one, read back in
  order, cleared once the full state is written.

The shared contract suite ``tests/backends/contract.py`` runs against every implementation.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from engine.errors import CtlError, LockHeld

DEFAULT_WORKSPACE = "default"


class StateConflict(CtlError):
    """The stored state changed since it was read; nothing was written."""


class BackendError(CtlError):
    """The store could not be used (missing bucket, no credentials, unreachable, corrupt object)."""


@dataclass(frozen=True)
class Snapshot:
    data: bytes
    version: str  # opaque: a content hash, an ETag, a generation …


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
        raw = json.loads(data)
        known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw}
        return cls(**known)


class StateStore(Protocol):
    """Storage of state documents, locks and journals, per workspace."""

    def describe(self) -> str:
        """Where the state lives, for messages: ``s3://bucket/key`` or a file path."""
        ...

    def read(self, workspace: str) -> Snapshot | None: ...

    def write(self, workspace: str, data: bytes, *, expected: str | None) -> str: ...

    def lock(self, workspace: str, info: LockInfo) -> None: ...

    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> None: ...

    def lock_info(self, workspace: str) -> LockInfo | None: ...

    def workspaces(self) -> list[str]: ...

    def delete_workspace(self, workspace: str) -> None: ...

    def journal_append(self, workspace: str, entry: bytes) -> None: ...

    def journal_read(self, workspace: str) -> list[bytes]: ...

    def journal_clear(self, workspace: str) -> None: ...


__all__ = [
    "DEFAULT_WORKSPACE",
    "BackendError",
    "LockHeld",
    "LockInfo",
    "Snapshot",
    "StateConflict",
    "StateStore",
]
