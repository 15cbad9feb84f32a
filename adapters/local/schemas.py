"""JSON Schemas (draft 2020-12) of the ``local`` provider's resource types and data sources.

Pure data, imported at discovery time, so nothing here may import more than ``typing``.
Optional attributes accept ``null`` because the state and the plan hold every attribute, unset
ones as null (as Terraform's do); computed-only attributes are ``readOnly``.
"""

from __future__ import annotations

from typing import Any

HASHES: tuple[str, ...] = (
    "content_md5",
    "content_sha1",
    "content_sha256",
    "content_base64sha256",
    "content_sha512",
    "content_base64sha512",
)
CONTENT_ARGS: tuple[str, ...] = ("content", "sensitive_content", "content_base64", "source")
PERMISSION_PATTERN = "^[0-7]{3,4}$"

_OPT_STR: dict[str, Any] = {"type": ["string", "null"]}
_COMPUTED_STR: dict[str, Any] = {"type": ["string", "null"], "readOnly": True}


def _permission(default: str, what: str) -> dict[str, Any]:
    return {
        "type": ["string", "null"],
        "pattern": PERMISSION_PATTERN,
        "default": default,
        "description": f'Permissions of {what} (before umask) in octal notation, e.g. "0644".',
    }


def _hash_properties() -> dict[str, Any]:
    return {name: dict(_COMPUTED_STR, description=f"{name[8:]} checksum of the content.") for name in HASHES}


def _exactly_one_of(names: tuple[str, ...]) -> list[dict[str, Any]]:
    """One alternative per content argument: it is a string, the others absent or null."""
    return [{"required": [name], "properties": {name: {"type": "string"}}} for name in names]


def file_schema(*, permission: str, with_sensitive_content: bool) -> dict[str, Any]:
    """The schema of ``local_file`` / ``local_sensitive_file`` (they differ in defaults only)."""
    content_args = tuple(a for a in CONTENT_ARGS if with_sensitive_content or a != "sensitive_content")
    props: dict[str, Any] = {
        "filename": {
            "type": "string",
            "minLength": 1,
            "description": "Path of the file; relative paths resolve against the configuration directory.",
        },
        "content": dict(_OPT_STR, description="UTF-8 text to write."),
        "content_base64": dict(_OPT_STR, description="Binary content to write, base64-encoded."),
        "source": dict(_OPT_STR, description="Path of a file whose bytes are copied."),
        "file_permission": _permission(permission, "the file"),
        "directory_permission": _permission(permission, "directories created for the file"),
        "id": dict(_COMPUTED_STR, description="Hex SHA-1 of the content."),
        **_hash_properties(),
    }
    if with_sensitive_content:
        props["sensitive_content"] = dict(
            _OPT_STR, deprecated=True, description="Deprecated: use local_sensitive_file."
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": props,
        "required": ["filename"],
        "oneOf": _exactly_one_of(content_args),
        "additionalProperties": False,
    }


def data_file_schema() -> dict[str, Any]:
    """The schema of the ``local_file`` / ``local_sensitive_file`` data sources."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "filename": {"type": "string", "minLength": 1, "description": "Path of the file to read."},
            "content": dict(_COMPUTED_STR, description="The file's bytes as UTF-8 text."),
            "content_base64": dict(_COMPUTED_STR, description="The file's bytes, base64-encoded."),
            "id": dict(_COMPUTED_STR, description="Hex SHA-1 of the content."),
            **_hash_properties(),
        },
        "required": ["filename"],
        "additionalProperties": False,
    }
