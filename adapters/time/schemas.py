"""JSON Schema (draft 2020-12) of ``time_sleep``, and value helpers.

Pure data plus two small helpers, imported at discovery time. Optional attributes accept
``null`` because the state and the plan hold every attribute; ``triggers`` is Terraform's
``map(string)`` (numbers and booleans are accepted and stored as strings).
"""

from __future__ import annotations

from typing import Any

from adapters.time.duration import DURATION_PATTERN

_DURATION: dict[str, Any] = {"type": ["string", "null"], "pattern": DURATION_PATTERN}

SLEEP_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "create_duration": dict(_DURATION, description='How long create waits, e.g. "30s" or "1h2m3s".'),
        "destroy_duration": dict(_DURATION, description="How long destroy waits."),
        "triggers": {
            "type": ["object", "null"],
            "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
            "description": "Arbitrary values that, when changed, replace the sleep (and wait again).",
        },
        "id": {
            "type": ["string", "null"],
            "readOnly": True,
            "format": "date-time",
            "description": "When the sleep was created (RFC 3339, UTC).",
        },
    },
    # At least one of the durations is set (to a string, not null).
    "anyOf": [
        {"required": ["create_duration"], "properties": {"create_duration": {"type": "string"}}},
        {"required": ["destroy_duration"], "properties": {"destroy_duration": {"type": "string"}}},
    ],
    "additionalProperties": False,
}
