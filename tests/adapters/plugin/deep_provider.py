"""A provider process whose one resource type nests its blocks ``DEPTH`` deep, served by Python gRPC.

Run as a plugin executable (``write_plugin`` lays it out for ``ctl init -plugin-dir``), it speaks
go-plugin's handshake and protocol 6 without TLS (run ctl with ``CTL_PLUGIN_TLS=0``): its
``GetProviderSchema`` answer nests ``DEPTH`` list blocks, each costing two protobuf message levels,
so a client held to protobuf's default of 100 levels cannot read it. ``deep_thing`` lives in state
alone: its plan is the proposed state and its apply the planned state. Every other call gets an
empty (successful) answer.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from typing import Any

DEPTH = 50
TYPE = "deep_thing"
ADDRESS = ("registry.terraform.io", "ctltest", "deep", "1.0.0")


def schema_response(pb: Any) -> Any:
    response = pb.GetProviderSchema.Response()
    response.provider.block.SetInParent()
    block = response.resource_schemas[TYPE].block
    for level in range(DEPTH):
        nested = block.block_types.add()
        nested.type_name = f"level{level}"
        nested.nesting = pb.Schema.NestedBlock.LIST
        block = nested.block
    leaf = block.attributes.add()
    leaf.name = "leaf"
    leaf.type = b'"string"'
    leaf.optional = True
    return response


def serve() -> None:
    import msgpack

    from adapters.plugin.proto import tfplugin6_pb2 as pb

    def respond(method: str, request: Any, response: Any) -> None:
        if method == "PlanResourceChange":
            response.planned_state.CopyFrom(request.proposed_new_state)
        elif method == "ApplyResourceChange":
            response.new_state.CopyFrom(request.planned_state)
        elif method == "ReadResource":
            response.new_state.CopyFrom(request.current_state)
        elif method == "UpgradeResourceState":  # the state as stored, in the wire's msgpack
            response.upgraded_state.msgpack = msgpack.packb(json.loads(request.raw_state.json))

    run_server("deep", schema_response(pb), respond)


def run_server(name: str, schema: Any, respond: Callable[[str, Any, Any], None]) -> None:
    """Serve protocol 6 on a Unix socket after go-plugin's handshake line, until Shutdown.

    ``GetProviderSchema`` answers ``schema``; every other call gets an empty response that
    ``respond(method name, request, response)`` may fill in.
    """
    import grpc
    from google.protobuf import message_factory

    from adapters.plugin.proto import tfplugin6_pb2 as pb

    stopped = threading.Event()

    def answer(method: Any) -> Any:
        request_class = message_factory.GetMessageClass(method.input_type)
        response_class = message_factory.GetMessageClass(method.output_type)

        def handle(request: Any, _context: Any) -> Any:
            if method.name == "GetProviderSchema":
                return schema
            response = response_class()
            respond(method.name, request, response)
            return response

        return grpc.unary_unary_rpc_method_handler(
            handle, request_deserializer=request_class.FromString,
            response_serializer=lambda message: message.SerializeToString())

    service = pb.DESCRIPTOR.services_by_name["Provider"]
    handlers = {method.name: answer(method) for method in service.methods}
    controller = {"Shutdown": grpc.unary_unary_rpc_method_handler(
        lambda _request, _context: (stopped.set(), b"")[1],
        request_deserializer=None, response_serializer=None)}
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("tfplugin6.Provider", handlers),
                                     grpc.method_handlers_generic_handler("plugin.GRPCController", controller)))
    socket = Path(os.environ.get("PLUGIN_UNIX_SOCKET_DIR") or "/tmp") / f"{name}-{os.getpid()}.sock"
    server.add_insecure_port(f"unix:{socket}")
    server.start()
    print(f"1|6|unix|{socket}|grpc|", flush=True)
    stopped.wait()
    server.stop(None)


def write_plugin(plugin_dir: Path, os_arch: str, *, address: tuple[str, str, str, str] = ADDRESS,
                 module: str = "deep_provider") -> Path:
    """A ``tests/adapters/plugin`` provider module (this one by default) as
    ``terraform-provider-NAME`` under ``plugin_dir``, laid out as ``-plugin-dir`` wants."""
    host, namespace, name, version = address
    target = plugin_dir / host / namespace / name / version / os_arch / f"terraform-provider-{name}_v{version}"
    target.parent.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[3]
    target.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(root)!r})\n"
                      f"from tests.adapters.plugin.{module} import serve\nserve()\n")
    target.chmod(0o755)
    return target
