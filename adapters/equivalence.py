"""How a native adapter reads a prior object the provider itself wrote: as the same values.

A state written by a provider (by Terraform, or by ctl's plugin) spells an argument the
configuration leaves unset the provider's way: ``""`` for a string, ``[]`` or ``{}`` for a
collection, the argument's default, where a native adapter plans null. For the provider these are
one value (an Optional+Computed argument left out of the configuration keeps whatever the prior
object holds), so a plan must not show them as a change: ``name_prefix = "" -> null`` on a queue
forces a replacement, and a replacement deletes the queue's messages. And the provider records
attributes a native adapter does not declare; a plan that drops them would lose them from state.

The provider's SDK writes an unset primitive as its type's zero value (``""``, ``0``, ``false``)
and an unset Optional+Computed block as one block of zero values; a native adapter writes null and
no block. So a native adapter's plan passes through ``keep_prior``: where the planned value and the
prior one mean the same, the prior one is planned (so nothing differs), and the prior's undeclared
attributes are carried over untouched. Its refresh passes through ``keep_recorded``, the same rule
for what it reads back, so a refresh reports no change that is only spelling. A value that really
differs is planned (or read) as the adapter has it.
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


def keep_recorded(schema: dict[str, Any], prior: dict[str, Any], fresh: dict[str, Any] | None) -> dict[str, Any] | None:
    """A refreshed object with the prior's spelling of every value that means the same, where the
    prior recorded one (a null prior is not kept over a value read: an import starts from nulls)."""
    if fresh is None:
        return None
    props: dict[str, Any] = schema.get("properties", {})
    out = dict(fresh)
    for name, value in prior.items():
        prop = props.get(name)
        if prop is None:
            out.setdefault(name, value)
        elif value is not None and name in out and same_for_plan(prop, value, out[name]):
            out[name] = value
    return out


def same_for_plan(prop: dict[str, Any], prior: Any, planned: Any) -> bool:
    """Whether ``prior`` and ``planned`` are one value of the argument ``prop`` describes.

    Null and the zero value of its type (``""``, ``0``, ``false``, an empty collection) are one value
    (unset); so are null and the argument's default, and no block and one block of unset members.
    Nested blocks (arrays of objects) and objects compare member by member; members the schema
    does not declare do not count. An unknown planned value is never the same.
    """
    if isinstance(planned, Unknown) or isinstance(prior, Unknown):
        return False
    if prior == planned:
        return True
    if _blank(prior, prop) and _blank(planned, prop):
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


def _blank(value: Any, prop: dict[str, Any]) -> bool:
    """Unset: null, a zero value, or (a block) one block whose members are all unset."""
    if value is None or value == "" or value == [] or value == {}:
        return True
    if value is False or (type(value) is int and value == 0):
        return "default" not in prop or prop["default"] == value
    items = prop.get("items")
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) and isinstance(items, dict):
        members: dict[str, Any] = items.get("properties", {})
        return all(_blank(v, members.get(k, {})) for k, v in value[0].items() if k in members)
    return False


def _key(value: Any) -> tuple[str, Any]:
    """A hashable stand-in that keeps ``False`` apart from ``0`` and null apart from both."""
    return (type(value).__name__, value if isinstance(value, (str, int, float, bool, type(None))) else repr(value))
