"""Where protocol versions 5 and 6 differ for a client: RPC and message names, nothing else.

Both versions carry the same fields under the same names for everything ctl calls, so the client
builds requests and reads responses once; this table only says which RPC to call and which
generated message class holds its Request and Response.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TypeAlias

from google.protobuf.message import Message

from adapters.plugin.proto import tfplugin5_pb2, tfplugin6_pb2

# Logical operation → (RPC name, message name) where version 5 names them differently.
_V5_NAMES = {
    "GetProviderSchema": ("GetSchema", "GetProviderSchema"),
    "ValidateProviderConfig": ("PrepareProviderConfig", "PrepareProviderConfig"),
    "ValidateResourceConfig": ("ValidateResourceTypeConfig", "ValidateResourceTypeConfig"),
    "ValidateDataResourceConfig": ("ValidateDataSourceConfig", "ValidateDataSourceConfig"),
    "ConfigureProvider": ("Configure", "Configure"),
    "StopProvider": ("Stop", "Stop"),
}


@dataclass(frozen=True, slots=True)
class ProtocolBinding:
    version: int
    pb: ModuleType

    def rpc(self, operation: str) -> tuple[str, type[Message], type[Message]]:
        """Full method path, request class and response class of one operation."""
        rpc_name, message_name = (
            _V5_NAMES.get(operation, (operation, operation)) if self.version == 5 else (operation, operation)
        )
        holder = getattr(self.pb, message_name)
        return f"/{self.pb.DESCRIPTOR.package}.Provider/{rpc_name}", holder.Request, holder.Response


BINDINGS = {5: ProtocolBinding(5, tfplugin5_pb2), 6: ProtocolBinding(6, tfplugin6_pb2)}

# The messages ctl reads the same way in either version, each as one type for the modules that
# read them (diagnostics, proto_schema).
DiagnosticMessage: TypeAlias = "tfplugin5_pb2.Diagnostic | tfplugin6_pb2.Diagnostic"
AttributePathMessage: TypeAlias = "tfplugin5_pb2.AttributePath | tfplugin6_pb2.AttributePath"
SchemaMessage: TypeAlias = "tfplugin5_pb2.Schema | tfplugin6_pb2.Schema"
BlockMessage: TypeAlias = "tfplugin5_pb2.Schema.Block | tfplugin6_pb2.Schema.Block"
AttributeMessage: TypeAlias = "tfplugin5_pb2.Schema.Attribute | tfplugin6_pb2.Schema.Attribute"
NestedBlockMessage: TypeAlias = "tfplugin5_pb2.Schema.NestedBlock | tfplugin6_pb2.Schema.NestedBlock"
FunctionMessage: TypeAlias = "tfplugin5_pb2.Function | tfplugin6_pb2.Function"
ParameterMessage: TypeAlias = "tfplugin5_pb2.Function.Parameter | tfplugin6_pb2.Function.Parameter"
CapabilitiesMessage: TypeAlias = "tfplugin5_pb2.ServerCapabilities | tfplugin6_pb2.ServerCapabilities"
ProviderSchemaResponse: TypeAlias = (
    "tfplugin5_pb2.GetProviderSchema.Response | tfplugin6_pb2.GetProviderSchema.Response"
)
