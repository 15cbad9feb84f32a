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

_OPT_INT: dict[str, Any] = {"type": ["integer", "null"]}
_STRING_LIST: dict[str, Any] = {"type": ["array", "null"], "items": {"type": "string"}}
LIFECYCLE_ACTIONS = ("Delete", "SetStorageClass", "AbortIncompleteMultipartUpload")

_LIFECYCLE_ACTION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": list(LIFECYCLE_ACTIONS), "description": "What to do."},
        "storage_class": dict(_OPT_STR, description="Target class (SetStorageClass only)."),
    },
    "required": ["type"],
    "additionalProperties": False,
}

_LIFECYCLE_CONDITION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "age": dict(_OPT_INT, minimum=0, description="Days since the object was created."),
        "created_before": dict(_OPT_STR, description="Created before this date (YYYY-MM-DD, UTC)."),
        "with_state": {"type": ["string", "null"], "enum": ["LIVE", "ARCHIVED", "ANY", "", None],
                       "description": 'Live and/or noncurrent objects; "ANY" when unset.'},
        "matches_storage_class": dict(_STRING_LIST, description="Objects in one of these classes."),
        "matches_prefix": dict(_STRING_LIST, description="Names starting with one of these."),
        "matches_suffix": dict(_STRING_LIST, description="Names ending with one of these."),
        "num_newer_versions": dict(_OPT_INT, minimum=0, description="At least this many newer versions."),
        "custom_time_before": dict(_OPT_STR, description="customTime before this date (YYYY-MM-DD)."),
        "days_since_custom_time": dict(_OPT_INT, minimum=0, description="Days since customTime."),
        "days_since_noncurrent_time": dict(_OPT_INT, minimum=0, description="Days noncurrent."),
        "noncurrent_time_before": dict(_OPT_STR, description="Became noncurrent before this date."),
        "send_age_if_zero": dict(_OPT_BOOL, description="Send age = 0 (else 0 means no age condition)."),
        "send_num_newer_versions_if_zero": dict(_OPT_BOOL, description="Send it when 0."),
        "send_days_since_custom_time_if_zero": dict(_OPT_BOOL, description="Send it when 0."),
        "send_days_since_noncurrent_time_if_zero": dict(_OPT_BOOL, description="Send it when 0."),
    },
    "additionalProperties": False,
}

_LIFECYCLE_RULE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "array", "minItems": 1, "maxItems": 1, "items": _LIFECYCLE_ACTION,
                   "description": "Block: the action."},
        "condition": {"type": "array", "minItems": 1, "maxItems": 1, "items": _LIFECYCLE_CONDITION,
                      "description": "Block: the condition (every argument given must match)."},
    },
    "required": ["action", "condition"],
    "additionalProperties": False,
}

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
        "project": dict(_OPT_STR, description="Project of the bucket (the provider's when unset); replaces."),
        "public_access_prevention": {
            "type": ["string", "null"],
            "enum": ["inherited", "enforced", None],
            "description": 'Public access prevention: "inherited" or "enforced"; when omitted, the bucket\'s '
            "current setting is kept.",
        },
        "lifecycle_rule": {
            "type": ["array", "null"],
            "maxItems": 100,
            "items": _LIFECYCLE_RULE,
            "description": "Blocks: object lifecycle rules (an action and the condition that triggers it).",
        },
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
