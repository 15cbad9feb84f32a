"""Reading a file that ctl was pointed at, only when it is a regular file of bounded size.

A name ending in ``.tf`` may be a FIFO (opening it for reading waits for a writer that never
comes), a symlink to ``/dev/zero`` (reading never ends) or a stray multi-gigabyte disk image. The
file is opened without blocking, checked with ``fstat`` on the open descriptor (so a swap of the
name between the check and the read cannot slip a device in), and read no further than the limit.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from vocab.limits import MAX_FILE_BYTES


class NotRegularFile(OSError):
    """The name is a directory, pipe, socket or device: there is nothing to read as a file."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        self.kind = kind


class FileTooLarge(OSError):
    """The file holds more bytes than the reader allows."""

    def __init__(self, path: str | Path, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"it is {size:,} bytes, over the {limit:,}-byte limit", str(path))
        self.size = size
        self.limit = limit


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words a message can use."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def read_regular(path: str | Path, limit: int = MAX_FILE_BYTES, *, pipes: bool = False) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit`` of them.

    With ``pipes`` a named pipe is read too, as the stream it is, up to the same limit: a
    ``local_file`` resource's ``source`` may name one, and HashiCorp's provider reads it, waiting for
    a writer as that read does. Configuration files and data sources never read one.

    Raises ``FileNotFoundError`` and the other ``OSError``s of opening, ``NotRegularFile`` for
    anything but a regular file and ``FileTooLarge`` past ``limit``; all are ``OSError``, so
    callers that already report an unreadable file report these the same way.
    """
    # O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if pipes and stat.S_ISFIFO(info.st_mode):
            os.close(fd)
            fd = -1
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))  # waits for a writer
            info = os.fstat(fd)
            if not stat.S_ISFIFO(info.st_mode):
                raise NotRegularFile(path, kind_of(info.st_mode))
        elif not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path, kind_of(info.st_mode))
        if info.st_size > limit:
            raise FileTooLarge(path, info.st_size, limit)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while True:  # a file growing while it is read stops at the limit too
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        if fd >= 0:
            os.close(fd)


def is_regular(path: str | Path) -> bool:
    """Whether ``path`` (symlinks followed) names a regular file, without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


__all__ = ["FileTooLarge", "NotRegularFile", "is_regular", "kind_of", "read_regular"]
