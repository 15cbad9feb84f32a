"""PluginClient against the real test providers: fwtest (protocol 6) and sdktest (protocol 5).

Values are built by hand with msgpack (objects as maps with every attribute, as cty encodes them).
The providers keep each object as ROOT/ID.json, so a create, an import or a destroy is checked on
disk, where a user would see it.
"""

from __future__ import annotations

import os
import signal
import statistics
import threading
import time
from pathlib import Path

import msgpack
import pytest

from adapters.plugin.client import PluginClient
from adapters.plugin.diagnostics import AttributeStep, path_text
from tests.adapters.plugin.conftest import config_object, pack, unpack
from vocab.provider_errors import PluginCallError

PROVIDERS = [("fwtest", "fwtest_thing", 6), ("sdktest", "sdktest_record", 5)]


@pytest.fixture(params=PROVIDERS, ids=[p[0] for p in PROVIDERS])
def configured(request, plugin_binaries, tmp_path, no_leftover_children):
    """(client, resource type, object directory): a started, configured provider."""
    provider, type_name, _ = request.param
    root = tmp_path / "objects"
    root.mkdir()
    with PluginClient.launch(str(plugin_binaries[provider])) as client:
        assert client.configure_provider(pack({"root": str(root)})) == []
        yield client, type_name, root
    no_leftover_children()


def create(client: PluginClient, type_name: str, **values):
    schema = client.get_provider_schema().resource_schemas[type_name]
    config = pack(config_object(schema, **values))
    plan = client.plan_resource_change(type_name, None, config, config)
    assert plan.diagnostics == []
    applied = client.apply_resource_change(type_name, None, plan.planned_state.msgpack, config, plan.planned_private)
    assert applied.diagnostics == []
    return schema, applied


@pytest.mark.parametrize(("provider", "type_name", "version"), PROVIDERS)
def test_schema_of_each_protocol(plugin_binaries, no_leftover_children, provider, type_name, version) -> None:
    with PluginClient.launch(str(plugin_binaries[provider])) as client:
        assert client.protocol_version == version
        schema = client.get_provider_schema()
    assert schema.diagnostics == []
    assert list(schema.resource_schemas) == [type_name]
    assert list(schema.data_source_schemas) == [type_name]
    assert "root" in schema.provider["block"]["attributes"]
    thing = schema.resource_schemas[type_name]
    assert thing["version"] == 1
    attrs = thing["block"]["attributes"]
    assert attrs["name"]["type"] == "string" and attrs["name"]["required"] is True
    assert attrs["tags"]["type"] == ["map", "string"]
    assert attrs["ports"]["type"] == ["list", "number"]
    assert attrs["secret"]["sensitive"] is True and attrs["created_at"]["computed"] is True
    assert attrs["hash"]["description"] == "Digest of the stored arguments."
    blocks = thing["block"]["block_types"]
    assert blocks["rule"]["nesting_mode"] == "list"
    assert blocks["member"]["nesting_mode"] == "set"
    assert blocks["rule"]["block"]["attributes"]["port"] == {"type": "number", "required": True,
                                                              "description_kind": "plain"}
    if version == 6:
        assert blocks["owner"]["nesting_mode"] == "single"
        assert attrs["settings"]["nested_type"]["nesting_mode"] == "single"
        assert attrs["settings"]["nested_type"]["attributes"]["level"] == {"type": "number", "optional": True,
                                                                         "description_kind": "plain"}
    else:
        assert blocks["owner"] == {**blocks["owner"], "nesting_mode": "list", "max_items": 1}
    no_leftover_children()


def test_create_read_import_data_source_replace_and_destroy(configured) -> None:
    client, type_name, root = configured
    provider_config = client.validate_provider_config(pack({"root": str(root)}))
    assert provider_config.diagnostics == []
    schema = client.get_provider_schema().resource_schemas[type_name]
    config = pack(config_object(schema, name="alpha", size=2.5, tags={"env": "dev"}))
    assert client.validate_resource_config(type_name, config) == []

    plan = client.plan_resource_change(type_name, None, config, config)
    assert plan.diagnostics == []  # (SDKv2 lists its ForceNew attributes even for a create)
    planned = unpack(plan.planned_state)
    assert planned["name"] == "alpha" and planned["mode"] == "standard"  # the provider's default
    assert isinstance(planned["id"], msgpack.ExtType)  # unknown until applied
    assert isinstance(planned["created_at"], msgpack.ExtType)

    applied = client.apply_resource_change(type_name, None, plan.planned_state.msgpack, config, plan.planned_private)
    assert applied.diagnostics == []
    state = unpack(applied.new_state)
    object_id = state["id"]
    assert state["name"] == "alpha" and state["tags"] == {"env": "dev"} and state["size"] == 2.5
    assert (root / f"{object_id}.json").exists()

    read = client.read_resource(type_name, applied.new_state.msgpack, applied.private)
    assert read.diagnostics == []
    # (SDKv2's legacy type system may read nulls back as zero values: compare what was set.)
    assert {k: unpack(read.state)[k] for k in ("id", "name", "size", "tags")} == {
        "id": object_id, "name": "alpha", "size": 2.5, "tags": {"env": "dev"}
    }

    imported = client.import_resource_state(type_name, object_id)
    assert imported.diagnostics == [] and [r.type_name for r in imported.resources] == [type_name]
    refreshed = client.read_resource(type_name, imported.resources[0].state.msgpack, imported.resources[0].private)
    assert unpack(refreshed.state)["name"] == "alpha"

    data_schema = client.get_provider_schema().data_source_schemas[type_name]
    data_config = pack(config_object(data_schema, name="alpha"))
    assert client.validate_data_resource_config(type_name, data_config) == []
    looked_up = client.read_data_source(type_name, data_config)
    assert looked_up.diagnostics == []
    assert unpack(looked_up.state)["id"] == object_id and unpack(looked_up.state)["size"] == 2.5

    renamed = pack({**state, "name": "beta"})
    renamed_config = pack(config_object(schema, name="beta", size=2.5, tags={"env": "dev"}))
    replace = client.plan_resource_change(type_name, applied.new_state.msgpack, renamed, renamed_config, applied.private)
    assert replace.diagnostics == []
    assert "name" in [path_text(p) for p in replace.requires_replace]

    destroyed = client.apply_resource_change(type_name, applied.new_state.msgpack, None, None, applied.private)
    assert destroyed.diagnostics == [] and destroyed.new_state is None
    assert not (root / f"{object_id}.json").exists()
    gone = client.read_resource(type_name, applied.new_state.msgpack, applied.private)
    assert gone.state is None  # removed outside: the provider reports it vanished


def test_invalid_value_gives_a_diagnostic_with_its_path(configured) -> None:
    client, type_name, _ = configured
    schema = client.get_provider_schema().resource_schemas[type_name]
    diagnostics = client.validate_resource_config(type_name, pack(config_object(schema, name="Not Valid!")))
    assert [d.severity for d in diagnostics] == ["error"]
    assert diagnostics[0].path == (AttributeStep("name"),)
    assert "a-z0-9-" in diagnostics[0].summary + diagnostics[0].detail


def test_provider_configuration_errors_come_back_as_diagnostics(plugin_binaries, tmp_path) -> None:
    with PluginClient.launch(str(plugin_binaries["fwtest"])) as client:
        diagnostics = client.configure_provider(pack({"root": ""}))
    assert [(d.severity, d.path) for d in diagnostics] == [("error", (AttributeStep("root"),))]


def test_upgrade_state_from_schema_version_0(configured) -> None:
    client, type_name, _ = configured
    schema = client.get_provider_schema().resource_schemas[type_name]
    old = config_object(schema, id="abc123", name="old", size="7.5", created_at="2020-01-01T00:00:00Z", hash="x")
    old = {k: v for k, v in old.items() if v not in ([], None)}  # stored state omits empties
    upgraded = client.upgrade_resource_state(type_name, 0, old)
    assert upgraded.diagnostics == []
    value = unpack(upgraded.state)
    assert value["size"] == 7.5 and value["name"] == "old" and value["id"] == "abc123"


def test_provider_functions(plugin_binaries, no_leftover_children) -> None:
    with PluginClient.launch(str(plugin_binaries["fwtest"])) as client:
        functions, diagnostics = client.get_functions()
        assert diagnostics == [] and functions["reverse"]["return_type"] == "string"
        result = client.call_function("reverse", [pack("stressed")])
        assert result.error is None and unpack(result.result) == "desserts"
        assert client.get_metadata() is not None
        assert "fwtest_thing" in client.get_metadata().resources
    with PluginClient.launch(str(plugin_binaries["sdktest"])) as client:
        assert client.get_functions() == ({}, [])
    no_leftover_children()


def test_stop_provider_and_calls_after_a_crash(configured) -> None:
    client, _type_name, _ = configured
    assert client.stop_provider() == ""
    os.kill(client.process.pid, signal.SIGKILL)
    client.process.wait_exit(5)
    with pytest.raises(PluginCallError) as err:
        client.get_provider_schema()
    assert "exited (status -9)" in err.value.summary and "crashed" in err.value.hint


def test_many_threads_share_one_client(configured) -> None:
    client, type_name, _ = configured
    schema = client.get_provider_schema().resource_schemas[type_name]
    errors: list[BaseException] = []

    def plan_many(worker: int) -> None:
        try:
            for n in range(15):
                config = pack(config_object(schema, name=f"w{worker}-{n}"))
                plan = client.plan_resource_change(type_name, None, config, config)
                assert unpack(plan.planned_state)["name"] == f"w{worker}-{n}"
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=plan_many, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize(("provider", "type_name", "version"), PROVIDERS)
def test_start_and_call_latency(plugin_binaries, tmp_path, capsys, provider, type_name, version) -> None:
    """Measured: start + schema, and one small PlanResourceChange (reported with ``-s``)."""
    started = time.perf_counter()
    with PluginClient.launch(str(plugin_binaries[provider])) as client:
        schema = client.get_provider_schema().resource_schemas[type_name]
        start_ms = (time.perf_counter() - started) * 1000
        client.configure_provider(pack({"root": str(tmp_path)}))
        config = pack(config_object(schema, name="timed"))
        samples = []
        for _ in range(200):
            t = time.perf_counter()
            client.plan_resource_change(type_name, None, config, config)
            samples.append((time.perf_counter() - t) * 1e6)
    median = statistics.median(samples)
    with capsys.disabled():
        print(f"\n{provider} (protocol {version}): start + schema {start_ms:.0f} ms; "
              f"PlanResourceChange median {median:.0f} µs, p90 {statistics.quantiles(samples, n=10)[-1]:.0f} µs")
    assert start_ms < 5000 and median < 50_000


def test_paths_print_as_written() -> None:
    from adapters.plugin.diagnostics import KeyStep

    path = (AttributeStep("rule"), KeyStep(0), AttributeStep("port"), AttributeStep("tags"), KeyStep("env"))
    assert path_text(path) == 'rule[0].port.tags["env"]'


def test_a_closed_client_says_so(plugin_binaries) -> None:
    client = PluginClient.launch(str(plugin_binaries["fwtest"]))
    client.close()
    with pytest.raises(PluginCallError, match="already closed"):
        client.stop_provider()
    assert not Path(f"/proc/{client.process.pid}").exists()
