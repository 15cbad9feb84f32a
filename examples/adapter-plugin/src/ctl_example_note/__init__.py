"""``example_note``: a text file with the given text, the smallest complete ctl adapter.

It shows every part a resource type has: a JSON Schema of its arguments and computed attributes,
which changes force replacement (``filename``) and which are updated in place (``text``), a
``read`` that returns None when the object is gone (so ``ctl plan`` re-creates it) and reports
edits made outside ctl as drift, idempotent ``delete``, ``import_`` by ID (the file name), and
``import_id``, which lets ctl find a note an apply killed mid-create had already written.
Only ``adapters.base`` is imported here: ctl loads this module on every command and Tab completion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError, Provider, ResourceType

NOTE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "filename": {"type": "string", "minLength": 1,
                     "description": "Where the note is written, relative to the configuration."},
        "text": {"type": "string", "description": "The note; changed in place."},
        "id": {"type": ["string", "null"], "readOnly": True, "description": "The file name."},
        "length": {"type": ["integer", "null"], "readOnly": True, "description": "Characters in text."},
    },
    "required": ["filename", "text"],
    "additionalProperties": False,
}


class Note(ResourceType):
    """A note file whose text ctl owns."""

    name = "example_note"
    schema = NOTE_SCHEMA
    computed = frozenset({"id", "length"})
    replace_on = frozenset({"filename"})

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        path = _path(ctx, attrs["filename"])
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None  # deleted outside ctl: the next plan creates it again
        return _attributes(attrs["filename"], text)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        return self._write(ctx, planned)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self._write(ctx, planned)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        _path(ctx, prior["filename"]).unlink(missing_ok=True)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the file name; ``read`` (which ctl calls next) fills in the text."""
        return {"filename": resource_id, "text": None, "id": resource_id, "length": None}

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The planned file name is the import ID: after a crash ctl imports the note from it."""
        filename = identity.get("filename")
        return filename if isinstance(filename, str) else None

    def _write(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        path = _path(ctx, planned["filename"])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(planned["text"], encoding="utf-8")
        except OSError as exc:  # an error the user can act on, never a traceback
            raise AdapterError(f"cannot write {path}: {exc.strerror or exc}", address=ctx.address) from None
        return _attributes(planned["filename"], planned["text"])


def _path(ctx: AdapterContext, filename: str) -> Path:
    path = Path(filename)
    return path if path.is_absolute() else Path(ctx.workdir) / path


def _attributes(filename: str, text: str) -> dict[str, Any]:
    return {"filename": filename, "text": text, "id": filename, "length": len(text)}


PROVIDER = Provider(
    name="example",
    source="example.com/acme/example",
    resources={"example_note": Note()},
    config_schema={"type": "object", "properties": {}, "additionalProperties": False},
)

__all__ = ["PROVIDER"]
