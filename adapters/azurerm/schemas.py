"""JSON Schemas (draft 2020-12) of the azurerm storage resource types, with Terraform's names.

Pure data, imported at discovery time, so nothing here imports more than ``typing``. Optional
attributes accept ``null`` (plan and state hold every attribute); computed-only ones are ``readOnly``.
"""

from __future__ import annotations

from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Container and queue names: 3-63 lower-case letters, digits and single hyphens, alphanumeric ends.
NAME_PATTERN = "^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$"
ACCESS_TYPES = ("private", "blob", "container")
BLOB_TYPES = ("Block", "Append", "Page")

_OPT_STR: dict[str, Any] = {"type": ["string", "null"]}
_COMPUTED_STR: dict[str, Any] = {"type": ["string", "null"], "readOnly": True}
_METADATA: dict[str, Any] = {
    "type": ["object", "null"],
    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
    "additionalProperties": {"type": "string"},
    "description": "Name/value metadata (names are C# identifiers); updated in place.",
}
_ACCOUNT: dict[str, Any] = {
    "type": "string",
    "pattern": "^[a-z0-9]{3,24}$",
    "description": "Storage account; must be the provider connection's account. A change replaces.",
}

CONTAINER_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": f"{NAME_PATTERN}|^\\$root$|^\\$web$",
                 "description": "Container name; a change replaces the container."},
        "storage_account_name": _ACCOUNT,
        "container_access_type": {
            "type": ["string", "null"],
            "enum": [*ACCESS_TYPES, None],
            "default": "private",
            "description": "Anonymous read access: private, blob or container; updated in place.",
        },
        "metadata": _METADATA,
        "id": dict(_COMPUTED_STR, description="The container URL (also the import ID)."),
        "has_immutability_policy": {"type": ["boolean", "null"], "readOnly": True},
        "has_legal_hold": {"type": ["boolean", "null"], "readOnly": True},
    },
    "required": ["name", "storage_account_name"],
    "additionalProperties": False,
}

BLOB_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 1024,
                 "description": "Blob name (may contain /); a change replaces the blob."},
        "storage_account_name": _ACCOUNT,
        "storage_container_name": {"type": "string", "minLength": 3, "description": "Container; a change replaces."},
        "type": {"type": "string", "enum": list(BLOB_TYPES), "description": "Block, Append or Page; a change replaces."},
        "size": {"type": ["integer", "null"], "minimum": 0, "multipleOf": 512, "default": 0,
                 "description": "Size in bytes of a Page blob without source (a multiple of 512)."},
        "source_content": dict(_OPT_STR, description="Text to upload; at most one of source_content, source."),
        "source": dict(_OPT_STR, description="Path of a file to upload, relative to the configuration."),
        "content_type": {**_OPT_STR, "default": "application/octet-stream",
                         "description": "MIME type; updated in place."},
        "content_md5": dict(
            _OPT_STR,
            description="Hex MD5 of the uploaded bytes; set by ctl when omitted. A difference (new "
            "content, or bytes changed outside ctl) replaces the blob.",
        ),
        "metadata": _METADATA,
        "id": dict(_COMPUTED_STR, description="The blob URL (also the import ID)."),
        "url": dict(_COMPUTED_STR, description="The blob URL."),
    },
    "required": ["name", "storage_account_name", "storage_container_name", "type"],
    "not": {
        "required": ["source_content", "source"],
        "properties": {"source_content": {"type": "string"}, "source": {"type": "string"}},
    },
    "additionalProperties": False,
}

QUEUE_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": NAME_PATTERN, "description": "Queue name; a change replaces."},
        "storage_account_name": _ACCOUNT,
        "metadata": _METADATA,
        "id": dict(_COMPUTED_STR, description="The queue URL (also the import ID)."),
    },
    "required": ["name", "storage_account_name"],
    "additionalProperties": False,
}
