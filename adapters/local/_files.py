"""File-system helpers of the ``local`` provider: paths, checksums, directory creation, writes.

``hashlib`` and ``base64`` load on first use, not at import: loading OpenSSL takes time that
discovery (run on every Tab completion) should not pay.
"""

from __future__ import annotations

import contextlib
import glob
import os
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError


def resolve(ctx: AdapterContext, filename: str) -> Path:
    """A configured path made absolute against the configuration directory.

    ``~`` is not expanded (Terraform does not either; ``pathexpand()`` is there for that).
    """
    path = Path(filename)
    return path if path.is_absolute() else Path(ctx.workdir) / path


def writable(ctx: AdapterContext, filename: str) -> Path:
    """``resolve``, refusing ctl's own files: writing or deleting one would lose the state."""
    from vocab.reserved_paths import is_reserved

    path = resolve(ctx, filename)
    if is_reserved(path, ctx.reserved_paths):
        raise AdapterError(
            f"{filename} is one of ctl's own files (state, backup, journal, lock or .ctl/); "
            "no resource may write or delete it",
            hint="choose another filename",
            address=ctx.address,
        )
    return path


def checksums(data: bytes) -> dict[str, str]:
    """``id`` and the ``content_*`` checksum attributes of a file's bytes."""
    import base64
    import hashlib

    sha1 = hashlib.sha1(data).hexdigest()
    sha256 = hashlib.sha256(data).digest()
    sha512 = hashlib.sha512(data).digest()
    return {
        "id": sha1,
        "content_md5": hashlib.md5(data).hexdigest(),
        "content_sha1": sha1,
        "content_sha256": sha256.hex(),
        "content_base64sha256": base64.b64encode(sha256).decode("ascii"),
        "content_sha512": sha512.hex(),
        "content_base64sha512": base64.b64encode(sha512).decode("ascii"),
    }


def sha1_hex(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(data).hexdigest()


def b64encode(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def b64decode(ctx: AdapterContext, text: str) -> bytes:
    """Decode ``content_base64`` strictly, so a typo is an error rather than silently lost bytes."""
    import base64
    import binascii

    try:
        return base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise AdapterError(
            "content_base64 is not valid base64",
            detail=str(exc),
            address=ctx.address,
        ) from exc


def parse_mode(ctx: AdapterContext, name: str, value: Any) -> int:
    """An octal permission string ("0644") as a mode number."""
    text = str(value)
    if not (3 <= len(text) <= 4 and all(c in "01234567" for c in text)):
        raise AdapterError(
            f'{name} must be 3 or 4 octal digits, like "0644"; got {text!r}',
            address=ctx.address,
        )
    return int(text, 8)


def make_dirs(path: Path, mode: int) -> None:
    """Create every missing directory of ``path`` with ``mode`` (before umask).

    ``os.makedirs`` applies the mode to the last directory only; Terraform's local provider applies
    it to each directory it creates, and so do we.
    """
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        # Another resource writing into the same directory may create it at the same moment.
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=mode)


def write_atomically(path: Path, data: bytes, mode: int) -> None:
    """Write through a temporary file and rename, so readers never see half a file.

    The new file is created with ``mode`` (before umask), also when it replaces an existing file
    that had other permissions.
    """
    sweep_leftovers(path)
    tmp = path.with_name(f".{path.name}.ctl-{os.urandom(6).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def sweep_leftovers(path: Path) -> None:
    """Remove temporary files of ``path`` that a killed run left between writing and renaming.

    Only this file's own pattern (``.NAME.ctl-*.tmp``) is touched: the next write or delete of the
    file is the moment its earlier, interrupted write is known to be dead.
    """
    with contextlib.suppress(OSError):
        for leftover in path.parent.glob(f".{glob.escape(path.name)}.ctl-*.tmp"):
            leftover.unlink(missing_ok=True)
