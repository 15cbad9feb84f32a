"""JSON Schemas (draft 2020-12) of the google storage resource types, with Terraform's names.

Pure data, imported at discovery time (every Tab completion), so nothing here imports more than
``typing``. Optional attributes accept ``null`` because plan and state hold every attribute, unset
ones as null; computed-only attributes are ``readOnly``.
"""

from __future__ import annotations

from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"
STORAGE_CLASSES = ("STANDARD", "MULTI_REGIONAL", "REGIONAL", "NEARLINE", "COLDLINE", "ARCHIVE", "DURABLE_REDUCED_AVAILABILITY")

_OPT_STR: dict[str, Any] = {"type": ["string", "null"]}
_OPT_BOOL: dict[str, Any] = {"type": ["boolean", "null"]}
_COMPUTED_STR: dict[str, Any] = {"type": ["string", "null"], "readOnly": True}
_STRING_MAP: dict[str, Any] = {"type": ["object", "null"], "additionalProperties": {"type": "string"}}

BUCKET_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "minLength": 3,
            "maxLength": 222,
            "pattern": "^[a-z0-9][a-z0-9._-]*[a-z0-9]$",
            "description": "Globally unique bucket name; a change replaces the bucket.",
        },
        "location": {
            "type": "string",
            "minLength": 1,
            "description": 'Location, e.g. "US", "EU" or "EUROPE-WEST1" (stored upper-case); a change replaces.',
        },
        "storage_class": {
            **_OPT_STR,
            "default": "STANDARD",
            "description": "Default storage class of new objects: " + ", ".join(STORAGE_CLASSES) + ".",
        },
        "labels": dict(_STRING_MAP, description="Key/value labels; updated in place."),
        "versioning": {
            "type": ["array", "null"],
            "maxItems": 1,
            "items": {
                "type": "object",
                "properties": {"enabled": {"type": "boolean"}},
                "required": ["enabled"],
                "additionalProperties": False,
            },
            "description": "Block: object versioning; when omitted, the bucket's current setting is kept.",
        },
        "force_destroy": {
            **_OPT_BOOL,
            "default": False,
            "description": "Delete every object (all versions) when the bucket is destroyed.",
        },
        "uniform_bucket_level_access": dict(
            _OPT_BOOL, description="Uniform bucket-level access (IAM only, no object ACLs)."
        ),
        "id": dict(_COMPUTED_STR, description="The bucket name (also the import ID)."),
        "self_link": dict(_COMPUTED_STR, description="The bucket's JSON API URI."),
        "url": dict(_COMPUTED_STR, description='The bucket\'s "gs://NAME" URL.'),
    },
    "required": ["name", "location"],
    "additionalProperties": False,
}


def _exactly_one_of(names: tuple[str, ...]) -> list[dict[str, Any]]:
    """One alternative per content argument: it is a string, the others absent or null."""
    return [{"required": [name], "properties": {name: {"type": "string"}}} for name in names]


OBJECT_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 1024,
                 "description": "Object name (may contain /); a change replaces the object."},
        "bucket": {"type": "string", "minLength": 3, "description": "Bucket name; a change replaces."},
        "content": dict(_OPT_STR, description="Text to upload (sensitive); exactly one of content, source."),
        "source": dict(_OPT_STR, description="Path of a file to upload, relative to the configuration."),
        "content_type": dict(_OPT_STR, description="MIME type; default chosen by the SDK; updated in place."),
        "metadata": dict(_STRING_MAP, description="Custom metadata; updated in place."),
        "detect_md5hash": dict(
            _OPT_STR,
            description="Set by ctl: base64 MD5 of the bytes to upload, compared with the object's; "
            "a difference (new content, or bytes changed outside ctl) replaces the object.",
        ),
        "id": dict(_COMPUTED_STR, description='"BUCKET/NAME" (also the import ID).'),
        "md5hash": dict(_COMPUTED_STR, description="Base64 MD5 of the stored bytes."),
        "generation": {"type": ["integer", "null"], "readOnly": True,
                       "description": "Generation of the stored bytes."},
        "media_link": dict(_COMPUTED_STR, description="URL to download the bytes."),
    },
    "required": ["name", "bucket"],
    "oneOf": _exactly_one_of(("content", "source")),
    "additionalProperties": False,
}


def complete(schema: dict[str, Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """Every attribute of the schema present (unset ones null), schema defaults applied."""
    out = dict(attrs)
    for name, prop in schema["properties"].items():
        if out.get(name) is None:
            out[name] = prop.get("default")
    return out


def string_map(value: Any) -> dict[str, str] | None:
    """A label/metadata map as stored: empty and null are the same (no entries)."""
    if not value:
        return None
    return {str(k): str(v) for k, v in value.items()}


def known(attrs: dict[str, Any]) -> dict[str, Any]:
    """Values still unknown (computed ones a plan left open) as null, for create and update.

    The engine already does this before calling an adapter; direct callers (the contract suite,
    embedding code) may pass a planned value as ``plan`` returned it.
    """
    from engine.lang.values import Unknown

    return {k: None if isinstance(v, Unknown) else v for k, v in attrs.items()}
