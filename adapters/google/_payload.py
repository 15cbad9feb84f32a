"""The bytes a ``google_storage_bucket_object`` uploads: from ``content`` or a ``source`` file.

The MD5 of those bytes is what plan compares with the stored object's ``md5hash``: equal bytes mean
no upload is needed, whichever argument they come from (an imported object, or ``content`` swapped
for an identical ``source`` file, plans no change); different bytes force a new object.
``hashlib`` loads on first use, not at import, to keep discovery cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError

_CHUNK = 1 << 20


def source_path(ctx: AdapterContext, source: str) -> Path:
    """``source`` made absolute against the configuration directory (as Terraform does)."""
    path = Path(source)
    return path if path.is_absolute() else Path(ctx.workdir) / path


def md5_base64(ctx: AdapterContext, attrs: dict[str, Any]) -> str | None:
    """Base64 MD5 of the bytes ``attrs`` describe; None when not known yet (unknown or missing file)."""
    import base64
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    content, source = attrs.get("content"), attrs.get("source")
    if isinstance(content, str):
        digest.update(content.encode("utf-8"))
    elif isinstance(source, str):
        try:
            with source_path(ctx, source).open("rb") as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
        except OSError:
            return None  # maybe written by another resource during apply; upload reports it then
    else:
        return None
    return base64.b64encode(digest.digest()).decode("ascii")


def require_readable(ctx: AdapterContext, attrs: dict[str, Any]) -> Path | None:
    """The source file to upload (None for ``content``), or an error a user can act on."""
    source = attrs.get("source")
    if attrs.get("content") is not None:
        return None
    if not isinstance(source, str):
        raise AdapterError("exactly one of content or source must be set", address=ctx.address)
    path = source_path(ctx, source)
    if not path.is_file():
        raise AdapterError(f"source file {path} does not exist or is not a file", address=ctx.address)
    return path
