"""Reading a provider release zip that came from the network: every member checked before one is used.

A zip is a list of names and flags chosen by whoever built it. Before its members are hashed or
unpacked, each must be a plain relative path inside the package (no ``..``, no absolute path, no
backslash), no name may be both a file and a directory (``a`` then ``a/b``), no member may be
encrypted or use a compression method that cannot be read, and the package may not inflate past the
limits in ``engine/install/constants.py``. Anything else is one clear error naming the archive and
the member; nothing is written. Unpacking then writes only regular files and directories, each
through a path this module created, so a member that claims to be a symbolic link is written as the
file it is stored as (as the zip readers of Terraform and Python do) and can lead nowhere.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.install.constants import MAX_ARCHIVE_MEMBERS, MAX_UNPACKED_BYTES
from vocab.errors import CtlError

_READABLE = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_HINT = "This is not a provider release as its publisher built it; nothing was installed."
_CHUNK = 1 << 20


class ArchiveError(CtlError):
    """A package zip that cannot be read safely; nothing was installed from it."""


@dataclass(frozen=True)
class Member:
    """A checked member: its path parts inside the package, and whether it is a directory."""

    info: zipfile.ZipInfo
    parts: tuple[str, ...]
    is_dir: bool

    @property
    def name(self) -> str:
        return "/".join(self.parts)


def _refuse(archive: Path, summary: str) -> ArchiveError:
    return ArchiveError(f"the provider package {archive.name} {summary}", hint=_HINT)


def _shown(name: str) -> str:
    return repr(name if len(name) <= 200 else name[:200] + "…")


def checked_members(zipped: zipfile.ZipFile, archive: Path) -> list[Member]:
    """Every member of ``zipped``, checked as the module docstring says; raises ``ArchiveError``."""
    infos = zipped.infolist()
    if len(infos) > MAX_ARCHIVE_MEMBERS:
        raise _refuse(archive, f"holds {len(infos)} members, more than the {MAX_ARCHIVE_MEMBERS} allowed")
    members: list[Member] = []
    files: set[tuple[str, ...]] = set()
    dirs: set[tuple[str, ...]] = set()
    total = 0
    for info in infos:
        raw = info.filename
        is_dir = raw.endswith("/")
        parts = tuple(p for p in raw.split("/") if p not in ("", "."))
        if raw.startswith("/") or "\\" in raw or ".." in parts or (not parts and not is_dir):
            raise _refuse(archive, f"holds an unsafe path: {_shown(raw)}")
        if info.flag_bits & 0x1:
            raise _refuse(archive, f"holds an encrypted member: {_shown(raw)}")
        if info.compress_type not in _READABLE:
            raise _refuse(archive, f"holds {_shown(raw)}, compressed with method {info.compress_type}, "
                                   "which cannot be read")
        total += max(info.file_size, 0)
        if total > MAX_UNPACKED_BYTES:
            raise _refuse(archive, f"would unpack to more than {MAX_UNPACKED_BYTES // (1024 ** 3)} GiB")
        if not parts:
            continue
        for depth in range(1, len(parts) if not is_dir else len(parts) + 1):
            prefix = parts[:depth]
            if prefix in files:
                raise _refuse(archive, f"holds {_shown('/'.join(prefix))} both as a file and as a directory")
            dirs.add(prefix)
        if not is_dir:
            if parts in dirs:
                raise _refuse(archive, f"holds {_shown('/'.join(parts))} both as a file and as a directory")
            files.add(parts)
        members.append(Member(info, parts, is_dir))
    return members


def read_member(zipped: zipfile.ZipFile, member: Member, archive: Path) -> Iterator[bytes]:
    """The member's bytes in chunks; a damaged member is an ``ArchiveError``, not a crash."""
    try:
        with zipped.open(member.info) as handle:
            while chunk := handle.read(_CHUNK):
                yield chunk
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError,
            OSError) as exc:
        raise _refuse(archive, f"is damaged at {_shown(member.info.filename)}: {exc}") from None


def opened(archive: Path) -> zipfile.ZipFile:
    """``archive`` opened as a zip; anything that is not one is an ``ArchiveError``."""
    try:
        return zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, NotImplementedError, OSError) as exc:
        raise ArchiveError(f"the provider package {archive.name} is not a valid zip archive ({exc})",
                           hint="Replace it with the provider's release package.") from None


def umask() -> int:
    """The process's file mode creation mask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8) & 0o777
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def extract(archive: Path, target: Path) -> None:
    """Unpack ``archive`` into the new directory ``target``, file modes limited by the umask."""
    mask = umask()
    with opened(archive) as zipped:
        members = checked_members(zipped, archive)
        target.mkdir(parents=True)
        for member in members:
            path = target.joinpath(*member.parts)
            if member.is_dir:
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            stored = (member.info.external_attr >> 16) & 0o777
            mode = (stored or 0o644) & ~mask
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
            try:
                with os.fdopen(os.open(path, flags, 0o600), "wb") as out:
                    for chunk in read_member(zipped, member, archive):
                        out.write(chunk)
                    os.fchmod(out.fileno(), mode)
            except OSError as exc:
                raise _refuse(archive, f"cannot be unpacked at {_shown(member.name)}: "
                                       f"{exc.strerror or exc}") from None
