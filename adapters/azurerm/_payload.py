"""The bytes an ``azurerm_storage_blob`` uploads: ``source_content``, a ``source`` file, or none.

Their MD5 is what plan compares with the blob's stored ``Content-MD5``: equal bytes need no upload,
whichever argument holds them; different bytes force a new blob. ``hashlib`` loads on first use so
discovery stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError

_CHUNK = 1 << 20


def source_path(ctx: AdapterContext, source: str) -> Path:
    path = Path(source)
    return path if path.is_absolute() else Path(ctx.workdir) / path


def md5_digest(ctx: AdapterContext, attrs: dict[str, Any]) -> bytes | None:
    """MD5 of the bytes to upload; None while they are not known (unknown value, file not there yet)."""
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    content, source = attrs.get("source_content"), attrs.get("source")
    if isinstance(content, str):
        digest.update(content.encode("utf-8"))
    elif isinstance(source, str):
        try:
            with source_path(ctx, source).open("rb") as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
        except OSError:
            return None
    elif content is not None or source is not None:
        return None  # unknown until apply
    return digest.digest()


def read_bytes(ctx: AdapterContext, attrs: dict[str, Any]) -> bytes:
    """The bytes to upload (empty when neither argument is set), or an error a user can act on."""
    if isinstance(attrs.get("source_content"), str):
        return attrs["source_content"].encode("utf-8")
    source = attrs.get("source")
    if not isinstance(source, str):
        return b""
    path = source_path(ctx, source)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AdapterError(f"cannot read source file {path}: {exc.strerror or exc}", address=ctx.address) from None
