"""The bytes an object resource uploads from inline content or a ``source`` file, and their MD5.

Object stores report an MD5 of what they hold (S3's ETag, GCS's ``md5hash``, Azure's
``Content-MD5``); plans compare it with the MD5 of what the configuration would upload, so equal
bytes need no upload whichever argument holds them. ``hashlib`` loads on first use so that adapter
discovery stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from adapters.base import AdapterContext

_CHUNK = 1 << 20


def source_path(ctx: AdapterContext, source: str) -> Path:
    """``source`` made absolute against the configuration directory (as Terraform does)."""
    path = Path(source)
    return path if path.is_absolute() else Path(ctx.workdir) / path


def md5_of(ctx: AdapterContext, content: object, source: object) -> bytes | None:
    """MD5 of ``content`` (text) or else of the ``source`` file, streamed; None while not known.

    Not known: neither is a string yet (unknown until apply), or the file is not there (another
    resource may write it during apply; the upload reports it then).
    """
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    if isinstance(content, str):
        digest.update(content.encode("utf-8"))
    elif isinstance(source, str):
        try:
            with source_path(ctx, source).open("rb") as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
        except OSError:
            return None
    else:
        return None
    return digest.digest()
