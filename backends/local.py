"""The local backend: the state as a file on disk (``ctl.tfstate`` by default).

Layout, per workspace (``default`` lives at the configured path, others under
``<dir>/ctl.tfstate.d/<name>/<filename>``, as Terraform lays out ``terraform.tfstate.d``):

* ``<state>``          the state document, replaced atomically (temp file, fsync, rename, fsync dir)
* ``<state>.backup``   the previous document, so a bad write can always be undone by hand
* ``<state>.tflock``   the lock: created with O_CREAT|O_EXCL, holding the LockInfo JSON
* ``<state>.journal``  the apply's crash log, one entry per line, each line fsync'd
* ``.<file>.mutex``    a never-deleted file whose ``flock`` serialises the short read-compare-replace
                       of ``write`` and the read-check-delete of ``unlock`` between processes

The version token is the SHA-256 of the bytes, so it needs no extra bookkeeping and any change made
behind ctl's back (an editor, ``git checkout``) is detected by the compare-and-swap too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ParamSpec, TypeVar

from backends.base import DEFAULT_WORKSPACE, BackendError, LockInfo, Snapshot, StateConflict
from engine.errors import CtlError, LockHeld

DEFAULT_FILENAME = "ctl.tfstate"
WORKSPACES_DIR = "ctl.tfstate.d"
_WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
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


class LocalStore:
    """State, lock and journal as files next to each other on a local (POSIX) filesystem."""

    def __init__(self, path: Path | str = DEFAULT_FILENAME) -> None:
        self.path = Path(path)

    # -- paths ----------------------------------------------------------------------------------

    def describe(self) -> str:
        return str(self.path)

    def state_path(self, workspace: str) -> Path:
        """Where a workspace's state file lives."""
        if workspace == DEFAULT_WORKSPACE:
            return self.path
        _check_workspace_name(workspace)
        return self.path.parent / WORKSPACES_DIR / workspace / self.path.name

    def _sibling(self, workspace: str, suffix: str) -> Path:
        p = self.state_path(workspace)
        return p.with_name(p.name + suffix)

    # -- state ----------------------------------------------------------------------------------

    @_os_errors
    def read(self, workspace: str) -> Snapshot | None:
        """The state bytes and their SHA-256; None when there is no state (or an empty file)."""
        data = _read_or_none(self.state_path(workspace))
        if not data:
            return None
        return Snapshot(data, _version(data))

    @_os_errors
    def read_backup(self, workspace: str) -> bytes | None:
        """The document the last write replaced, if any."""
        return _read_or_none(self._sibling(workspace, ".backup"))

    @_os_errors
    def write(self, workspace: str, data: bytes, *, expected: str | None) -> str:
        """Compare-and-swap the state file; keeps the replaced bytes as ``<state>.backup``."""
        path = self.state_path(workspace)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._mutex(workspace):
            current = _read_or_none(path) or None
            current_version = _version(current) if current else None
            if current_version != expected:
                raise _conflict(path, current, data, expected)
            if current is not None:
                _atomic_write(self._sibling(workspace, ".backup"), current, like=path)
            _atomic_write(path, data, like=path)
        return _version(data)

    # -- locking --------------------------------------------------------------------------------

    @_os_errors
    def lock(self, workspace: str, info: LockInfo) -> None:
        """Create ``<state>.tflock`` exclusively; LockHeld (with ``.holder``) if it exists."""
        lock_path = self._sibling(workspace, ".tflock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        if not info.Path:
            info = dataclasses.replace(info, Path=str(self.state_path(workspace)))
        with self._mutex(workspace):
            try:
                fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._read_lock(lock_path) or LockInfo(ID="", Info="(lock file vanished)")
                raise _lock_held(self.state_path(workspace), holder) from None
            try:
                os.write(fd, info.to_json())
                os.fsync(fd)
            except OSError:
                lock_path.unlink()  # an empty lock file would block everyone until a force-unlock
                raise
            finally:
                os.close(fd)
            _fsync_dir(lock_path.parent)

    @_os_errors
    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> None:
        """Remove the lock if its ID is ``lock_id`` (any ID with ``force``)."""
        lock_path = self._sibling(workspace, ".tflock")
        state = self.state_path(workspace)
        with self._mutex(workspace):
            holder = self._read_lock(lock_path)
            if holder is None:
                raise CtlError(
                    f"state at {state} is not locked",
                    hint="Nothing to unlock; the lock was already released or removed.",
                )
            if not force and (not holder.ID or lock_id != holder.ID):
                raise CtlError(
                    f"lock ID {lock_id} does not match the lock held: {holder.ID or '(unreadable)'} "
                    f"by {holder.Who or 'unknown'} since {holder.Created or 'an unknown time'}",
                    hint="Check the ID (ctl prints it when a lock is held), or force the unlock if you "
                    "are sure no run is using the state.",
                )
            with contextlib.suppress(FileNotFoundError):
                lock_path.unlink()
            _fsync_dir(lock_path.parent)

    @_os_errors
    def lock_info(self, workspace: str) -> LockInfo | None:
        """Who holds the lock, or None when the state is not locked."""
        return self._read_lock(self._sibling(workspace, ".tflock"))

    def _read_lock(self, lock_path: Path) -> LockInfo | None:
        # A lock file is created empty and filled right after; give the writer a moment.
        deadline = time.monotonic() + _LOCK_READ_WAIT_S
        while True:
            data = _read_or_none(lock_path)
            if data is None:
                return None
            try:
                return LockInfo.from_json(data)
            except (ValueError, TypeError) as exc:
                if time.monotonic() >= deadline:
                    return LockInfo(ID="", Who="", Created="", PID=0, Info=f"(unreadable lock file: {exc})")
            time.sleep(0.02)

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
        shutil.rmtree(folder)
        _fsync_dir(folder.parent)

    # -- journal --------------------------------------------------------------------------------

    @_os_errors
    def journal_append(self, workspace: str, entry: bytes) -> None:
        """Append one line and fsync it before returning (the entry is durable once this returns)."""
        if b"\n" in entry:
            raise ValueError("a journal entry must be a single line")
        path = self._sibling(workspace, ".journal")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size:
                _drop_torn_tail(fd, path, size)
            os.write(fd, entry + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        if not size:
            _fsync_dir(path.parent)

    @_os_errors
    def journal_read(self, workspace: str) -> list[bytes]:
        """The complete entries in order; a last line without newline (torn by a crash) is ignored."""
        data = _read_or_none(self._sibling(workspace, ".journal"))
        if not data:
            return []
        lines = data.split(b"\n")
        lines.pop()  # "" after the final newline, or the torn remainder
        return [line for line in lines if line]

    @_os_errors
    def journal_clear(self, workspace: str) -> None:
        path = self._sibling(workspace, ".journal")
        try:
            path.unlink()
        except FileNotFoundError:
            return
        _fsync_dir(path.parent)

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


def process_alive(pid: int) -> bool:
    """Whether a process with this PID runs on this host (to tell a crashed lock holder)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, it is just not ours
        return True
    return True


def holder_is_gone(info: LockInfo) -> bool:
    """True when the lock was taken on this host by a process that no longer runs."""
    host = info.Who.rpartition("@")[2]
    return bool(info.PID) and host == socket.gethostname() and not process_alive(info.PID)


def _check_workspace_name(name: str) -> None:
    if not _WORKSPACE_NAME.match(name):
        raise CtlError(
            f'invalid workspace name "{name}"',
            hint="Use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'.",
        )


def _version(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise BackendError(f"{path} is a directory, not a state file") from None
    except OSError as exc:
        raise BackendError(f"cannot read {path}: {exc.strerror}") from None


def _serial(data: bytes | None) -> int | None:
    if not data:
        return None
    try:
        serial = json.loads(data).get("serial")
    except (ValueError, AttributeError):
        return None
    return serial if isinstance(serial, int) and not isinstance(serial, bool) else None


def _conflict(path: Path, current: bytes | None, new: bytes, expected: str | None) -> StateConflict:
    hint = "Run the command again to work from the current state; if another run is going on, let it finish."
    if current is None:
        return StateConflict(f"state at {path} was removed since it was read", hint=hint)
    stored, mine = _serial(current), _serial(new)
    serials = f" (serial {stored} → {mine})" if stored is not None and mine is not None else ""
    if expected is None:
        return StateConflict(f"state at {path} already exists{serials}", hint=hint)
    return StateConflict(f"state at {path} changed since it was read{serials}", hint=hint)


def _lock_held(state: Path, holder: LockInfo) -> LockHeld:
    err = LockHeld(
        f"state at {state} is locked by {holder.Who or 'an unknown holder'} "
        f"since {holder.Created or 'an unknown time'} ({holder.Operation}, lock ID {holder.ID or 'unreadable'})",
        hint="Wait for that run to finish (--lock-timeout waits for you); if it crashed, "
        f"run `ctl force-unlock {holder.ID or '-force'}`.",
    )
    err.holder = holder  # type: ignore[attr-defined]
    return err


def _atomic_write(path: Path, data: bytes, *, like: Path) -> None:
    """Write a whole file or nothing: temp file in the same directory, fsync, rename, fsync dir."""
    try:
        mode = like.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600  # state holds secrets
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise BackendError(
            f"cannot write {path}: {exc.strerror}", hint="Check free space and permissions."
        ) from None
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make a rename/create/unlink in ``folder`` durable (no-op where directories can't be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _drop_torn_tail(fd: int, path: Path, size: int) -> None:
    """Cut a half-written last line (a crash mid-append) so the next entry starts on its own line."""
    if os.pread(fd, 1, size - 1) == b"\n":
        return
    data = path.read_bytes()
    os.truncate(path, data.rfind(b"\n") + 1)
