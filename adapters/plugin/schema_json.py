"""Schemas from the JSON that ``terraform providers schema -json`` prints.

The same schema model serves schemas received over the plugin protocol and schemas read from
Terraform's own JSON (a cached copy, a test fixture, Terraform's output for comparison), so both
paths share every derivation in ``schema.py``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from vocab.schema.form import (
    ATTRIBUTE_NESTINGS,
    BLOCK_NESTINGS,
    Attribute,
    Block,
    NestedAttributeObject,
    NestedBlock,
    Schema,
)
from vocab.types import TypeSpecError, parse_type


def schema_from_json(doc: dict[str, Any]) -> Schema:
    """``{"version": N, "block": {...}}`` as a ``Schema``."""
    return Schema(version=int(doc.get("version", 0)), block=block_from_json(doc.get("block", {})))


def block_from_json(doc: dict[str, Any]) -> Block:
    """A block object (``attributes``, ``block_types``) as a ``Block``, names in sorted order."""
    attributes = doc.get("attributes") or {}
    block_types = doc.get("block_types") or {}
    return Block(
        attributes=tuple(_attribute(name, attributes[name]) for name in sorted(attributes)),
        block_types=tuple(_nested_block(name, block_types[name]) for name in sorted(block_types)),
        description=doc.get("description", ""),
        deprecated=bool(doc.get("deprecated", False)),
    )


def _attribute(name: str, doc: dict[str, Any]) -> Attribute:
    nested = doc.get("nested_type")
    return Attribute(
        name=name,
        type=parse_type(doc["type"]) if "type" in doc else None,
        nested_type=_nested_attributes(name, nested) if nested is not None else None,
        required=bool(doc.get("required", False)),
        optional=bool(doc.get("optional", False)),
        computed=bool(doc.get("computed", False)),
        sensitive=bool(doc.get("sensitive", False)),
        description=doc.get("description", ""),
        deprecated=bool(doc.get("deprecated", False)),
        write_only=bool(doc.get("write_only", False)),
    )


def _nested_attributes(name: str, doc: dict[str, Any]) -> NestedAttributeObject:
    nesting = doc.get("nesting_mode", "single")
    if nesting not in ATTRIBUTE_NESTINGS:
        raise TypeSpecError(f'attribute "{name}" has an unknown nesting mode {nesting!r}')
    attributes = doc.get("attributes") or {}
    return NestedAttributeObject(
        attributes=tuple(_attribute(n, attributes[n]) for n in sorted(attributes)), nesting=nesting
    )


def _nested_block(name: str, doc: dict[str, Any]) -> NestedBlock:
    nesting = doc.get("nesting_mode", "list")
    if nesting not in BLOCK_NESTINGS:
        raise TypeSpecError(f'block type "{name}" has an unknown nesting mode {nesting!r}')
    return NestedBlock(
        type_name=name,
        block=block_from_json(doc.get("block", {})),
        nesting=nesting,
        min_items=int(doc.get("min_items", 0)),
        max_items=int(doc.get("max_items", 0)),
    )


def read_schema_document(executable: Path, source: str, cwd: Path) -> tuple[int, dict[str, Any]]:
    """Start the provider, read its schema, stop it: the protocol version and the schema as plain JSON
    data (``provider``, ``resource_schemas``, ``data_source_schemas``, ``functions``), which the engine
    caches. Diagnostics the provider reports are errors."""
    from adapters.plugin.client import PluginClient
    from adapters.plugin.outcome import raise_for

    with PluginClient.launch(str(executable), name=source, cwd=str(cwd)) as client:
        answer = client.get_provider_schema()
        protocol = client.protocol_version
    raise_for(answer.diagnostics, f"provider {source}")
    schema = {k: v for k, v in _plain(answer).items()
              if k in ("provider", "resource_schemas", "data_source_schemas", "functions") and v is not None}
    return protocol, schema


_FIELDS: dict[type, tuple[str, ...]] = {}


def _plain(value: Any) -> Any:
    """What ``dataclasses.asdict`` gives for a schema answer, without its deep copies.

    A large provider's schema is about a million small objects; ``asdict`` copies each leaf and
    looks every class's fields up again, which made this conversion cost as much as reading the
    schema from the provider. Tuples become lists, as they would in the JSON written from them.
    """
    cls = type(value)
    if value is None or cls in (str, int, float, bool):
        return value
    names = _FIELDS.get(cls)
    if names is None and dataclasses.is_dataclass(value):
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
