"""``terraform_data``: a value kept in state, and a handle for ``replace_triggered_by``.

``output`` follows ``input`` (an in-place update when only ``input`` changes); a change of
``triggers_replace`` replaces the object, giving it a new ``id``. As in Terraform, ``output`` is
planned unknown on create and whenever ``input`` changes, and known (the prior value) otherwise:
configurations use exactly that to defer a value to apply time. In the state file ``input``,
``output`` and ``triggers_replace`` carry their types (``engine/state/dynamic_attrs.py``).
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterContext, ResourceType
from vocab.values import UNKNOWN, deep_unmark

_ANY: dict[str, Any] = {}  # any value: string, number, bool, list, map, object or null

DATA_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "input": dict(_ANY, description="Any value; copied to output."),
        "triggers_replace": dict(_ANY, description="Any value; a change replaces the resource."),
        "output": dict(_ANY, readOnly=True, description="The value of input."),
        "id": {"type": ["string", "null"], "readOnly": True, "description": "A random UUID."},
    },
    "additionalProperties": False,
}


class TerraformData(ResourceType):
    """Holds ``input`` as ``output``; replaced when ``triggers_replace`` changes."""

    state_only = True  # nothing outside state: an interrupted create left nothing to find

    name = "terraform_data"
    sensitive_follows = {"output": "input"}  # a secret input stays secret when copied to output
    schema = DATA_SCHEMA
    computed = frozenset({"id", "output"})
    replace_on = frozenset({"triggers_replace"})

    def plan(
        self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]
    ) -> dict[str, Any]:
        out = _complete(planned)
        if prior is None or _plain(prior.get("triggers_replace")) != _plain(out["triggers_replace"]):
            out["id"] = out["output"] = UNKNOWN  # a new object: a new id, output set by apply
            return out
        out["id"] = prior.get("id")
        changed = _plain(prior.get("input")) != _plain(out["input"])
        out["output"] = UNKNOWN if changed else prior.get("output")
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        import uuid

        out = _complete(planned)
        out["output"] = out["input"]
        out["id"] = str(uuid.uuid4())
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = _complete(planned)
        out["output"] = out["input"]
        out["id"] = prior.get("id")
        return out

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Only the id can be imported; input, output and triggers_replace start as null."""
        return _complete({"id": resource_id})


def _complete(attrs: dict[str, Any]) -> dict[str, Any]:
    out = dict(attrs)
    for name in DATA_SCHEMA["properties"]:
        out.setdefault(name, None)
    return out


def _plain(value: Any) -> Any:
    return deep_unmark(value)[0]
