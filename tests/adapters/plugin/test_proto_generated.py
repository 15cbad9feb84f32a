"""The committed protocol message classes are exactly what `make proto` generates from the .proto files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parents[3] / "adapters" / "plugin" / "proto"


def test_generated_modules_are_current(tmp_path: Path) -> None:
    protos = sorted(PROTO_DIR.glob("*.proto"))
    assert [p.name for p in protos] == ["plugin.proto", "tfplugin5.proto", "tfplugin6.proto"]
    result = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}", f"--python_out={tmp_path}", f"--pyi_out={tmp_path}",
         *[str(p) for p in protos]],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    for proto in protos:
        for name in (proto.stem + "_pb2.py", proto.stem + "_pb2.pyi"):
            fresh = (tmp_path / name).read_text()
            assert (PROTO_DIR / name).read_text() == fresh, f"{name} is stale: run `make proto` and commit it"


def test_wire_names_match_the_protocol() -> None:
    """Spot checks of facts the wire depends on: package, RPC names and field numbers."""
    from adapters.plugin.proto import plugin_pb2, tfplugin5_pb2, tfplugin6_pb2

    v5 = tfplugin5_pb2.DESCRIPTOR.services_by_name["Provider"]
    v6 = tfplugin6_pb2.DESCRIPTOR.services_by_name["Provider"]
    assert {"GetSchema", "PrepareProviderConfig", "Configure", "Stop", "GetFunctions"} <= set(v5.methods_by_name)
    assert {"GetProviderSchema", "ValidateProviderConfig", "ConfigureProvider", "StopProvider",
            "MoveResourceState", "GetMetadata", "CallFunction"} <= set(v6.methods_by_name)
    plan6 = tfplugin6_pb2.PlanResourceChange.Response.DESCRIPTOR.fields_by_name
    assert plan6["requires_replace"].number == 2 and plan6["legacy_type_system"].number == 5
    attr5 = tfplugin5_pb2.Schema.Attribute.DESCRIPTOR.fields_by_name
    attr6 = tfplugin6_pb2.Schema.Attribute.DESCRIPTOR.fields_by_name
    assert attr5["write_only"].number == 10 and attr6["write_only"].number == 11
    assert attr6["nested_type"].number == 10
    assert plugin_pb2.DESCRIPTOR.services_by_name["GRPCController"].full_name == "plugin.GRPCController"
