"""What an object store's primitives exchange, and how ctl's facts ride in object metadata.

Each cloud backend (S3, GCS, Azure Blob) implements the same few primitives of
``backends.objectstore.store.ObjectStateStore`` — get, conditional put, conditional delete, list —
in terms of these values: an object with its version token and metadata, a listed object, and the
refusal of a condition. Metadata travels in HTTP headers, so what ctl keeps there (who wrote a
version, when, its serial, a policy override reason) is percent-encoded, and kept within the room
the stores allow.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

_SAFE = "@:.+-_ "  # left unencoded (each is valid in a header value)


class PreconditionFailed(Exception):
    """A conditional put/delete was refused: the object exists, is gone, or has another version."""


@dataclass(frozen=True)
class StoredObject:
    """An object's bytes together with the version token and metadata of exactly those bytes."""

    data: bytes
    token: str
    metadata: dict[str, str]
    modified: str = ""  # RFC 3339 last-modified time, when the store says


@dataclass(frozen=True)
class ObjectInfo:
    """A listed object without its bytes."""

    key: str
    metadata: dict[str, str]
    modified: str = ""


def encode_metadata(separator: str, **values: str | int) -> dict[str, str]:
    """``ctl<separator><name>`` → the value, percent-encoded: metadata travels in HTTP headers,
    which carry ASCII only (Azure names must be identifiers, so it uses "_" where others use "-")."""
    return {
        f"ctl{separator}{name}": urllib.parse.quote(str(value), safe=_SAFE)
        for name, value in values.items()
    }


def metadata_value(separator: str, metadata: dict[str, str], name: str) -> str | None:
    """The decoded value of ``name``, whatever the case and separator it was stored with; None if absent."""
    for key in (f"ctl{separator}{name}", f"ctl-{name}", f"ctl_{name}"):
        for candidate, value in metadata.items():
            if candidate.lower() == key:
                return urllib.parse.unquote(value or "")  # Azure gives an empty value back as None
    return None


_OVERRIDE_METADATA_CHARS = 1024  # S3 allows 2 KB of user metadata in all; the rest is ours


def fits_metadata(reason: str) -> str:
    """The override reason, shortened (with "…") until its percent-encoded form fits in metadata."""
    if len(urllib.parse.quote(reason, safe=_SAFE)) <= _OVERRIDE_METADATA_CHARS:
        return reason
    text = reason
    while len(urllib.parse.quote(text + "…", safe=_SAFE)) > _OVERRIDE_METADATA_CHARS:
        text = text[: len(text) * 7 // 8]
    return text + "…"


__all__ = ["ObjectInfo", "PreconditionFailed", "StoredObject", "encode_metadata", "fits_metadata", "metadata_value"]
