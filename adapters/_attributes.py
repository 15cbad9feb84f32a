"""Attribute shapes the adapters share: the full attribute set, values known so far, stored maps.

Plans and states hold every attribute a schema declares, as Terraform's do, so that a diff sees
``file_permission = "0777"`` rather than a missing key; these helpers keep that true for every
adapter family in one place.
"""

from __future__ import annotations

from typing import Any

from vocab.values import Marked, Unknown


def complete(schema: dict[str, Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """Every attribute of the schema present (unset ones null), schema defaults applied."""
    out = dict(attrs)
    for name, prop in schema["properties"].items():
        if out.get(name) is None:
            out[name] = prop.get("default")
    return out


def known(attrs: dict[str, Any]) -> dict[str, Any]:
    """Values still unknown (computed ones a plan left open) as null, for create and update.

    The engine already does this before calling an adapter; direct callers (the contract suite,
    embedding code) may pass a planned value as ``plan`` returned it.
    """
    return {k: None if isinstance(v, Unknown) else v for k, v in attrs.items()}


def stored_map(value: Any) -> dict[str, str] | None:
    """A label/metadata map as a service stores it: empty and null are the same (no entries)."""
    if not value:
        return None
    return {str(k): str(v) for k, v in value.items()}


def string_map(value: Any) -> Any:
    """A ``map(string)`` value (``keepers``, ``triggers``) with scalar elements converted as
    Terraform converts them.

    Unknown and marked elements are kept as they are (the marks survive the conversion).
    """
    if not isinstance(value, dict):
        return value
    return {k: _to_string(v) for k, v in value.items()}


def _to_string(v: Any) -> Any:
    if isinstance(v, Marked):
        return Marked(_to_string(v.value), v.marks)
    if isinstance(v, Unknown) or v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
