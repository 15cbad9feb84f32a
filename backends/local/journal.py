"""The local store's journal files, appended to through a descriptor kept open between lines.

An apply appends one or two lines per operation. Opening the file for each line cost five system
calls (open, fstat, a read of the last byte to find a line torn by a crash, write, close), and each
one lets another thread take the interpreter lock from the thread that owns the journal. A held
descriptor needs two: a ``stat`` of the path, then the write. The ``stat`` shows whether the path
still names the file the descriptor writes to and whether that file still ends where our last line
did. If either has changed (the journal was cleared, replaced, or written by anyone else), the
descriptor is dropped and the file opened again, and a torn last line is cut, as on the first line.
So every line lands where a fresh open would have put it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from backends.local.files import fsync_dir


@dataclass(slots=True)
class _Held:
    fd: int
    device: int
    inode: int
    end: int  # the file's size after our last write


class JournalFiles:
    """Open journal descriptors by path, for one store. Close them with ``close_all``."""

    def __init__(self) -> None:
        self._held: dict[Path, _Held] = {}
        self._guard = threading.Lock()

    def append(self, path: Path, line: bytes, *, sync: bool) -> None:
        """Append ``line`` (newline included) to ``path``; with ``sync``, fsync before returning."""
        with self._guard:
            held = self._current(path)
            try:
                written = os.write(held.fd, line)
                held.end += written
                if written != len(line):  # a full disk: the next append cuts the torn line
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                if sync:
                    os.fsync(held.fd)
            except OSError:
                self._drop(path)
                raise

    def sync(self, path: Path) -> None:
        """Fsync ``path``: every line appended so far becomes durable. Nothing if it is not there."""
        with self._guard:
            held = self._held.get(path)
            if held is not None:
                os.fsync(held.fd)
                return
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            return  # cleared since: the state snapshot written first holds its entries
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def release(self, path: Path) -> None:
        """Close the descriptor of ``path``, before the file is removed."""
        with self._guard:
            self._drop(path)

    def close_all(self) -> None:
        with self._guard:
            for path in list(self._held):
                self._drop(path)

    def _current(self, path: Path) -> _Held:
        held = self._held.get(path)
        if held is not None:
            try:
                now = os.stat(path)
            except FileNotFoundError:
                now = None
            if now is not None and (now.st_ino, now.st_dev, now.st_size) == (held.inode, held.device, held.end):
                return held
            self._drop(path)
        return self._open(path)

    def _open(self, path: Path) -> _Held:
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_APPEND, 0o600)
        except FileNotFoundError:  # the workspace's directory is not there yet (one mkdir, not one per entry)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_APPEND, 0o600)
        try:
            found = os.fstat(fd)
            end = found.st_size
            if end:
                end = _drop_torn_tail(fd, path, end)
            else:
                fsync_dir(path.parent)  # the new file's name is durable before its first line is
        except OSError:
            os.close(fd)
            raise
        held = self._held[path] = _Held(fd, found.st_dev, found.st_ino, end)
        return held

    def _drop(self, path: Path) -> None:
        held = self._held.pop(path, None)
        if held is not None:
            with contextlib.suppress(OSError):
                os.close(held.fd)


def _drop_torn_tail(fd: int, path: Path, size: int) -> int:
    """Cut a half-written last line (a crash mid-append) so the next entry starts on its own line.
    Returns the file's size afterwards."""
    if os.pread(fd, 1, size - 1) == b"\n":
        return size
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    os.truncate(path, end)
    return end
