"""How a native adapter's schema is read: its JSON Schema in the provider schema form.

Native adapters write their arguments as JSON Schema; everything that reads a schema — the argument
check (``engine.schema``), and tools that read provider schemas (editors, documentation generators,
policy authors, ``ctl providers schema --json``) — takes Terraform's block/attribute form, the same
form a plugin reports. This module is the one translation. An attribute is ``required`` when the
schema requires it, ``computed`` when the adapter sets it (and ``optional`` too when the
configuration may also set it), ``sensitive`` when the adapter always masks it. An array of objects
is a nested block in ``list`` mode, as in state. What JSON Schema says beyond types and nesting
(``enum``, ``pattern``, ``minimum``, ``oneOf`` at the root …) has no place in the form: it is the
adapter's own validation, run after the form's check, as a provider's ValidateResourceConfig is.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from adapters.base import Provider, ResourceType
from adapters.plugin.schema_json import block_from_json
from vocab.schema.form import Block

_SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "bool"}
_ANY_SCALAR = {"string", "number", "boolean"}


def provider_schema(provider: Provider) -> dict[str, Any]:
    """``{"provider": ..., "resource_schemas": ..., "data_source_schemas": ...}`` for one provider."""
    return {
        "provider": {"version": 0, "block": _block(provider.config_schema, frozenset(), frozenset(), set())},
        "resource_schemas": {name: type_schema(rt) for name, rt in sorted(provider.resources.items())},
        "data_source_schemas": {name: type_schema(rt) for name, rt in sorted(provider.data_sources.items())},
    }


@cache
def block_of(rt: ResourceType) -> Block:
    """The native type's arguments in the provider schema form, worked out once per type."""
    return block_from_json(type_schema(rt)["block"])


def type_schema(rt: ResourceType) -> dict[str, Any]:
    required = set(rt.schema.get("required", []))
    return {"version": rt.schema_version, "block": _block(rt.schema, rt.computed, rt.sensitive, required)}


def _block(schema: dict[str, Any], computed: frozenset[str], sensitive: frozenset[str],
           required: set[str]) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    block_types: dict[str, Any] = {}
    required = required | set(schema.get("required", []))
    for name, prop in sorted((schema.get("properties") or {}).items()):
        if not isinstance(prop, dict):  # ``true``: any value at all
            prop = {}
        if _is_object_array(prop):
            item = prop["items"]
            nested: dict[str, Any] = {"nesting_mode": "list",
                                      "block": _block(item, frozenset(), frozenset(), set())}
            if prop.get("maxItems"):
                nested["max_items"] = prop["maxItems"]
            if prop.get("minItems"):
                nested["min_items"] = prop["minItems"]
            block_types[name] = nested
            continue
        attribute: dict[str, Any] = {"type": cty_type(prop), "description_kind": "plain"}
        if prop.get("description"):
            attribute["description"] = prop["description"]
        if name in required:
            attribute["required"] = True
        elif name in computed:
            attribute["computed"] = True
            if not prop.get("readOnly"):
                attribute["optional"] = True
        else:
            attribute["optional"] = True
        if name in sensitive:
            attribute["sensitive"] = True
        attributes[name] = attribute
    out: dict[str, Any] = {}
    if attributes:
        out["attributes"] = attributes
    if block_types:
        out["block_types"] = block_types
    out["description_kind"] = "plain"
    return out


def cty_type(prop: dict[str, Any]) -> Any:
    """The cty type (as JSON) that holds every value ``prop`` accepts; ``dynamic`` when it varies."""
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        # A value of any scalar kind is one string once Terraform converts it (a map of them is how
        # ``keepers`` and ``triggers`` say ``map(string)``); other unions hold values of several types.
        kind = kinds[0] if len(kinds) == 1 else "string" if set(kinds) == _ANY_SCALAR else None
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        element = cty_type(prop.get("items") or {})
        return ["set" if prop.get("uniqueItems") else "list", element]
    if kind == "object":
        extra = prop.get("additionalProperties")
        if prop.get("properties"):
            return ["object", {n: cty_type(p) for n, p in sorted(prop["properties"].items())}]
        if isinstance(extra, dict):
            return ["map", cty_type(extra)]
        return "dynamic"  # any object at all (a remote state's backend settings nest objects)
    return "dynamic"


def _is_object_array(prop: dict[str, Any]) -> bool:
    kind = prop.get("type")
    is_array = kind == "array" or (isinstance(kind, list) and "array" in kind)
    return is_array and (prop.get("items") or {}).get("type") == "object"  # as engine.schema normalizes
