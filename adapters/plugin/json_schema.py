"""A provider plugin's block schema as the JSON Schema ctl checks arguments with.

The engine checks every resource's arguments against its adapter's JSON Schema before planning, so
a mistyped name or a missing required argument is reported with its file:line for plugins too,
without starting the provider. The schema is deliberately permissive where Terraform converts
(a number given as ``"5"``, a bool as ``"true"``): the exact conversion happens in
``config_shape.normalize_config`` before the provider sees the value, with cty's wording. Nested
blocks are arrays of objects (lists, sets), objects (single, group) or maps of objects, as
Terraform's state holds them.
"""

from __future__ import annotations

from typing import Any

from vocab.schema.form import GROUP, MAP, SINGLE, Attribute, Block, NestedAttributeObject, NestedBlock
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
)

_PRIMITIVE: dict[CtyType, dict[str, Any]] = {
    STRING: {"type": ["string", "number", "boolean"]},
    NUMBER: {"type": ["number", "string"]},
    BOOL: {"type": ["boolean", "string"]},
}


def block_schema(block: Block) -> dict[str, Any]:
    """The JSON Schema of a block's arguments: every attribute and nested block type a property."""
    properties: dict[str, Any] = {a.name: _read_only(attribute_schema(a)) if a.computed and not (a.optional or a.required)
                                  else attribute_schema(a) for a in block.attributes}
    for nested in block.block_types:
        properties[nested.type_name] = _nested_block_schema(nested)
    required = [a.name for a in block.attributes if a.required]
    required += [b.type_name for b in block.block_types if b.min_items > 0]
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = sorted(required)
    return out


def attribute_schema(attribute: Attribute) -> dict[str, Any]:
    if attribute.nested_type is not None:
        return _nested_attribute_schema(attribute.nested_type)
    return type_schema(attribute.type) if attribute.type is not None else {}


def type_schema(ty: CtyType) -> dict[str, Any]:
    """JSON Schema of a cty type; ``null`` is always allowed (an unset argument)."""
    if ty in _PRIMITIVE:
        return _nullable(_PRIMITIVE[ty])
    if ty == DYNAMIC:
        return {}
    if isinstance(ty, Collection) and ty.kind in ("list", "set"):
        return _nullable({"type": "array", "items": type_schema(ty.element)})
    if isinstance(ty, TupleType):
        return _nullable({"type": "array"})
    if isinstance(ty, Collection):  # a map
        return _nullable({"type": "object", "additionalProperties": type_schema(ty.element)})
    if isinstance(ty, ObjectType):
        props = {name: type_schema(t) for name, t in ty.attributes.items()}
        return _nullable({"type": "object", "properties": props, "additionalProperties": False})
    return {}


def _nested_attribute_schema(nested: NestedAttributeObject) -> dict[str, Any]:
    obj = block_schema(Block(attributes=nested.attributes))
    if nested.nesting == SINGLE:
        return _nullable(obj)
    if nested.nesting == MAP:
        return _nullable({"type": "object", "additionalProperties": obj})
    return _nullable({"type": "array", "items": obj})


def _nested_block_schema(nested: NestedBlock) -> dict[str, Any]:
    obj = block_schema(nested.block)
    if nested.nesting in (SINGLE, GROUP):
        # Written once in configuration; the engine wraps a lone object in a list for list blocks
        # only, so a single block stays an object (or a one-item list from JSON configurations).
        return _nullable({"anyOf": [obj, {"type": "array", "items": obj, "maxItems": 1}]})
    if nested.nesting == MAP:
        return _nullable({"type": "object", "additionalProperties": obj})
    # A plain (not anyOf) array type, so the engine wraps a lone object from a JSON or YAML
    # configuration in a list, as it does for native adapters' blocks.
    out: dict[str, Any] = {"type": ["array", "null"], "items": obj}
    if nested.max_items:
        out["maxItems"] = nested.max_items
    return out


def _read_only(schema: dict[str, Any]) -> dict[str, Any]:
    """A computed-only attribute, marked as native schemas mark theirs: nothing configures it."""
    return {**schema, "readOnly": True}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [{"type": "null"}, schema]}
