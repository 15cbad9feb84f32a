"""The local backend: the state as a file on disk (``ctl.tfstate`` by default).

Layout, per workspace (``default`` lives at the configured path, others under
``<dir>/ctl.tfstate.d/<name>/<filename>``, as Terraform lays out ``terraform.tfstate.d``):

* ``<state>``          the state document, replaced atomically (temp file, fsync, rename, fsync dir)
* ``<state>.backup``   the previous document, so a bad write can always be undone by hand
* ``<state>.history/`` every replaced document as ``<serial>.tfstate`` with a ``<serial>.json`` sidecar
                       (who wrote it, when, resource count, version), and ``current.json``: who wrote
                       the current document and when (with its SHA-256, so a hand edit is recognised)
* ``<state>.tflock``   the lock, holding the LockInfo JSON: written beside as ``.<state>.tflock.new``,
                       then hard-linked into place (which fails if it exists, as O_CREAT|O_EXCL does)
* ``<state>.journal``  the apply's crash log, one entry per line (``backends.local.journal``)
* ``.<file>.mutex``    a never-deleted file whose ``flock`` serialises the short read-compare-replace
                       of ``write`` and the read-check-delete of ``unlock`` between processes

The version token is the SHA-256 of the bytes, so it needs no extra bookkeeping and any change made
behind ctl's back (an editor, ``git checkout``) is detected by the compare-and-swap too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import json
import os
import re
import shutil
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ParamSpec, TypeVar

from backends.base import (
    DEFAULT_WORKSPACE,
    BackendError,
    HistoryEntry,
    OpenedState,
    Snapshot,
    StateConflict,
    Written,
    check_workspace_name,
    conflict_error,
    lock_held_error,
    lock_lost_error,
    lock_mismatch_error,
    not_locked_error,
    state_facts,
)
from backends.local.files import (
    atomic_write,
    atomic_write_pieces,
    create_whole,
    file_version,
    fsync_dir,
    open_hashed,
    read_or_none,
    version_of,
)
from backends.local.journal import JournalFiles
from vocab.errors import CtlError, LockHeld
from vocab.locks import LockInfo, now_rfc3339, unreadable_lock, who_am_i

DEFAULT_FILENAME = "ctl.tfstate"
WORKSPACES_DIR = "ctl.tfstate.d"
_HISTORY_NAME = re.compile(r"^(\d+)\.tfstate$")
_CURRENT_META = "current.json"
_LOCK_READ_WAIT_S = 0.5  # how long to wait for a lock file that was just created to get its content


P = ParamSpec("P")
R = TypeVar("R")


def _os_errors(method: Callable[P, R]) -> Callable[P, R]:
    """Turn a filesystem failure (permissions, disk full, read-only mount) into a clear BackendError."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except OSError as exc:
            where = exc.filename or getattr(args[0], "path", "")
            raise BackendError(
                f"cannot use the state files at {where}: {exc.strerror or exc}",
                hint="Check that the directory exists, is writable and has free space.",
            ) from None

    return wrapper


def _conflict(path: Path, current: bytes | None, new: bytes, expected: str | None) -> StateConflict:
    return conflict_error(str(path), current, new, expected)


def _lock_held(state: Path, holder: LockInfo) -> LockHeld:
    return lock_held_error(str(state), holder, unlock_command="ctl state unlock")


class LocalStore:
    """State, lock and journal as files next to each other on a local (POSIX) filesystem."""

    def __init__(self, path: Path | str = DEFAULT_FILENAME) -> None:
        self.path = Path(path)
        self._journals = JournalFiles()
        weakref.finalize(self, self._journals.close_all)
        self._siblings: dict[tuple[str, str], Path] = {}

    # -- paths ----------------------------------------------------------------------------------

    def describe(self) -> str:
        return str(self.path)

    def state_path(self, workspace: str) -> Path:
        """Where a workspace's state file lives."""
        if workspace == DEFAULT_WORKSPACE:
            return self.path
        check_workspace_name(workspace)
        return self.path.parent / WORKSPACES_DIR / workspace / self.path.name

    def _sibling(self, workspace: str, suffix: str) -> Path:
        """``<state>SUFFIX`` (worked out once: the journal's is asked for on every line)."""
        found = self._siblings.get((workspace, suffix))
        if found is None:
            p = self.state_path(workspace)
            found = self._siblings[workspace, suffix] = p.with_name(p.name + suffix)
        return found

    # -- state ----------------------------------------------------------------------------------

    @_os_errors
    def read(self, workspace: str) -> Snapshot | None:
        """The state bytes and their SHA-256; None when there is no state (or an empty file)."""
        data = read_or_none(self.state_path(workspace))
        if not data:
            return None
        return Snapshot(data, version_of(data))

    @contextlib.contextmanager
    def open_state_file(self, workspace: str) -> Iterator[OpenedState | None]:
        """The state file, open, with its version, size and SHA-256 (one pass over it); None when
        there is no state (or an empty file). What ``read`` gives, without the bytes in memory:
        the caller reads it a piece at a time. A write meanwhile replaces the file by renaming
        another over it, so the open file stays the version it was."""
        with open_hashed(self.state_path(workspace)) as opened:
            yield opened

    @_os_errors
    def read_backup(self, workspace: str) -> bytes | None:
        """The document the last write replaced, if any."""
        return read_or_none(self._sibling(workspace, ".backup"))

    def write(self, workspace: str, data: bytes, *, expected: str | None, keep_previous: bool = True,
              policy_override: str | None = None) -> str:
        """Compare-and-swap the state file (see ``write_pieces``)."""
        return self.write_pieces(workspace, lambda: (data,), expected=expected, keep_previous=keep_previous,
                                 policy_override=policy_override).version

    @_os_errors
    def write_pieces(self, workspace: str, pieces: Callable[[], Iterable[bytes]], *, expected: str | None,
                     keep_previous: bool = True, policy_override: str | None = None) -> Written:
        """Compare-and-swap the state file with the document ``pieces()`` yields, written as it comes.

        A large state's document is never whole in memory: it would come on top of everything an
        apply holds, at its end and at each compaction. The replaced bytes
        are kept first in the history (``<serial>.tfstate``) and as ``<state>.backup``, so the
        previous document survives even a crash in the middle of the swap.
        """
        path = self.state_path(workspace)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._mutex(workspace):
            # The version is hashed from the file in pieces: the bytes it replaces are read whole
            # only to be kept, once per run, not at each of a long apply's intermediate writes.
            if not self._matches(file_version(path), expected):
                raise _conflict(path, read_or_none(path) or None, b"".join(pieces()), expected)
            current = (read_or_none(path) or None) if keep_previous else None
            if current is not None:
                self._keep_in_history(workspace, current)
                atomic_write(self._sibling(workspace, ".backup"), current, like=path)
                del current
            version, size = atomic_write_pieces(path, pieces(), like=path)
            meta = {"sha256": version, "time": now_rfc3339(), "who": who_am_i()}
            if policy_override:
                meta["policy_override"] = policy_override
            history = self._history_dir(workspace)
            history.mkdir(exist_ok=True)
            atomic_write(history / _CURRENT_META, json.dumps(meta).encode(), like=path)
        return Written(version, size, bytes.fromhex(version))

    def _swap_if(self, path: Path, data: bytes, expected: str | None) -> bool:
        """Replace ``path`` if its version is ``expected``; False if it is not (caller holds the mutex)."""
        if not self._matches(file_version(path), expected):
            return False
        atomic_write(path, data, like=path)
        return True

    def _matches(self, current: str | None, expected: str | None) -> bool:
        """The compare of compare-and-swap, of the stored version and the one expected (a hook, so a
        test can break it and see ``probe`` notice)."""
        return current == expected

    # -- history --------------------------------------------------------------------------------

    def _history_dir(self, workspace: str) -> Path:
        return self._sibling(workspace, ".history")

    def _keep_in_history(self, workspace: str, current: bytes) -> None:
        """Copy the document about to be replaced to ``<serial>.tfstate`` plus its sidecar."""
        history = self._history_dir(workspace)
        history.mkdir(exist_ok=True)
        entry = self._entry_of_current(workspace, current)
        like = self.state_path(workspace)
        atomic_write(history / f"{entry.serial}.tfstate", current, like=like)
        atomic_write(history / f"{entry.serial}.json", json.dumps(dataclasses.asdict(entry)).encode(), like=like)

    @_os_errors
    def current_entry(self, workspace: str) -> HistoryEntry | None:
        current = read_or_none(self.state_path(workspace))
        return self._entry_of_current(workspace, current) if current else None

    def _entry_of_current(self, workspace: str, current: bytes) -> HistoryEntry:
        """The history entry of the current document: its facts, and who wrote it when (from the
        sidecar of the last write); its mtime and "unknown" if it was changed by hand."""
        facts = state_facts(current)
        serial = facts.serial if facts.serial is not None else 0
        raw = read_or_none(self._history_dir(workspace) / _CURRENT_META)
        try:
            meta = json.loads(raw or b"")
            if meta.get("sha256") == version_of(current):
                return HistoryEntry(serial, str(meta["time"]), str(meta["who"]), facts.resources, facts.version,
                                    str(meta.get("policy_override") or ""))
        except (ValueError, AttributeError, KeyError, TypeError):
            pass
        mtime = self.state_path(workspace).stat().st_mtime
        stamp = datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return HistoryEntry(serial, stamp, "unknown (written outside ctl)", facts.resources, facts.version)

    @_os_errors
    def history(self, workspace: str) -> list[HistoryEntry]:
        """The kept documents, lowest serial first (sidecar facts, recomputed if a sidecar is lost)."""
        folder = self._history_dir(workspace)
        if not folder.is_dir():
            return []
        entries = []
        for path in folder.iterdir():
            m = _HISTORY_NAME.match(path.name)
            if not m:
                continue
            entries.append(self._history_entry(path, int(m.group(1))))
        return sorted(entries, key=lambda e: (e.serial, e.time))

    def _history_entry(self, path: Path, serial: int) -> HistoryEntry:
        try:
            raw = json.loads(path.with_suffix(".json").read_bytes())
            return HistoryEntry(
                serial, str(raw["time"]), str(raw["who"]), int(raw["resources"]), str(raw["version"]),
                str(raw.get("policy_override") or ""),
            )
        except (OSError, ValueError, KeyError, TypeError):
            facts = state_facts(read_or_none(path))
            mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            return HistoryEntry(serial, mtime, "unknown", facts.resources, facts.version)

    @_os_errors
    def read_history(self, workspace: str, serial: int) -> bytes:
        data = read_or_none(self._history_dir(workspace) / f"{int(serial)}.tfstate")
        if data is None:
            raise CtlError(
                f"the history of {self.state_path(workspace)} has no state with serial {serial}",
                hint="`ctl state history` lists the serials kept.",
            )
        return data

    # -- locking --------------------------------------------------------------------------------

    @_os_errors
    def lock(self, workspace: str, info: LockInfo) -> None:
        """Create ``<state>.tflock`` exclusively; LockHeld (with ``.holder``) if it exists."""
        lock_path = self._sibling(workspace, ".tflock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        if not info.Path:
            info = dataclasses.replace(info, Path=str(self.state_path(workspace)))
        stamp = now_rfc3339()  # the lock exists from now: a --lock-timeout wait is not its age
        info = dataclasses.replace(info, Created=stamp, Heartbeat=stamp)
        with self._mutex(workspace):
            try:
                self._create_exclusive(lock_path, info.to_json())
            except FileExistsError:
                holder = self._read_lock(lock_path) or LockInfo(ID="", Info="(lock file vanished)")
                raise _lock_held(self.state_path(workspace), holder) from None

    def _create_exclusive(self, path: Path, data: bytes) -> None:
        """Create ``path`` holding ``data``; FileExistsError if it exists (a hook a test can break).

        Callers hold the workspace's mutex: ``create_whole`` writes through a scratch file of a
        fixed name beside ``path``."""
        create_whole(path, data)

    @_os_errors
    def renew_lock(self, workspace: str, info: LockInfo) -> LockInfo:
        """Rewrite our lock with a fresh heartbeat; LockLost if it is gone or carries another ID."""
        lock_path = self._sibling(workspace, ".tflock")
        with self._mutex(workspace):  # lock, unlock and renew all take it: read-check-replace is atomic
            held = self._read_lock(lock_path)
            if held is None or held.ID != info.ID:
                raise lock_lost_error(str(self.state_path(workspace)), info, held)
            renewed = dataclasses.replace(held, Heartbeat=now_rfc3339())
            atomic_write(lock_path, renewed.to_json(), like=lock_path)
        return renewed

    @_os_errors
    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> LockInfo:
        """Remove the lock if its ID is ``lock_id`` (any ID with ``force``); returns what it held."""
        lock_path = self._sibling(workspace, ".tflock")
        state = self.state_path(workspace)
        with self._mutex(workspace):
            holder = self._read_lock(lock_path)
            if holder is None:
                raise not_locked_error(str(state))
            if not force and (not holder.ID or lock_id != holder.ID):
                raise lock_mismatch_error(str(state), lock_id, holder)
            with contextlib.suppress(FileNotFoundError):
                lock_path.unlink()
            fsync_dir(lock_path.parent)
        return holder

    @_os_errors
    def lock_info(self, workspace: str) -> LockInfo | None:
        """Who holds the lock, or None when the state is not locked."""
        return self._read_lock(self._sibling(workspace, ".tflock"))

    def _read_lock(self, lock_path: Path) -> LockInfo | None:
        # Where hard links are missing a lock file is created empty and filled right after;
        # give that writer a moment.
        deadline = time.monotonic() + _LOCK_READ_WAIT_S
        while True:
            data = read_or_none(lock_path)
            if data is None:
                return None
            try:
                return LockInfo.from_json(data)
            except (ValueError, TypeError) as exc:
                if time.monotonic() >= deadline:
                    return unreadable_lock(str(exc))
            time.sleep(0.02)

    # -- probe ----------------------------------------------------------------------------------

    @_os_errors
    def probe(self) -> None:
        """Check on a scratch file that exclusive create and compare-and-swap really hold here.

        Some network filesystems accept ``O_EXCL`` (or a hard link over an existing name) without
        enforcing it; this is where that shows.
        """
        state = self.state_path(DEFAULT_WORKSPACE)
        state.parent.mkdir(parents=True, exist_ok=True)
        scratch = state.with_name(f"{state.name}.probe-{uuid.uuid4().hex[:12]}")
        try:
            with self._mutex(DEFAULT_WORKSPACE):
                self._create_exclusive(scratch, b"probe 1")
                try:
                    self._create_exclusive(scratch, b"probe 2")
                except FileExistsError:
                    pass
                else:
                    raise BackendError(
                        f"the filesystem at {state.parent} does not refuse a second exclusive create "
                        f"(hard link or O_CREAT|O_EXCL) of {scratch.name}: two runs could both take the lock",
                        hint="Keep the state on a local disk, or use a remote backend.",
                    )
                first = version_of(b"probe 1")
                if not self._swap_if(scratch, b"probe 3", first):
                    raise BackendError(
                        f"the filesystem at {state.parent} refuses a compare-and-swap on {scratch.name} "
                        "against its current version",
                        hint="Keep the state on a local disk, or use a remote backend.",
                    )
                if self._swap_if(scratch, b"probe 4", first):
                    raise BackendError(
                        f"the state store at {state.parent} does not refuse a stale compare-and-swap "
                        f"on {scratch.name}: a run could overwrite a newer state",
                        hint="Keep the state on a local disk, or use a remote backend.",
                    )
        finally:
            with contextlib.suppress(OSError):
                scratch.unlink()

    # -- workspaces -----------------------------------------------------------------------------

    @_os_errors
    def workspaces(self) -> list[str]:
        """``default`` first, then every workspace directory, sorted."""
        root = self.path.parent / WORKSPACES_DIR
        names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        return [DEFAULT_WORKSPACE, *[n for n in names if n != DEFAULT_WORKSPACE]]

    @_os_errors
    def delete_workspace(self, workspace: str) -> None:
        """Delete a workspace's files (the caller has checked that its state holds no resources)."""
        if workspace == DEFAULT_WORKSPACE:
            raise CtlError("the default workspace cannot be deleted")
        folder = self.state_path(workspace).parent
        if not folder.is_dir():
            raise CtlError(
                f'workspace "{workspace}" does not exist', hint="List them with `ctl workspace list`."
            )
        self._journals.release(self._sibling(workspace, ".journal"))
        shutil.rmtree(folder)
        fsync_dir(folder.parent)

    # -- journal --------------------------------------------------------------------------------

    @_os_errors
    def journal_append(self, workspace: str, entry: bytes, *, sync: bool = True) -> None:
        """Append one line; with ``sync``, fsync it before returning (durable once this returns).

        Without, the line is in the file for every reader, a killed ctl included, and reaches the disk
        with the next synced line (an fsync covers everything written before it) or the OS's flush.
        """
        if b"\n" in entry:
            raise ValueError("a journal entry must be a single line")
        self._journals.append(self._sibling(workspace, ".journal"), entry + b"\n", sync=sync)

    @_os_errors
    def journal_sync(self, workspace: str) -> None:
        """Fsync the journal: every line appended without ``sync`` so far becomes durable at once."""
        self._journals.sync(self._sibling(workspace, ".journal"))

    @_os_errors
    def journal_read(self, workspace: str) -> list[bytes]:
        """The complete entries in order; a last line without newline (torn by a crash) is ignored."""
        data = read_or_none(self._sibling(workspace, ".journal"))
        if not data:
            return []
        lines = data.split(b"\n")
        lines.pop()  # "" after the final newline, or the torn remainder
        return [line for line in lines if line]

    @_os_errors
    def journal_clear(self, workspace: str) -> None:
        path = self._sibling(workspace, ".journal")
        self._journals.release(path)
        try:
            path.unlink()
        except FileNotFoundError:
            return
        fsync_dir(path.parent)

    # -- internals ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _mutex(self, workspace: str) -> Iterator[None]:
        state = self.state_path(workspace)
        state.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(state.parent / f".{state.name}.mutex", os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock
