"""Loading and saving one workspace's state safely: CAS writes, lineage checks, journal, compaction.

``StateManager`` is the only way the engine reads or writes state. It remembers the version token
of the snapshot it read so every write is a compare-and-swap against it (a concurrent writer is
detected, never overwritten), keeps the lineage fixed, bumps the serial on every write, and, if a
write fails, saves what it would have written as ``errored.tfstate`` so no result of an apply is
ever lost.

During an apply the journal carries the per-operation results; the full state is written at the
end and at compaction points (every ``compact_entries`` entries or ``compact_seconds`` seconds), so
the bytes written stay linear in the number of operations.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from backends.base import (
    DEFAULT_WORKSPACE,
    LockMismatch,
    PieceWriter,
    SealedStore,
    StateFileOpener,
    StateStore,
)
from engine.state.codec import decode_state, decode_state_file
from engine.state.encode import encode_state, state_pieces
from engine.state.gc_pause import collector_paused
from engine.state.journal import Journal, Orphan, parse_entries, replay_counted
from engine.state.model import State, new_state
from vocab.errors import CtlError, LockHeld

ERRORED_STATE_FILE = "errored.tfstate"
COMPACT_EVERY_ENTRIES = 1000
COMPACT_EVERY_SECONDS = 30.0


class LineageMismatch(CtlError):
    """A write would replace the stored state with a different state (another lineage)."""


class StateManager:
    """Reads, replays and writes one workspace's state through a ``StateStore``."""

    def __init__(
        self,
        store: StateStore,
        workspace: str = DEFAULT_WORKSPACE,
        *,
        errored_dir: Path | None = None,
        compact_entries: int = COMPACT_EVERY_ENTRIES,
        compact_seconds: float = COMPACT_EVERY_SECONDS,
    ) -> None:
        self.store = store
        self.workspace = workspace
        self.errored_dir = errored_dir
        self.compact_entries = compact_entries
        self.compact_seconds = compact_seconds
        self.orphans: list[Orphan] = []
        self.replayed = False
        self.policy_override: str | None = None  # recorded with every version this run writes
        self.journal = Journal(store, workspace)
        # Given when the run measures itself (``engine.operations``): each read and write of the
        # stored state runs inside ``measured("state.read")`` / ``measured("state.write")``.
        self.measured: Callable[[str], AbstractContextManager[object]] | None = None
        self._loaded = False
        self._version: str | None = None
        self._lineage: str | None = None
        self._serial = 0
        # The last snapshot read or written, as its size and digest: enough to tell an unchanged
        # state (``persist``) and when compaction is due, without holding a copy of the whole file.
        self._last_size = 0
        self._last_digest: bytes | None = None
        self._last_compact = time.monotonic()
        self._wrote = False  # nothing written by this run yet: its first write keeps the old version

    @property
    def source(self) -> str:
        """The state's location for messages, with the workspace when it is not the default."""
        where = self.store.describe()
        return where if self.workspace == DEFAULT_WORKSPACE else f'{where} (workspace "{self.workspace}")'

    @property
    def version(self) -> str | None:
        """The version token of the stored state this manager last read or wrote (None: none yet)."""
        return self._version

    @property
    def serial(self) -> int:
        return self._serial

    @property
    def lineage(self) -> str | None:
        """The stored state's lineage (None while nothing is stored)."""
        return self._lineage

    def _measuring(self, what: str) -> AbstractContextManager[object]:
        return nullcontext() if self.measured is None else self.measured(what)

    def load(self) -> State:
        """Read the snapshot and replay any journal left by an interrupted apply.

        After it, ``replayed`` tells whether the journal changed the state and ``orphans`` lists
        operations that were started but never recorded as finished.
        """
        with self._measuring("state.read"):
            stored = self._read_stored()
            entries = parse_entries(self.store.journal_read(self.workspace), self.source)
        if stored is None:
            state = new_state()
            # A first apply that crashed before its first write: keep the lineage its journal used.
            lineage = next((e["lineage"] for e in entries if isinstance(e.get("lineage"), str)), None)
            if lineage:
                state.lineage = lineage
            self._version, self._lineage = None, None
            self._last_size, self._last_digest = 0, None
        else:
            state, self._version, self._last_size, self._last_digest = stored
            self._lineage = state.lineage
        self._serial = state.serial
        state, self.orphans, applied = replay_counted(state, entries)
        self.replayed = applied > 0
        seqs = [e["seq"] for e in entries if isinstance(e.get("seq"), int)]
        self.journal.lineage = state.lineage
        self.journal.base_serial = state.serial
        self.journal.next_seq = max(seqs, default=0) + 1
        self.journal.appended = len(entries)
        self._loaded = True
        self._wrote = False
        return state

    def persist(self, state: State) -> None:
        """Write ``state`` with the next serial as a compare-and-swap on the version read.

        Writes nothing when the state is unchanged. Refuses a different lineage. On any failure the
        would-be state is saved as ``errored.tfstate`` and the error re-raised with a hint.
        """
        if not self._loaded:
            raise RuntimeError("StateManager.persist called before load")
        if self._lineage is not None and state.lineage != self._lineage:
            raise LineageMismatch(
                f"refusing to write a state with lineage {state.lineage} over the state at {self.source}, "
                f"which has lineage {self._lineage}",
                hint="They are different states; check the backend configuration and the workspace.",
            )
        # An encryption migration or key rotation: written again even when nothing changed.
        rewrite = isinstance(self.store, SealedStore) and self.store.needs_rewrite(self.workspace)
        if (
            not rewrite
            and not self.journal.appended  # operations were journaled: the state did change
            and state.serial == self._serial
            and self._last_digest is not None
            and _digest_of(state_pieces(state)) == self._last_digest
        ):
            return
        old_serial = state.serial
        state.serial = max(state.serial, self._serial) + 1
        # Each run keeps (as backup and history) the version it started from; snapshots it wrote
        # itself along the way, e.g. compactions during a long apply, are not worth keeping.
        keep_previous, override = not self._wrote, self.policy_override
        try:
            with self._measuring("state.write"):
                if isinstance(self.store, PieceWriter):
                    version, size, digest = self.store.write_pieces(
                        self.workspace, lambda: _encoding(state), expected=self._version,
                        keep_previous=keep_previous, policy_override=override)
                else:
                    data = b"".join(_encoding(state))
                    version = self.store.write(self.workspace, data, expected=self._version,
                                               keep_previous=keep_previous, policy_override=override)
                    size, digest = len(data), _digest(data)
        except _EncodingFailed as failed:
            state.serial = old_serial
            raise failed.error from None
        except (CtlError, OSError) as exc:
            errored = encode_state(state)
            state.serial = old_serial
            raise self._errored(exc, errored) from None
        self._version, self._lineage, self._serial = version, state.lineage, state.serial
        self._last_size, self._last_digest = size, digest
        self.journal.base_serial = state.serial
        self.journal.lineage = state.lineage
        self._wrote = True

    def _read_stored(self) -> tuple[State, str, int, bytes] | None:
        """The stored state, decoded, with its version, size and digest; None when there is none.

        A store that hands over its file (the local one) is decoded from it a resource at a time:
        otherwise a large state's bytes would be whole in memory beside the state made of them. A
        store that seals its state (encryption) does not offer the file, so its own reading is never
        bypassed.
        """
        if isinstance(self.store, StateFileOpener):
            with self.store.open_state_file(self.workspace) as opened:
                if opened is None:
                    return None
                return decode_state_file(opened.file, self.source), opened.version, opened.size, opened.sha256
        snap = self.store.read(self.workspace)
        if snap is None:
            return None
        return decode_state(snap.data, self.source), snap.version, len(snap.data), _digest(snap.data)

    def compact(self, state: State) -> None:
        """Write the full state, then clear the journal it now contains."""
        self.persist(state)
        self.journal.clear()
        self._last_compact = time.monotonic()

    def maybe_compact(self, state: State) -> bool:
        """Compact when enough has accumulated; True when it did.

        Due after ``compact_entries`` entries or ``compact_seconds`` — but only once the journal
        written since the last snapshot is at least as large as that snapshot. Writing the whole
        state every fixed number of entries would make a large apply write O(N²) bytes; with this
        rule the snapshots written add up to at most about twice the final state, so the bytes
        written grow linearly with the number of operations, and a replay never reads more
        journal than the size of the state it replays onto.
        """
        n = self.journal.appended
        big_enough = self.journal.appended_bytes >= self._last_size
        due = big_enough and (
            n >= self.compact_entries
            or (n > 0 and time.monotonic() - self._last_compact >= self.compact_seconds)
        )
        if due:
            self.compact(state)
        return due

    def _errored(self, exc: CtlError | OSError, data: bytes) -> CtlError:
        """Save the would-be state next to the configuration and build the error to raise."""
        folder = self.errored_dir or Path.cwd()
        target = folder / ERRORED_STATE_FILE
        summary = (
            exc.summary if isinstance(exc, CtlError) else f"cannot write the state at {self.source}: {exc}"
        )
        if isinstance(self.store, SealedStore):  # never a plaintext copy of a sealed state
            data = self.store.seal_state(data)
        try:
            fd = os.open(target, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as save_exc:
            hint = f"The new state could not be saved to {target} either ({save_exc.strerror}); the stored state is unchanged."
        else:
            hint = (
                f"The state this run produced is saved in {target}. Check the stored state, then upload "
                f"it with `ctl state push {target}`."
            )
        detail = getattr(exc, "detail", "")
        if isinstance(exc, LockHeld):  # the lock's holder is what these messages are about
            return type(exc)(summary, detail=detail, hint=hint, holder=exc.holder)
        if isinstance(exc, LockMismatch):
            return LockMismatch(summary, detail=detail, hint=hint, holder=exc.holder)
        cls = type(exc) if isinstance(exc, CtlError) else CtlError
        return cls(summary, detail=detail, hint=hint)


def _digest(data: bytes) -> bytes:
    """What ``persist`` compares state documents by (SHA-256: equal digests are equal documents)."""
    return hashlib.sha256(data).digest()


def _digest_of(pieces: Iterable[bytes]) -> bytes:
    """``_digest`` of the document ``pieces`` make up, without joining them (made with the
    collector paused, as ``encode_state`` makes a whole one)."""
    digest = hashlib.sha256()
    with collector_paused():
        for piece in pieces:
            digest.update(piece)
    return digest.digest()


class _EncodingFailed(Exception):
    """The state could not be encoded (a value no state can hold): raised through the store's
    write, which removes its partial file, and re-raised as the original error; nothing was
    written, so there is nothing to save as ``errored.tfstate``."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _encoding(state: State) -> Iterator[bytes]:
    """``state_pieces``, with an encoding error told apart from the store's own errors (and the
    collector paused, as ``encode_state`` pauses it)."""
    try:
        with collector_paused():
            yield from state_pieces(state)
    except Exception as exc:
        raise _EncodingFailed(exc) from exc
