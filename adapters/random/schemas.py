"""JSON Schemas (draft 2020-12) of the ``random`` provider's resource types, and value helpers.

Pure data plus two tiny helpers, imported at discovery time. Optional attributes accept ``null``
because the state and the plan hold every attribute; computed-only attributes are ``readOnly``.
``keepers`` is Terraform's ``map(string)``: numbers and booleans are accepted and stored as
strings, the conversion Terraform applies to such a map.
"""

from __future__ import annotations

from typing import Any

_SCHEMA_ID = "https://json-schema.org/draft/2020-12/schema"

KEEPERS: dict[str, Any] = {
    "type": ["object", "null"],
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},  # null elements are allowed
    "description": "Arbitrary values that, when changed, force a new random value.",
}


def _ro(type_: str, description: str) -> dict[str, Any]:
    return {"type": [type_, "null"], "readOnly": True, "description": description}


def _flag(description: str, *, deprecated: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["boolean", "null"], "default": True, "description": description}
    if deprecated:
        out["deprecated"] = True
    return out


def _minimum(what: str) -> dict[str, Any]:
    return {
        "type": ["integer", "null"],
        "minimum": 0,
        "default": 0,
        "description": f"Minimum number of {what}.",
    }


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "$schema": _SCHEMA_ID,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


ID_SCHEMA = _object(
    {
        "byte_length": {"type": "integer", "minimum": 1, "description": "Number of random bytes."},
        "prefix": {
            "type": ["string", "null"],
            "description": "Prepended as is to b64_url, b64_std, hex, dec.",
        },
        "keepers": KEEPERS,
        "id": _ro("string", "The bytes in URL-safe base64 without padding, without prefix."),
        "b64_url": _ro("string", "prefix + URL-safe base64 without padding."),
        "b64_std": _ro("string", "prefix + standard base64."),
        "hex": _ro("string", "prefix + hexadecimal, two digits per byte."),
        "dec": _ro("string", "prefix + the bytes as an unsigned big-endian decimal."),
    },
    ["byte_length"],
)


def string_schema(*, password: bool) -> dict[str, Any]:
    """``random_string`` and ``random_password`` share their arguments."""
    props: dict[str, Any] = {
        "length": {"type": "integer", "minimum": 1, "description": "Length of the result."},
        "special": _flag("Include special characters (!@#$%&*()-_=+[]{}<>:? unless override_special)."),
        "upper": _flag("Include upper-case letters."),
        "lower": _flag("Include lower-case letters."),
        "numeric": _flag("Include digits."),
        "number": _flag("Deprecated alias of numeric.", deprecated=True),
        "min_upper": _minimum("upper-case letters"),
        "min_lower": _minimum("lower-case letters"),
        "min_numeric": _minimum("digits"),
        "min_special": _minimum("special characters"),
        "override_special": {"type": ["string", "null"], "description": "The special characters to use."},
        "keepers": KEEPERS,
        "result": _ro("string", "The generated string."),
        "id": _ro("string", '"none" for passwords; the result for strings.'),
    }
    if password:
        props["bcrypt_hash"] = _ro("string", "A bcrypt hash of the result (cost 10).")
    return _object(props, ["length"])


INTEGER_SCHEMA = _object(
    {
        "min": {"type": "integer", "description": "Smallest possible result (inclusive)."},
        "max": {"type": "integer", "description": "Largest possible result (inclusive)."},
        "seed": {"type": ["string", "null"], "description": "Makes the result deterministic."},
        "keepers": KEEPERS,
        "result": _ro("integer", "The random integer."),
        "id": _ro("string", "The result as a string."),
    },
    ["min", "max"],
)
