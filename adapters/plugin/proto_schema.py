"""Provider schemas out of protocol messages, as plain data.

The only place that reads ``Schema``, ``Function`` and capability messages. It produces the shape
``terraform providers schema -json`` prints (``block.attributes``, ``block_types`` with
``nesting_mode``, ``nested_type``, cty types as JSON values), so the result can be compared with
Terraform's own output and retargeted to a typed schema model by changing this module alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adapters.plugin.diagnostics import PluginDiagnostic, diagnostics_from_proto
from adapters.plugin.proto import tfplugin6_pb2
from vocab.types import TypeSpecError

if TYPE_CHECKING:
    from adapters.plugin.protocols import (
        AttributeMessage,
        BlockMessage,
        CapabilitiesMessage,
        FunctionMessage,
        NestedBlockMessage,
        ParameterMessage,
        ProviderSchemaResponse,
        SchemaMessage,
    )

_NESTING = {1: "single", 2: "list", 3: "set", 4: "map", 5: "group"}
_STRING_KIND = {0: "plain", 1: "markdown"}


@dataclass(frozen=True, slots=True)
class ProviderSchema:
    """Every schema a provider declares; each value a dict in Terraform's JSON schema shape."""

    provider: dict[str, Any]
    resource_schemas: dict[str, dict[str, Any]]
    data_source_schemas: dict[str, dict[str, Any]]
    ephemeral_resource_schemas: dict[str, dict[str, Any]] = field(default_factory=dict)
    functions: dict[str, dict[str, Any]] = field(default_factory=dict)
    provider_meta: dict[str, Any] | None = None
    server_capabilities: dict[str, bool] = field(default_factory=dict)
    diagnostics: list[PluginDiagnostic] = field(default_factory=list)


def _cty_type(raw: bytes) -> Any:
    """A type's JSON encoding as a value; bytes a provider sent that are not JSON are its error."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        shown = raw[:80].decode("utf-8", errors="replace")
        raise TypeSpecError(f"the provider's schema holds a type description that is not JSON "
                            f"({shown!r}: {exc})") from None


def _description(
    target: dict[str, Any], message: AttributeMessage | BlockMessage | FunctionMessage | ParameterMessage
) -> None:
    """Terraform prints ``description_kind`` on every attribute and block, described or not."""
    if message.description:
        target["description"] = message.description
    target["description_kind"] = _STRING_KIND.get(message.description_kind, "plain")


def attribute(message: AttributeMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if message.type:
        out["type"] = _cty_type(message.type)
    if isinstance(message, tfplugin6_pb2.Schema.Attribute) and message.HasField("nested_type"):
        nested = message.nested_type
        out["nested_type"] = {
            "attributes": {a.name: attribute(a) for a in nested.attributes},
            "nesting_mode": _NESTING.get(nested.nesting, "single"),
        }
    _description(out, message)
    for flag in ("required", "optional", "computed", "sensitive", "deprecated", "write_only"):
        if getattr(message, flag):
            out[flag] = True
    return out


def block(message: BlockMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if message.attributes:
        out["attributes"] = {a.name: attribute(a) for a in message.attributes}
    if message.block_types:
        out["block_types"] = {b.type_name: nested_block(b) for b in message.block_types}
    _description(out, message)
    if message.deprecated:
        out["deprecated"] = True
    return out


def nested_block(message: NestedBlockMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"nesting_mode": _NESTING.get(message.nesting, "single"), "block": block(message.block)}
    if message.min_items:
        out["min_items"] = message.min_items
    if message.max_items:
        out["max_items"] = message.max_items
    return out


def schema(message: SchemaMessage) -> dict[str, Any]:
    """One ``Schema`` message: ``{"version": N, "block": {...}}``."""
    return {"version": message.version, "block": block(message.block)}


def _parameter(message: ParameterMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"name": message.name, "type": _cty_type(message.type)}
    _description(out, message)
    if message.allow_null_value:
        out["is_nullable"] = True
    if message.allow_unknown_values:
        out["allow_unknown_values"] = True
    return out


def function(message: FunctionMessage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "parameters": [_parameter(p) for p in message.parameters],
        # ``return`` is a Python keyword, so the field is reachable only through getattr.
        "return_type": _cty_type(getattr(message, "return").type),
    }
    if message.HasField("variadic_parameter"):
        out["variadic_parameter"] = _parameter(message.variadic_parameter)
    if message.summary:
        out["summary"] = message.summary
    _description(out, message)
    if message.deprecation_message:
        out["deprecation_message"] = message.deprecation_message
    return out


def capabilities(message: CapabilitiesMessage) -> dict[str, bool]:
    return {f.name: bool(getattr(message, f.name)) for f in message.DESCRIPTOR.fields}


def provider_schema(response: ProviderSchemaResponse) -> ProviderSchema:
    """A ``GetProviderSchema.Response`` of either protocol version."""
    return ProviderSchema(
        provider=schema(response.provider),
        resource_schemas={name: schema(s) for name, s in sorted(response.resource_schemas.items())},
        data_source_schemas={name: schema(s) for name, s in sorted(response.data_source_schemas.items())},
        ephemeral_resource_schemas={
            name: schema(s) for name, s in sorted(response.ephemeral_resource_schemas.items())
        },
        functions={name: function(f) for name, f in sorted(response.functions.items())},
        provider_meta=schema(response.provider_meta) if response.HasField("provider_meta") else None,
        server_capabilities=capabilities(response.server_capabilities),
        diagnostics=diagnostics_from_proto(response.diagnostics),
    )
