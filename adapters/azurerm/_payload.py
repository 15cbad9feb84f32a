"""The bytes an ``azurerm_storage_blob`` uploads: ``source_content``, a ``source`` file, or none.

Their MD5 is what plan compares with the blob's stored ``Content-MD5``: equal bytes need no upload,
whichever argument holds them; different bytes force a new blob. ``hashlib`` loads on first use so
discovery stays cheap.
"""

from __future__ import annotations

from typing import Any

from adapters._upload import md5_of, source_path
from adapters.base import AdapterContext, AdapterError


def md5_digest(ctx: AdapterContext, attrs: dict[str, Any]) -> bytes | None:
    """MD5 of the bytes to upload (an empty blob when neither argument is set); None while unknown."""
    import hashlib

    content, source = attrs.get("source_content"), attrs.get("source")
    if content is None and source is None:
        return hashlib.md5(b"", usedforsecurity=False).digest()
    return md5_of(ctx, content, source)


def read_bytes(ctx: AdapterContext, attrs: dict[str, Any]) -> bytes:
    """The bytes to upload (empty when neither argument is set), or an error a user can act on."""
    content = attrs.get("source_content")
    if isinstance(content, str):
        return content.encode("utf-8")
    source = attrs.get("source")
    if not isinstance(source, str):
        return b""
    path = source_path(ctx, source)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AdapterError(f"cannot read source file {path}: {exc.strerror or exc}", address=ctx.address) from None
