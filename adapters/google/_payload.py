"""The bytes a ``google_storage_bucket_object`` uploads: from ``content`` or a ``source`` file.

The MD5 of those bytes is what plan compares with the stored object's ``md5hash``: equal bytes mean
no upload is needed, whichever argument they come from (an imported object, or ``content`` swapped
for an identical ``source`` file, plans no change); different bytes force a new object.
``hashlib`` loads on first use, not at import, to keep discovery cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters._upload import md5_of, source_path
from adapters.base import AdapterContext, AdapterError


def md5_base64(ctx: AdapterContext, attrs: dict[str, Any]) -> str | None:
    """Base64 MD5 of the bytes ``attrs`` describe; None when not known yet (unknown or missing file)."""
    import base64

    digest = md5_of(ctx, attrs.get("content"), attrs.get("source"))
    return None if digest is None else base64.b64encode(digest).decode("ascii")


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
