"""Seeds that are binary formats, built here from ctl's own encoders rather than kept as files.

A provider release zip, values as a provider encodes them (msgpack and JSON) and
``GetProviderSchema`` answers of both protocol versions: each is made fresh, small and valid, so the
damage the fuzzer does starts from what a real provider or registry would send.
"""

from __future__ import annotations

import functools
import io
import zipfile
from typing import Any

from vocab.values import Unknown

EXECUTABLE = "terraform-provider-random_v3.6.0_x5"


def provider_zip() -> bytes:
    """A release zip as HashiCorp builds one: one executable file, deflated, Unix mode 0755."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        info = zipfile.ZipInfo(EXECUTABLE, date_time=(2024, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 << 16)
        info.compress_type = zipfile.ZIP_DEFLATED
        zipped.writestr(info, b"#!/bin/sh\necho provider\n" * 8)
    return buffer.getvalue()


def provider_zips() -> tuple[bytes, ...]:
    """The release zip, and one holding a directory entry and a second file, so both shapes are damaged."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zipped:
        zipped.writestr(zipfile.ZipInfo("docs/"), b"")
        zipped.writestr("docs/README.md", b"provider\n")
        info = zipfile.ZipInfo(EXECUTABLE)
        info.external_attr = (0o100755 << 16)
        zipped.writestr(info, b"\x7fELF" + bytes(60))
    return provider_zip(), buffer.getvalue()


_VALUES: dict[str, Any] = {
    "object": {"id": "abc", "count": 3, "enabled": True, "tags": {"a": "x", "b": "y"}, "ports": [80, 443.5],
               "names": ["x", "y"], "extra": {"nested": [1, "two", None]}, "pair": ["p", 2],
               "rules": [{"cidr": "10.0.0.0/8", "port": 22}]},
    "dynamic": {"list": [1, 2, 3], "text": "hello", "flag": False},
    "set": [{"k": "a", "v": [1, 2]}, {"k": "b", "v": []}],
}


@functools.cache
def responses() -> dict[str, tuple[bytes, ...]]:
    """Seeds for each kind in ``targets.RESPONSE_KINDS``."""
    from adapters.plugin.cty_json import encode_json
    from adapters.plugin.msgpack_codec import encode
    from tests.fuzz.targets import _schemas

    seeds: dict[str, tuple[bytes, ...]] = {}
    for name, ty in _schemas().items():
        value = _VALUES[name]
        with_unknown = dict(value, id=Unknown()) if name == "object" else value
        seeds[f"msgpack-{name}"] = (encode(value, ty)[0], encode(with_unknown, ty)[0])
        seeds[f"json-{name}"] = (encode_json(value, ty),)
    seeds["schema.pb5"] = (_schema_response(5),)
    seeds["schema.pb6"] = (_schema_response(6),)
    return seeds


def _schema_response(protocol: int) -> bytes:
    """A ``GetProviderSchema`` answer with a provider block, a resource with nested blocks and types
    of every kind, and a data source (protocol 6 also with a nested attribute)."""
    from adapters.plugin.proto import tfplugin5_pb2, tfplugin6_pb2

    pb: Any = tfplugin5_pb2 if protocol == 5 else tfplugin6_pb2
    response = pb.GetProviderSchema.Response()
    response.provider.block.attributes.add(name="region", type=b'"string"', optional=True)
    resource = response.resource_schemas["random_thing"]
    resource.version = 1
    attrs = resource.block.attributes
    attrs.add(name="id", type=b'"string"', computed=True)
    attrs.add(name="keepers", type=b'["map","string"]', optional=True)
    attrs.add(name="values", type=b'["list",["object",{"a":"number","b":["set","bool"]}]]', optional=True)
    attrs.add(name="any", type=b'"dynamic"', optional=True, sensitive=True)
    nested = resource.block.block_types.add(type_name="rule", nesting=pb.Schema.NestedBlock.LIST, max_items=3)
    nested.block.attributes.add(name="port", type=b'"number"', required=True)
    if protocol == 6:
        nested_attr = attrs.add(name="settings", optional=True)
        nested_attr.nested_type.nesting = pb.Schema.Object.MAP
        nested_attr.nested_type.attributes.add(name="value", type=b'"string"', optional=True)
    data = response.data_source_schemas["random_data"]
    data.block.attributes.add(name="result", type=b'["tuple",["string","number"]]', computed=True)
    return bytes(response.SerializeToString())
