"""How a native adapter reads a prior object the provider itself wrote: as the same values.

A state written by a provider (by Terraform, or by ctl's plugin) spells an argument the
configuration leaves unset the provider's way: ``""`` for a string, ``[]`` or ``{}`` for a
collection, the argument's default, where a native adapter plans null. For the provider these are
one value (an Optional+Computed argument left out of the configuration keeps whatever the prior
object holds), so a plan must not show them as a change: ``name_prefix = "" -> null`` on a queue
forces a replacement, and a replacement deletes the queue's messages. And the provider records
attributes a native adapter does not declare; a plan that drops them would lose them from state.

So a native adapter's plan passes through ``keep_prior``: where the planned value and the prior one
mean the same, the prior one is planned (so nothing differs), and the prior's undeclared attributes
are carried over untouched. A value that really differs is planned as the adapter planned it.
"""

from __future__ import annotations

from typing import Any

from vocab.values import Unknown


def keep_prior(schema: dict[str, Any], prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
    """``planned`` with the prior value wherever the two mean the same, and with every prior
    attribute the schema does not declare (what the provider recorded and the adapter does not know)."""
    if prior is None:
        return planned
    props: dict[str, Any] = schema.get("properties", {})
    out = dict(planned)
    for name, value in prior.items():
        prop = props.get(name)
        if prop is None:
            out.setdefault(name, value)
        elif name in out and same_for_plan(prop, value, out[name]):
            out[name] = value
    return out


def same_for_plan(prop: dict[str, Any], prior: Any, planned: Any) -> bool:
    """Whether ``prior`` and ``planned`` are one value of the argument ``prop`` describes.

    Null, ``""`` and an empty collection are one value (unset); so are null and the argument's
    default. Nested blocks (arrays of objects) and objects compare member by member; members the
    schema does not declare do not count. An unknown planned value is never the same.
    """
    if isinstance(planned, Unknown) or isinstance(prior, Unknown):
        return False
    if prior == planned:
        return True
    if _blank(prior) and _blank(planned):
        return True
    if "default" in prop and {_key(prior), _key(planned)} <= {_key(None), _key(prop["default"])}:
        return True
    items = prop.get("items")
    if isinstance(prior, list) and isinstance(planned, list) and isinstance(items, dict):
        return len(prior) == len(planned) and all(
            same_for_plan(items, a, b) for a, b in zip(prior, planned, strict=True))
    members = prop.get("properties")
    if isinstance(prior, dict) and isinstance(planned, dict) and isinstance(members, dict):
        return all(same_for_plan(member, prior.get(name), planned.get(name)) for name, member in members.items())
    return False


def _blank(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _key(value: Any) -> tuple[str, Any]:
    """A hashable stand-in that keeps ``False`` apart from ``0`` and null apart from both."""
    return (type(value).__name__, value if isinstance(value, (str, int, float, bool, type(None))) else repr(value))
