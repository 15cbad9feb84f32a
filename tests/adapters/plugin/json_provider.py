"""A provider process that answers every value in JSON, as the plugin protocol allows.

``DynamicValue`` has two fields, ``msgpack`` and ``json``; Terraform reads whichever a provider
set, with the schema's type guiding JSON. This provider (protocol 6, Python gRPC, go-plugin's
handshake, no TLS: run ctl with ``CTL_PLUGIN_TLS=0``) reads the msgpack ctl sends and answers in
JSON only: its upgraded state is the stored JSON handed back as it came (what made an object look
deleted when only msgpack was read), its numbers are JSON numbers, its set members come in an order
of its own (descending), and a destroy answers ``null``. JSON has no unknowns, so the computed
``id`` is known at plan: ``thing-NAME``. ``jsonans_thing`` lives in state alone; importing id
``thing-NAME`` imports an object named NAME; the data source of the same name echoes its
configuration with that id. Its function ``double`` answers twice its number.
"""

from __future__ import annotations

import json
from typing import Any

from tests.adapters.plugin.deep_provider import run_server

TYPE = "jsonans_thing"
ADDRESS = ("registry.terraform.io", "ctltest", "jsonans", "1.0.0")
ATTRIBUTES = {  # name: (type JSON, required, computed)
    "id": (b'"string"', False, True),
    "name": (b'"string"', True, False),
    "size": (b'"number"', False, False),
    "tags": (b'["set","string"]', False, False),
    "labels": (b'["map","string"]', False, False),
}


def schema_response(pb: Any) -> Any:
    response = pb.GetProviderSchema.Response()
    response.provider.block.SetInParent()
    for schemas in (response.resource_schemas, response.data_source_schemas):
        block = schemas[TYPE].block
        for name, (type_json, required, computed) in ATTRIBUTES.items():
            attribute = block.attributes.add()
            attribute.name, attribute.type = name, type_json
            attribute.required, attribute.computed = required, computed
            attribute.optional = not required and not computed
    double = response.functions["double"]
    parameter = double.parameters.add()
    parameter.name, parameter.type = "number", b'"number"'
    double.summary = "Twice the number"
    getattr(double, "return").type = b'"number"'
    return response


def _in_json(value: dict[str, Any] | None) -> bytes:
    """The object in cty's JSON shape: every attribute, set members in this provider's own order."""
    if value is None:
        return b"null"
    out = {name: value.get(name) for name in ATTRIBUTES}
    if out["tags"] is not None:
        out["tags"] = sorted(out["tags"], reverse=True)
    return json.dumps(out).encode()


def _known(value: dict[str, Any]) -> dict[str, Any]:
    """The proposed object with its id known (``thing-NAME``), as JSON can only say a known value."""
    return {**value, "id": value.get("id") if isinstance(value.get("id"), str) else f"thing-{value['name']}"}


def serve() -> None:
    import msgpack

    from adapters.plugin.proto import tfplugin6_pb2 as pb

    def read(data: bytes) -> Any:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)

    def respond(method: str, request: Any, response: Any) -> None:
        if method == "UpgradeResourceState":
            response.upgraded_state.json = request.raw_state.json
        elif method == "ReadResource":
            response.new_state.json = _in_json(read(request.current_state.msgpack))
        elif method == "PlanResourceChange":
            proposed = read(request.proposed_new_state.msgpack)
            response.planned_state.json = _in_json(None if proposed is None else _known(proposed))
        elif method == "ApplyResourceChange":
            response.new_state.json = _in_json(read(request.planned_state.msgpack))
        elif method == "ImportResourceState":
            imported = response.imported_resources.add()
            imported.type_name = TYPE
            imported.state.json = _in_json({"id": request.id, "name": request.id.removeprefix("thing-")})
        elif method == "ReadDataSource":
            response.state.json = _in_json(_known(read(request.config.msgpack)))
        elif method == "CallFunction":  # double: its number, twice, as a JSON number
            response.result.json = json.dumps(2 * read(request.arguments[0].msgpack)).encode()

    run_server("jsonans", schema_response(pb), respond)
