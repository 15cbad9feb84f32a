"""A provider schema whose blocks nest 50 deep is read, as Terraform reads it.

Each nested block costs two protobuf message levels, so such a schema passes the Python protobuf
runtime's default limit of 100 and used to end in "Exception deserializing response". The
provider side here is a real gRPC server on loopback answering ``GetProviderSchema`` with the
serialized response, for both protocol versions; the client is ctl's own. Then the same schema
from a provider process ctl starts itself, through init, validate, apply and plan.
"""

from __future__ import annotations

import platform
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from adapters.plugin.client import PluginClient
from adapters.plugin.proto import tfplugin5_pb2, tfplugin6_pb2
from tests.adapters.plugin import deep_provider
from tests.e2e.helpers import Project

DEPTH = deep_provider.DEPTH
_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def _deep_response(pb: Any) -> bytes:
    response = pb.GetProviderSchema.Response()
    block = response.resource_schemas["deep_thing"].block
    for level in range(DEPTH):
        nested = block.block_types.add()
        nested.type_name = f"level{level}"
        nested.nesting = pb.Schema.NestedBlock.LIST
        block = nested.block
    attribute = block.attributes.add()
    attribute.name = "leaf"
    attribute.type = b'"string"'
    attribute.optional = True
    return response.SerializeToString()


@dataclass
class _Connected:
    """What the client needs of a started provider: its channel and protocol version."""

    channel: grpc.Channel
    protocol_version: int
    exit_status: int | None = None


@pytest.fixture(params=[5, 6])
def client(request: pytest.FixtureRequest) -> Iterator[PluginClient]:
    version = request.param
    pb = tfplugin5_pb2 if version == 5 else tfplugin6_pb2
    answer = _deep_response(pb)
    service = "tfplugin5.Provider" if version == 5 else "tfplugin6.Provider"
    handler = grpc.method_handlers_generic_handler(service, {
        "GetSchema" if version == 5 else "GetProviderSchema": grpc.unary_unary_rpc_method_handler(
            lambda _request, _context: answer, request_deserializer=None, response_serializer=None),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield PluginClient(_Connected(channel, version))
    finally:
        channel.close()
        server.stop(None)


def test_schema_nested_50_blocks_deep_is_read(client: PluginClient) -> None:
    schema = client.get_provider_schema()
    block = schema.resource_schemas["deep_thing"]["block"]
    for level in range(DEPTH):
        assert list(block["block_types"]) == [f"level{level}"]
        block = block["block_types"][f"level{level}"]["block"]
    assert list(block["attributes"]) == ["leaf"]


def _nested(depth: int, leaf: str) -> str:
    body = f'leaf = "{leaf}"'
    for level in reversed(range(depth)):
        body = f"level{level} {{\n{body}\n}}"
    return body


def test_ctl_plans_and_applies_with_a_provider_whose_schema_nests_50_deep(tmp_path: Path) -> None:
    """The whole way a user meets such a provider: init, validate, plan and apply through a provider
    process (tests/adapters/plugin/deep_provider.py), the 50-deep value kept in state."""
    plugins = tmp_path / "plugins"
    deep_provider.write_plugin(plugins, f"{platform.system().lower()}_{_ARCH.get(platform.machine(), platform.machine())}")
    (tmp_path / "cfg").mkdir()
    project = Project(tmp_path / "cfg")
    project.write('terraform {\n  required_providers {\n    deep = { source = "ctltest/deep" }\n  }\n}\n'
                  f'resource "deep_thing" "a" {{\n{_nested(deep_provider.DEPTH, "bottom")}\n}}\n')
    env = {"CTL_PLUGIN_TLS": "0"}
    project.ok("init", "-plugin-dir", str(plugins), env=env)
    assert "Success" in project.ok("validate", env=env).stdout
    project.ok("apply", "-auto-approve", env=env)
    value = project.state()["resources"][0]["instances"][0]["attributes"]
    for level in range(DEPTH):
        value = value[f"level{level}"][0]
    assert value == {"leaf": "bottom"}
    assert "No changes" in project.ok("plan", env=env).stdout
