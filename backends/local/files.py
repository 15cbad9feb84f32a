"""Crash-safe files for the local store: atomic replacement, a lock file created whole, reads and
hashes that report as the store does, directory syncs.

Kept apart from ``backends.local.store.LocalStore`` (the protocol's logic: what is compared with
what, under which mutex) because these are the POSIX details that make each step crash-safe:
write a temporary file, fsync it, rename it over the old one, fsync the directory.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from backends.base import BackendError, OpenedState


def version_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_version(path: Path) -> str | None:
    """The version (SHA-256) of the file at ``path``, read in pieces; None when it is missing or empty."""
    with _reading(path):
        try:
            with path.open("rb") as f:
                digest = hashlib.file_digest(f, "sha256")
                empty = f.tell() == 0
        except FileNotFoundError:
            return None
    return None if empty else digest.hexdigest()


@contextlib.contextmanager
def open_hashed(path: Path) -> Iterator[OpenedState | None]:
    """The state file at ``path`` open for reading, hashed once through; None when it is missing
    or empty. An error opening or hashing it is the store's ``BackendError``; the reader of the
    open file reports its own (``decode_state_file`` does)."""
    with _reading(path):
        try:
            f = path.open("rb")
        except FileNotFoundError:
            f = None
    if f is None:
        yield None
        return
    with f:
        with _reading(path):
            digest = hashlib.file_digest(f, "sha256")
            size = f.tell()
            f.seek(0)
        yield OpenedState(f, digest.hexdigest(), size, digest.digest()) if size else None


def read_or_none(path: Path) -> bytes | None:
    with _reading(path):
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None


@contextlib.contextmanager
def _reading(path: Path) -> Iterator[None]:
    """A state file's read errors as the store reports them (a missing file is the caller's to handle)."""
    try:
        yield
    except IsADirectoryError:
        raise BackendError(f"{path} is a directory, not a state file") from None
    except OSError as exc:
        raise BackendError(f"cannot read {path}: {exc.strerror}") from None


def atomic_write(path: Path, data: bytes, *, like: Path) -> None:
    """Write a whole file or nothing: temp file in the same directory, fsync, rename, fsync dir."""
    atomic_write_pieces(path, (data,), like=like)


def atomic_write_pieces(path: Path, pieces: Iterable[bytes], *, like: Path) -> tuple[str, int]:
    """``atomic_write`` of the bytes ``pieces`` make up, written as they come: a large state's
    document never exists whole in memory. Returns the file's version (SHA-256) and size."""
    try:
        mode = like.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600  # state holds secrets
    digest, size = hashlib.sha256(), 0
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            os.fchmod(fd, mode)
            for chunk in _chunks(pieces):
                digest.update(chunk)
                size += len(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:  # a failed write, or an encoding error in the middle of the pieces
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if not isinstance(exc, OSError):
            raise
        raise BackendError(
            f"cannot write {path}: {exc.strerror}", hint="Check free space and permissions."
        ) from None
    fsync_dir(path.parent)
    return digest.hexdigest(), size


# Where os.link fails for want of hard links (FAT, some network and FUSE filesystems).
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV})


def create_whole(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``, or FileExistsError if it exists: never an empty ``path``.

    The data is written and synced to ``.NAME.new`` beside ``path``, then hard-linked into place,
    which fails if ``path`` exists just as ``O_EXCL`` does. A run killed at any moment so leaves no
    lock file or a whole one; an empty lock file names no holder, and the next run could only
    report "an unknown holder" instead of a holder that no longer runs. The caller serialises
    creates of ``path`` (the store's mutex), so the scratch name is fixed. A killed run's scratch is
    removed, never written through: after the link it is the lock file itself, under another name.
    Without hard links the file is created, then written.
    """
    scratch = path.with_name(f".{path.name}.new")
    try:
        with contextlib.suppress(FileNotFoundError):
            scratch.unlink()
        _create_then_write(scratch, data)
        try:
            os.link(scratch, path)
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            _create_then_write(path, data)
    finally:
        with contextlib.suppress(FileNotFoundError):
            scratch.unlink()
    fsync_dir(path.parent)


def _create_then_write(path: Path, data: bytes) -> None:
    """``O_EXCL`` create, write and sync; a failed write removes the file again. A kill between the
    create and the write leaves it empty, which is why a lock goes through ``create_whole``."""
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    except OSError:
        path.unlink()  # an empty lock file would block everyone until a force-unlock
        raise
    finally:
        os.close(fd)


def _chunks(pieces: Iterable[bytes], size: int = 1 << 20) -> Iterator[bytes]:
    """``pieces`` gathered into chunks of about ``size`` bytes: a state's pieces are one resource
    each, and a system call per resource made writing a large state noticeably slower."""
    buffer = bytearray()
    for piece in pieces:
        if len(piece) >= size and not buffer:
            yield piece
            continue
        buffer += piece
        if len(buffer) >= size:
            yield bytes(buffer)
            buffer.clear()
    if buffer:
        yield bytes(buffer)


def fsync_dir(folder: Path) -> None:
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
