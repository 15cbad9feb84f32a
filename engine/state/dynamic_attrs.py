"""Attributes a schema types as ``dynamic``, stored in state with their type: ``{"value": …, "type": …}``.

Terraform writes a dynamically typed attribute the way it writes an output, value and type side by
side, because the value alone does not say whether ``["a"]`` is a list, a set or a tuple. In memory
ctl keeps the bare value (what expressions read); the wrapper exists only in the state file. The
type read from a file is kept and written back while the value is unchanged, so a ``tolist()`` input
stays a list; a new value is written with the type a literal of it has (tuples and objects).
"""

from __future__ import annotations

from typing import Any

from engine.state.model import output_type

# Resource types whose schema (fixed by Terraform itself) has dynamic top-level attributes.
DYNAMIC_ATTRIBUTES: dict[str, frozenset[str]] = {
    "terraform_data": frozenset({"input", "output", "triggers_replace"}),
}


def unwrap(type_name: str, attributes: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Bare attribute values, and the wrappers as read (to keep their types on write)."""
    names = DYNAMIC_ATTRIBUTES.get(type_name)
    if not names:
        return attributes, {}
    bare, wrappers = dict(attributes), {}
    for name in names & attributes.keys():
        raw = attributes[name]
        if isinstance(raw, dict) and raw.keys() == {"value", "type"}:
            bare[name] = raw["value"]
            wrappers[name] = raw
    return bare, wrappers


def wrap(type_name: str, attributes: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """Attributes as the state file holds them; ``read`` are the wrappers ``unwrap`` returned."""
    names = DYNAMIC_ATTRIBUTES.get(type_name)
    if not names:
        return attributes
    out = dict(attributes)
    for name in names & attributes.keys():
        value = attributes[name]
        if value is None:
            continue
        previous = read.get(name)
        if previous is not None and previous["value"] == value:
            out[name] = {"value": value, "type": previous["type"]}
        else:
            out[name] = {"value": value, "type": output_type(value)}
    return out
