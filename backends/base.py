"""The state storage interface every backend implements (local file, S3, GCS, Azure Blob).

A backend stores, per workspace, one state document plus a lock object beside it and an
append-only journal. The guarantees the engine relies on:

* ``read`` returns the bytes together with an opaque version token of exactly those bytes.
* ``write(..., expected=v)`` is a compare-and-swap: it stores the new bytes only if the stored
  version is still ``v`` (``None`` = "must not exist yet") and raises ``StateConflict`` otherwise.
  It keeps the replaced version as a backup. It never leaves a partial document behind.
* ``lock`` is a conditional create of ``<state>.tflock``: exactly one of many racing callers wins;
  the others get ``LockHeld`` carrying the current holder's ``LockInfo``. The stored lock has
  ``Created`` and ``Heartbeat`` set to the moment of the create (not when the caller built its
  ``LockInfo``: a ``--lock-timeout`` wait must not make a fresh lock look old).
* ``unlock`` removes the lock only if its ID matches (``force`` skips the ID check; a wrong ID raises
  ``LockMismatch`` naming the real holder) and only the version it read, so it can never remove
  somebody else's newer lock. It returns what the removed lock held, so a forced break can be logged
  with who held it.
* ``renew_lock`` rewrites the holder's lock with a fresh ``Heartbeat`` as a compare-and-swap on the
  version it read; ``LockLost`` if the lock is gone or carries another ID (someone broke it). A lock
  whose heartbeat stops advancing is how a crashed holder is told from a slow one.
* ``history``/``read_history``: every successful ``write`` first keeps the document it replaces as
  ``<state>.history/<serial>.tfstate`` (not relying on bucket versioning), with who wrote it and when,
  and the ``--policy-override`` reason of the run that wrote it; ``current_entry`` tells the same of
  the current document.
* ``probe`` checks that the store really refuses a second conditional create and a stale
  compare-and-swap. S3-compatible stores that ignore ``If-None-Match`` would otherwise give no
  mutual exclusion at all, silently.
* The journal is the crash log of an apply: entries appended (durably) one by one, read back in
  order, cleared once the full state is written.

Beyond the protocol, a store may offer optional capabilities, each a small ``Protocol`` below
(``PieceWriter``, ``StateFileOpener``, ``JournalSync``, ``BackupReader``, ``LocalStateFile``,
``SealedStore``). Callers ask with ``isinstance``, never by probing attribute names: a wrapping store
then claims exactly what it implements itself, and cannot hand a caller its inner store's method by
accident (an encrypted store must never be written around).

The shared contract suite ``tests/backends/contract.py`` runs against every implementation, and
tests every capability a store claims.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Protocol, runtime_checkable

from vocab import piecewise
from vocab.errors import CtlError, LockHeld, UsageError
from vocab.locks import LockInfo

DEFAULT_WORKSPACE = "default"


class StateConflict(CtlError):
    """The stored state changed since it was read; nothing was written."""


class BackendError(CtlError):
    """The store could not be used (missing bucket, no credentials, unreachable, corrupt object)."""


class LockLost(CtlError):
    """Renewing the lock found it gone or replaced: someone broke it, so this run must stop starting work."""


class LockMismatch(CtlError):
    """An unlock named a lock ID that is not the one held; ``holder`` is the lock actually held.

    Not a ``LockHeld``: the caller did not try to take the lock, it tried to release the wrong one, and
    scripts must be able to tell "busy, retry later" (exit 4) from "wrong ID" (exit 1).
    """

    def __init__(self, summary: str, *, holder: LockInfo, **kwargs: Any) -> None:
        super().__init__(summary, **kwargs)
        self.holder = holder


@dataclass(frozen=True)
class Snapshot:
    data: bytes
    version: str  # opaque: a content hash, an ETag, a generation …


class Written(NamedTuple):
    """What a streamed write stored (``PieceWriter.write_pieces``): the new version token, and the
    document's size and SHA-256, which the caller would otherwise need the whole bytes for."""

    version: str
    size: int
    sha256: bytes


class OpenedState(NamedTuple):
    """A stored state document handed over as an open file (``StateFileOpener.open_state_file``), so a large
    one can be decoded from the file a piece at a time, with what the caller would otherwise need
    the whole bytes for: its version token, size and SHA-256."""

    file: BinaryIO
    version: str
    size: int
    sha256: bytes


@dataclass(frozen=True)
class HistoryEntry:
    """One state document kept in a workspace's history (a version some write replaced).

    ``time`` and ``who`` say when and by whom that document was written (when it became the state),
    ``resources`` counts its ``resources[]`` entries and ``version`` is the program version recorded in
    it (``ctl_version``, else ``terraform_version``), so ``ctl state history`` needs no extra reads.
    """

    serial: int
    time: str  # RFC 3339, UTC
    who: str
    resources: int
    version: str
    policy_override: str = ""  # the reason a run gave to pass soft-mandatory policy failures ("" if none)


@dataclass(frozen=True)
class StateFacts:
    """What a store records about a state document without understanding it further."""

    serial: int | None
    resources: int
    version: str


def state_facts(data: bytes | None) -> StateFacts:
    """Serial, resource count and writer version of a state document; tolerant of junk.

    Stores must keep even a corrupt document in the history (it may be the only copy), so nothing here
    raises: what cannot be read is reported as unknown.
    """
    # The usual layout is read without decoding its resources: a store records these facts of the
    # document it replaces at each run's first write, and decoding a large state whole costs far
    # more memory than three numbers are worth.
    located = piecewise.head(data or b"")
    if located is not None:
        doc, count = located
    else:
        try:
            doc = json.loads(data or b"")
        except (ValueError, UnicodeDecodeError):
            return StateFacts(None, 0, "")
        if not isinstance(doc, dict):
            return StateFacts(None, 0, "")
        resources = doc.get("resources")
        count = len(resources) if isinstance(resources, list) else 0
    serial = doc.get("serial")
    if not isinstance(serial, int) or isinstance(serial, bool):
        serial = None
    version = doc.get("ctl_version") or doc.get("terraform_version") or ""
    return StateFacts(serial, count, str(version))


# The one workspace-name rule, for the CLI and every store. Terraform accepts any URL-safe name; the
# names people use are letters, digits, '-', '_' and '.', and those all pass here (a leading '_' too).
# Refused: a leading '.' (a hidden file, or '..' escaping the state's folder or prefix), a leading
# '-' (read as an option), '/' and everything else a path, key or blob name would treat specially.
_WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def check_workspace_name(name: str) -> None:
    """Refuse a name that could escape the state's folder or prefix (``..``, ``/``) or hide a file."""
    if not _WORKSPACE_NAME.match(name):
        raise UsageError(
            f'Invalid workspace name "{name}"',
            hint="Use letters, digits, '-', '_' and '.', starting with a letter, digit or '_'.",
        )


def conflict_error(where: str, current: bytes | None, new: bytes, expected: str | None) -> StateConflict:
    """The message of a refused compare-and-swap, with both serials so the user sees what moved."""
    hint = "Run the command again to work from the current state; if another run is going on, let it finish."
    if current is None:
        return StateConflict(f"state at {where} was removed since it was read", hint=hint)
    stored, mine = state_facts(current).serial, state_facts(new).serial
    serials = f" (serial {stored} → {mine})" if stored is not None and mine is not None else ""
    if expected is None:
        return StateConflict(f"state at {where} already exists{serials}", hint=hint)
    return StateConflict(f"state at {where} changed since it was read{serials}", hint=hint)


def lock_held_error(where: str, holder: LockInfo, *, unlock_command: str) -> LockHeld:
    """``LockHeld`` naming the holder, with ``holder`` kept for callers that describe it themselves."""
    return LockHeld(
        f"state at {where} is locked by {holder.Who or 'an unknown holder'} "
        f"since {holder.Created or 'an unknown time'} ({holder.Operation}, lock ID {holder.ID or 'unreadable'})",
        hint="Wait for that run to finish (--lock-timeout waits for you); if it crashed, "
        f"run `{unlock_command} {holder.ID or '-force'}`.",
        holder=holder,
    )


def lock_mismatch_error(where: str, lock_id: str, holder: LockInfo) -> LockMismatch:
    return LockMismatch(
        f"lock ID {lock_id} does not match the lock held on {where}: {holder.ID or '(unreadable)'} "
        f"by {holder.Who or 'unknown'} since {holder.Created or 'an unknown time'}",
        holder=holder,
        hint="Check the ID (ctl prints it when a lock is held), or force the unlock if you "
        "are sure no run is using the state.",
    )


def not_locked_error(where: str) -> CtlError:
    return CtlError(
        f"state at {where} is not locked",
        hint="Nothing to unlock; the lock was already released or removed.",
    )


def lock_lost_error(where: str, mine: LockInfo, now: LockInfo | None) -> LockLost:
    """Renewal found the lock broken: say by whom when the lock was replaced rather than just removed."""
    if now is None:
        what = "was removed (force-unlocked)"
    else:
        what = (
            f"was replaced by lock {now.ID or '(unreadable)'} of {now.Who or 'an unknown holder'} "
            f"({now.Operation or 'unknown operation'})"
        )
    return LockLost(
        f"the lock {mine.ID} on {where} {what} while this run held it",
        hint="Someone broke the lock; this run starts nothing new. Check the state "
        "(`ctl state list`) before running again.",
    )


class StateStore(Protocol):
    """Storage of state documents, locks and journals, per workspace."""

    def describe(self) -> str:
        """Where the state lives, for messages: ``s3://bucket/key`` or a file path."""
        ...

    def read(self, workspace: str) -> Snapshot | None: ...

    def write(self, workspace: str, data: bytes, *, expected: str | None, keep_previous: bool = True,
              policy_override: str | None = None) -> str:
        """Compare-and-swap; ``keep_previous=False`` skips the backup/history copy of the replaced
        version (a run's own intermediate snapshots are not worth keeping). ``policy_override`` is
        kept with the new document and later with its history entry: an audit of who accepted
        which soft-mandatory policy failures."""
        ...

    def lock(self, workspace: str, info: LockInfo) -> None:
        """Conditionally create the lock, stored with ``Heartbeat = Created`` = now; ``LockHeld`` if held."""
        ...

    def renew_lock(self, workspace: str, info: LockInfo) -> LockInfo:
        """Compare-and-swap the lock with a fresh ``Heartbeat``; the lock as now stored, or ``LockLost``."""
        ...

    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> LockInfo:
        """Remove the lock (``LockMismatch`` on a wrong ID unless ``force``); the removed lock's info."""
        ...

    def lock_info(self, workspace: str) -> LockInfo | None: ...

    def workspaces(self) -> list[str]: ...

    def delete_workspace(self, workspace: str) -> None: ...

    def journal_append(self, workspace: str, entry: bytes, *, sync: bool = True) -> None:
        """Append one entry. With ``sync`` it is durable when this returns; without, it is visible to
        every later reader (a killed process loses nothing) but may wait for the next synced entry to
        survive a power loss: for an intent whose loss costs nothing (an object only in state)."""
        ...

    def journal_read(self, workspace: str) -> list[bytes]: ...

    def journal_clear(self, workspace: str) -> None: ...

    def history(self, workspace: str) -> list[HistoryEntry]:
        """The replaced documents kept for the workspace, oldest (lowest serial) first."""
        ...

    def read_history(self, workspace: str, serial: int) -> bytes:
        """The kept document with this serial; ``CtlError`` if there is none."""
        ...

    def current_entry(self, workspace: str) -> HistoryEntry | None:
        """What ``history`` will say of the current document once replaced; None without a state."""
        ...

    def probe(self) -> None:
        """``BackendError`` naming the missing guarantee unless conditional create and CAS both hold."""
        ...


# -- optional capabilities ---------------------------------------------------------------------------


@runtime_checkable
class PieceWriter(Protocol):
    """A store that writes a state document as it is produced, never holding it whole in memory.

    ``write_pieces`` is ``write`` with the document given as a callable returning its pieces: the same
    compare-and-swap, history and backup, ``StateConflict`` and ``BackendError``. ``pieces`` may be
    called more than once (once more to word a conflict), and each call must yield the same bytes.
    It returns the new version with the document's size and SHA-256, which the caller would otherwise
    need the whole bytes for. A store that transforms what it stores (encryption) must not claim it
    unless it transforms the pieces too.
    """

    def write_pieces(self, workspace: str, pieces: Callable[[], Iterable[bytes]], *, expected: str | None,
                     keep_previous: bool = True, policy_override: str | None = None) -> Written: ...


@runtime_checkable
class StateFileOpener(Protocol):
    """A store that hands over its state document as an open file, to be decoded a piece at a time.

    ``open_state_file`` is a context manager giving what ``read`` would, as an ``OpenedState`` (open
    file, version, size, SHA-256), or None when there is no state (or it is empty). The file stays the
    version it was opened at while a concurrent write replaces the state; it is closed on exit.
    Read errors are ``BackendError``. Only a store whose stored bytes are the plaintext may claim it.
    """

    def open_state_file(self, workspace: str) -> AbstractContextManager[OpenedState | None]: ...


@runtime_checkable
class JournalSync(Protocol):
    """A store whose journal can defer durability: ``journal_append(..., sync=False)`` then one
    ``journal_sync`` for a batch (group commit).

    When ``journal_sync`` returns, every entry appended to the workspace's journal before it is
    durable. Without a journal (none yet, or cleared) it does nothing. A store without this
    capability makes each entry durable as it is appended.
    """

    def journal_sync(self, workspace: str) -> None: ...


@runtime_checkable
class BackupReader(Protocol):
    """A store that can read back the document its last ``write`` replaced.

    ``read_backup`` returns those bytes (as ``read`` would have returned them), or None when no write
    has replaced a document yet. ``BackendError`` when the store cannot be read.
    """

    def read_backup(self, workspace: str) -> bytes | None: ...


@runtime_checkable
class LocalStateFile(Protocol):
    """A store that keeps a workspace's state as a file on this machine's file system.

    ``state_path`` names that file; its siblings (backup, history, journal, lock) carry its name as a
    prefix. Callers use it to keep resources from writing over ctl's own files and to tell whether a
    lock's holder is a process on this host. It names the file only: reading or writing state still
    goes through the store.
    """

    def state_path(self, workspace: str) -> Path: ...


@runtime_checkable
class SealedStore(Protocol):
    """A store that keeps state sealed at rest (encrypted) while it reads and writes plaintext.

    ``seal_state`` gives a plaintext state document as this store would store it (for copies made
    outside the store, such as ``errored.tfstate``: never a plaintext copy). ``open_state`` is the
    reverse, checking what the seal authenticates (``where`` names the document in errors, which are
    ``CtlError``s; with ``workspace``, an older serial than one seen before is refused as a replay).
    ``needs_rewrite`` says that the workspace's state was read through a fallback (an old key or
    plaintext during a migration), so it should be written again even if nothing changed.
    """

    def seal_state(self, data: bytes) -> bytes: ...

    def open_state(self, data: bytes, where: str, *, workspace: str | None = None) -> bytes: ...

    def needs_rewrite(self, workspace: str) -> bool: ...


__all__ = [
    "DEFAULT_WORKSPACE",
    "BackendError",
    "BackupReader",
    "HistoryEntry",
    "JournalSync",
    "LocalStateFile",
    "LockHeld",
    "LockLost",
    "LockMismatch",
    "OpenedState",
    "PieceWriter",
    "SealedStore",
    "Snapshot",
    "StateConflict",
    "StateFacts",
    "StateFileOpener",
    "StateStore",
    "Written",
    "check_workspace_name",
    "conflict_error",
    "lock_held_error",
    "lock_lost_error",
    "lock_mismatch_error",
    "not_locked_error",
    "state_facts",
]
