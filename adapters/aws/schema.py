"""Building blocks of the aws resource schemas (JSON Schema, draft 2020-12).

Pure data, imported at discovery time. The conventions are the local provider's: optional
arguments accept ``null`` (unset attributes are null in plan and state, as in Terraform's), computed
-only attributes are ``readOnly``, defaults are declared with ``default`` (the resource's ``plan``
fills them in), and nested blocks are arrays of objects, as Terraform's state holds them.
"""

from __future__ import annotations

from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": ["string", "null"], "description": description, **extra}


def required_string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": description, **extra}


def boolean(description: str, default: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["boolean", "null"], "description": description}
    if default is not None:
        out["default"] = default
    return out


def integer(description: str, default: int | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["integer", "null"], "description": description, **extra}
    if default is not None:
        out["default"] = default
    return out


def string_map(description: str) -> dict[str, Any]:
    return {"type": ["object", "null"], "additionalProperties": {"type": "string"}, "description": description}


def computed(description: str, kind: str = "string") -> dict[str, Any]:
    """An attribute only the adapter sets."""
    if kind == "map":
        return {"type": ["object", "null"], "additionalProperties": {"type": "string"}, "readOnly": True,
                "description": description}
    return {"type": [kind, "null"], "readOnly": True, "description": description}


def block(description: str, props: dict[str, Any], *, required: tuple[str, ...] = (),
          min_items: int = 0, max_items: int | None = None) -> dict[str, Any]:
    """A nested block: an array of objects (one per block written)."""
    item: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        item["required"] = list(required)
    out: dict[str, Any] = {"type": ["array", "null"], "items": item, "description": description}
    if min_items:
        out["minItems"] = min_items
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def tags_properties() -> dict[str, Any]:
    """``tags`` and ``tags_all`` (the provider's ``default_tags`` merged under the resource's)."""
    return {
        "tags": string_map("Tags of the object."),
        "tags_all": computed("Tags including the provider's default_tags.", "map"),
    }


def resource_schema(props: dict[str, Any], *, required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"$schema": DRAFT, "type": "object", "properties": props,
                           "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out

