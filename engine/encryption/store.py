"""A state store that seals what it writes and opens what it reads: state, history, backups, journal.

Wrapping the store, rather than each caller, puts every path that carries state through one place:
``StateManager`` writes and reads plaintext as before, the backend only ever sees sealed bytes, and
locks (which hold no secrets) pass straight through. After decryption the state's own serial and
lineage must match the authenticated header, and the serial must not be lower than one this working
directory has already seen for that lineage: an old version put back in place of the current one
(a replay) is refused instead of silently undoing changes.

Every method is written out here; nothing is forwarded by name. A method added to a backend is
therefore not reachable through the wrapper until it is added here too, sealed or deliberately
passed through, so no new way to read or write state can bypass the encryption. The optional
capabilities of ``backends.base`` are claimed only where they keep that promise: the streamed write
and the open state file hand over plaintext bytes as stored, so they are not offered; the journal's
group commit, the backup and where the state file lives are (the last two only when the wrapped
store has them: ``encrypting_store`` picks the class that says so).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from backends.base import (
    BackupReader,
    HistoryEntry,
    JournalSync,
    LocalStateFile,
    Snapshot,
    StateStore,
)
from engine.encryption.envelope import header_of, is_encrypted
from engine.encryption.errors import EncryptionError
from engine.encryption.target import Target, facts_of
from vocab.locks import LockInfo

SEEN_FILE = "state-serials.json"


class EncryptingStore:
    """``StateStore`` over another store, encrypting with the ``state`` target.

    Claims ``JournalSync`` and ``SealedStore`` besides the protocol; ``encrypting_store`` adds
    ``BackupReader`` and ``LocalStateFile`` when the wrapped store has them.
    """

    def __init__(self, inner: StateStore, target: Target, seen_dir: Path | None = None) -> None:
        self.inner = inner
        self.target = target
        self.seen_dir = seen_dir
        self._rewrite: set[str] = set()  # workspaces read through a fallback: the next apply rewrites them
        # Asked once: a protocol isinstance looks up each member, and an apply appends an entry per operation.
        self._inner_syncs = isinstance(inner, JournalSync)

    def describe(self) -> str:
        return self.inner.describe()

    # -- state ---------------------------------------------------------------------------------------

    def read(self, workspace: str) -> Snapshot | None:
        snap = self.inner.read(workspace)
        if snap is None:
            return None
        data = self.open_state(snap.data, self._where(workspace), workspace=workspace)
        if self.target.read_by_fallback(snap.data):
            self._rewrite.add(workspace)
        return Snapshot(data, snap.version)

    def write(self, workspace: str, data: bytes, *, expected: str | None, keep_previous: bool = True,
              policy_override: str | None = None) -> str:
        version = self.inner.write(workspace, self.seal_state(data), expected=expected, keep_previous=keep_previous,
                                   policy_override=policy_override)
        self._rewrite.discard(workspace)
        self._remember(workspace, _facts(data))
        return version

    def needs_rewrite(self, workspace: str) -> bool:
        """Whether the workspace's state was last read through a fallback (an old key, or plaintext
        during a migration): the next run writes it again, sealed with the current key."""
        return workspace in self._rewrite

    def delete_workspace(self, workspace: str) -> None:
        self.inner.delete_workspace(workspace)

    def workspaces(self) -> list[str]:
        return self.inner.workspaces()

    def probe(self) -> None:
        self.inner.probe()

    # -- history: the listing is the wrapped store's facts (serial and writer are in the clear) ------

    def history(self, workspace: str) -> list[HistoryEntry]:
        return self.inner.history(workspace)

    def current_entry(self, workspace: str) -> HistoryEntry | None:
        return self.inner.current_entry(workspace)

    def read_history(self, workspace: str, serial: int) -> bytes:
        return self.open_state(self.inner.read_history(workspace, serial), f"serial {serial} of the history")

    # -- locks: they hold no secrets, and pass straight through ---------------------------------------

    def lock(self, workspace: str, info: LockInfo) -> None:
        self.inner.lock(workspace, info)

    def renew_lock(self, workspace: str, info: LockInfo) -> LockInfo:
        return self.inner.renew_lock(workspace, info)

    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> LockInfo:
        return self.inner.unlock(workspace, lock_id, force=force)

    def lock_info(self, workspace: str) -> LockInfo | None:
        return self.inner.lock_info(workspace)

    # -- journal -------------------------------------------------------------------------------------

    def journal_append(self, workspace: str, entry: bytes, *, sync: bool = True) -> None:
        """Seal and append one entry. A wrapped store without ``journal_sync`` is asked to make every
        entry durable at once, so ``journal_sync`` here keeps its promise over any store."""
        if b"\n" in entry:  # checked before sealing: the sealed form is one line whatever it holds
            raise ValueError("a journal entry must be a single line")
        self.inner.journal_append(workspace, self.target.encrypt(entry),
                                  sync=sync or not self._inner_syncs)

    def journal_sync(self, workspace: str) -> None:
        """Every entry appended so far is durable: the wrapped store's ``journal_sync``, or nothing
        to do when it made each one durable as it was appended."""
        if isinstance(self.inner, JournalSync):
            self.inner.journal_sync(workspace)

    def journal_clear(self, workspace: str) -> None:
        self.inner.journal_clear(workspace)

    def journal_read(self, workspace: str) -> list[bytes]:
        """The journal's entries in plaintext; a damaged entry becomes an empty line.

        A plaintext journal skips a damaged line with a warning (``parse_entries``) rather than block
        every later command, and a sealed one must do the same. But a wrong key fails every entry
        alike, and that must stop the run as it does for the state: an entry that fails to decrypt
        counts as damaged when another entry opened (the key is right), or when it is not even a
        whole document. A journal of whole plaintext entries under a configuration that reads only
        sealed ones stops the run too, as the state would. The empty line left in its place is what ``parse_entries`` skips and
        reports.
        """
        opened: list[bytes] = []
        failed: list[tuple[int, bytes, EncryptionError]] = []
        for number, line in enumerate(self.inner.journal_read(workspace), start=1):
            try:
                opened.append(self.target.decrypt(line, f"entry {number} of the apply journal"))
            except EncryptionError as err:
                opened.append(b"")
                failed.append((number, line, err))
        if len(failed) == len(opened):  # nothing opened: the key, or the plaintext, may be wrong
            whole = next((err for _, line, err in failed if _whole_document(line)), None)
            if whole is not None:
                raise whole
        return opened

    # -- whole documents -----------------------------------------------------------------------------

    def seal_state(self, data: bytes) -> bytes:
        """``data`` (a plaintext state) as this store writes it: for ``errored.tfstate`` and pushes too."""
        return self.target.encrypt(data, _facts(data))

    def open_state(self, data: bytes, where: str, *, workspace: str | None = None) -> bytes:
        """The plaintext of a stored state, with its header checked against it (and, for the current
        state of a workspace, against the highest serial seen here)."""
        plaintext = self.target.decrypt(data, where)
        if is_encrypted(data):
            claimed, actual = facts_of(header_of(data, where).doc), _facts(plaintext)
            for name in ("serial", "lineage"):
                if name in claimed and claimed[name] != actual.get(name):
                    raise EncryptionError(
                        f"{where}: the encrypted state's {name} ({actual.get(name)}) differs from its header "
                        f"({claimed[name]}): the file was assembled from two states",
                        hint="Restore the state from history (`ctl state history`) or a backup.")
        if workspace is not None:
            self._check_not_replayed(workspace, _facts(plaintext), where)
        return plaintext

    # -- replay ---------------------------------------------------------------------------------------

    def _seen_path(self) -> Path | None:
        return None if self.seen_dir is None else self.seen_dir / SEEN_FILE

    def _seen(self) -> dict[str, int]:
        path = self._seen_path()
        try:
            raw = json.loads(path.read_text()) if path is not None else {}
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in raw.items() if isinstance(v, int)} if isinstance(raw, dict) else {}

    def _slot(self, workspace: str, facts: dict[str, Any]) -> str:
        return f"{self.inner.describe()}|{workspace}|{facts.get('lineage')}"

    def _check_not_replayed(self, workspace: str, facts: dict[str, Any], where: str) -> None:
        serial = facts.get("serial")
        highest = self._seen().get(self._slot(workspace, facts))
        if isinstance(serial, int) and highest is not None and serial < highest:
            raise EncryptionError(
                f"{where} has serial {serial}, older than serial {highest} read here before: an old version "
                "of the state was put back in place of the current one",
                hint="Restore the newest state (`ctl state history`, `ctl state rollback`). If the older "
                     f"version is wanted, delete .ctl/{SEEN_FILE} and push it with `ctl state push`.")
        self._remember(workspace, facts)

    def _remember(self, workspace: str, facts: dict[str, Any]) -> None:
        path, serial = self._seen_path(), facts.get("serial")
        if path is None or not isinstance(serial, int):
            return
        seen = self._seen()
        slot = self._slot(workspace, facts)
        if seen.get(slot, -1) >= serial:
            return
        seen[slot] = serial
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n")
        tmp.replace(path)

    def _where(self, workspace: str) -> str:
        return f"the state at {self.inner.describe()}" + ("" if workspace == "default" else f' (workspace "{workspace}")')


class _SealedBackups(EncryptingStore):
    """Over a store that keeps a readable backup: the backup, opened."""

    def read_backup(self, workspace: str) -> bytes | None:
        inner = self.inner
        if not isinstance(inner, BackupReader):  # encrypting_store picks this class only when it is
            raise TypeError(f"{type(inner).__name__} keeps no readable backup")
        data = inner.read_backup(workspace)
        return None if data is None else self.open_state(data, "the state backup")


class _StateFileHere(EncryptingStore):
    """Over a store whose state is a file on this machine: where it is (the file holds ciphertext)."""

    def state_path(self, workspace: str) -> Path:
        inner = self.inner
        if not isinstance(inner, LocalStateFile):  # encrypting_store picks this class only when it is
            raise TypeError(f"{type(inner).__name__} keeps no local state file")
        return inner.state_path(workspace)


class _SealedBackupsAndFile(_SealedBackups, _StateFileHere):
    """Over a store with both (the local store)."""


def encrypting_store(inner: StateStore, target: Target, seen_dir: Path | None = None) -> EncryptingStore:
    """An ``EncryptingStore`` over ``inner`` that claims ``BackupReader`` and ``LocalStateFile``
    exactly when ``inner`` does (each sealed or path-only, never the plaintext store's bytes)."""
    backups, file_here = isinstance(inner, BackupReader), isinstance(inner, LocalStateFile)
    cls = (_SealedBackupsAndFile if backups and file_here else _SealedBackups if backups
           else _StateFileHere if file_here else EncryptingStore)
    return cls(inner, target, seen_dir)


def _whole_document(line: bytes) -> bool:
    """Whether a journal line is a complete JSON object (sealed or not), not a torn or garbled one."""
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, UnicodeDecodeError):
        return False


def _facts(plaintext: bytes) -> dict[str, Any]:
    """Serial, lineage and writer of a plaintext state (empty when it is not a state document)."""
    try:
        doc = json.loads(plaintext)
    except (ValueError, UnicodeDecodeError):
        return {}
    return facts_of(doc) if isinstance(doc, dict) else {}
