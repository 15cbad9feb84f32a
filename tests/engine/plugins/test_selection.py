"""Native adapter or plugin: one implementation per provider, chosen by ``ctl init`` and recorded.

A provider whose native adapter lacks a type or an argument the configuration uses goes to its
plugin as a whole; one that the native adapter covers goes to the plugin when one is at hand
(unless ``-native=true``), else stays native. A recorded plugin replaces the native adapter in
every later command's registry: no type of that provider is served natively any more.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.plugin.bridge import PluginProvider
from adapters.registry import Registry
from engine.config.loader import load_config
from engine.install.requirements import Requirement, requirements
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry, PluginRecord, read_record, write_record
from engine.plugins.registry import check_requirements, registry_for
from engine.plugins.selection import native_covers, offered_by, wants_plugin
from engine.validate import validate
from vocab.errors import CtlError
from vocab.providers import host_os_arch

MakeConfig = Callable[[dict[str, str]], Path]

ROLE = """
resource "aws_iam_role" "plain" {
  name               = "plain"
  assume_role_policy = "{}"
}
resource "aws_iam_role" "inline" {
  name               = "inline"
  assume_role_policy = "{}"
  %s
}
resource "aws_sqs_queue" "q" {
  name = "q"
}
"""
INLINE_BLOCK = 'inline_policy {\n    name   = "p"\n    policy = "{}"\n  }'
DYNAMIC_BLOCK = 'dynamic "inline_policy" {\n    for_each = []\n    content {}\n  }'


def _req(root: Path, name: str) -> Requirement:
    module, diags = load_config(root)
    assert not diags.has_errors
    return next(r for r in requirements(module) if r.local_name == name)


@pytest.mark.parametrize("block", [INLINE_BLOCK, DYNAMIC_BLOCK], ids=["block", "dynamic"])
def test_an_argument_the_native_adapter_lacks_sends_the_whole_provider_to_the_plugin(
        make_config: MakeConfig, block: str) -> None:
    req = _req(make_config({"main.tf": ROLE % block}), "aws")
    native = Registry.discover()
    assert not native_covers(req, native)
    for switch in (True, None, False):  # nothing else could serve it, whatever the switch says
        assert wants_plugin(req, native, switch, at_hand=False)


def test_a_type_the_native_adapter_lacks_sends_the_whole_provider_to_the_plugin(make_config: MakeConfig) -> None:
    req = _req(make_config({"main.tf": 'resource "random_string" "s" {\n  length = 4\n}\n'
                                       'resource "random_pet" "p" {}\n'}), "random")
    assert not native_covers(req, Registry.discover())
    assert wants_plugin(req, Registry.discover(), True, at_hand=False)


def test_a_covered_provider_is_native_unless_a_plugin_is_at_hand_or_asked_for(make_config: MakeConfig) -> None:
    req = _req(make_config({"main.tf": ROLE % ""}), "aws")
    native = Registry.discover()
    assert native_covers(req, native)
    assert not wants_plugin(req, native, None, at_hand=False)  # the zero-install default
    assert wants_plugin(req, native, None, at_hand=True)  # a plugin directory holds it
    assert not wants_plugin(req, native, True, at_hand=True)  # -native=true
    assert wants_plugin(req, native, False, at_hand=False)  # -native=false


def test_a_provider_from_another_source_is_never_the_native_adapters(make_config: MakeConfig) -> None:
    config = ('terraform {\n  required_providers {\n    random = { source = "example.com/acme/random" }\n  }\n}\n'
              'resource "random_string" "s" {\n  length = 4\n}\n')
    req = _req(make_config({"main.tf": config}), "random")
    assert not native_covers(req, Registry.discover())


def _mirror(root: Path, version: str) -> Path:
    folder = root / "mirror" / "registry.terraform.io" / "hashicorp" / "random"
    folder.mkdir(parents=True)
    (folder / f"terraform-provider-random_{version}_{host_os_arch()}.zip").write_bytes(b"")
    return root / "mirror"


@pytest.mark.parametrize(("constraint", "offered"), [("", True), ("~> 3.0", True), ("~> 2.0", False)])
def test_a_plugin_directory_offers_a_provider_only_in_a_version_the_constraints_allow(
        make_config: MakeConfig, constraint: str, offered: bool) -> None:
    version = f', version = "{constraint}"' if constraint else ""
    config = ('terraform {\n  required_providers {\n    random = { source = "hashicorp/random"' + version
              + " }\n  }\n}\n" + 'resource "random_string" "s" {\n  length = 4\n}\n')
    root = make_config({"main.tf": config})
    req = _req(root, "random")
    mirror = _mirror(root, "3.9.0")
    assert offered_by([str(mirror)], req) is offered
    assert not offered_by([str(root / "elsewhere")], req)


def test_validate_says_why_the_argument_is_refused_and_what_to_do(make_config: MakeConfig) -> None:
    loaded = validate(make_config({"main.tf": ROLE % INLINE_BLOCK}), environ={})
    errors = [d for d in loaded.diags.items if d.severity == "error"]
    assert [(str(d.range), d.summary) for d in errors] == [
        ("main.tf:8:3", "Invalid Configuration for Read-Only Attribute")]
    assert "native adapter for aws_iam_role does not have it" in errors[0].hint
    assert "ctl init" in errors[0].hint


def _aws_schema(resource_types: list[str]) -> dict[str, object]:
    block = {"attributes": {"id": {"type": "string", "computed": True},
                            "name": {"type": "string", "optional": True, "description": "The role's name."}}}
    return {"provider": {"version": 0, "block": {}},
            "resource_schemas": {name: {"version": 1, "block": block} for name in resource_types}}


def _record_plugin(root: Path, resource_types: list[str], *, cache_format: int | None = None) -> PluginEntry:
    """A recorded aws plugin whose cached schema has ``resource_types`` (the binary is never started);
    ``cache_format`` 2 writes the entry as earlier versions did, every type's schema decoded."""
    binary = root / "terraform-provider-aws"
    binary.write_bytes(b"#!/bin/sh\nexit 1\n")
    sha = schema_cache.sha256_of(binary)
    schema = _aws_schema(resource_types)
    if cache_format is None:
        schema_cache.write(root, sha, 5, schema, "registry.terraform.io/hashicorp/aws")
    else:
        folder = root / schema_cache.SCHEMA_DIR
        folder.mkdir(parents=True)
        (folder / f"{sha}.json").write_text(json.dumps({"format": cache_format, "protocol": 5, "schema": schema}))
    info = binary.stat()
    entry = PluginEntry("aws", "registry.terraform.io/hashicorp/aws", "5.45.0", "", str(binary), sha,
                        info.st_size, info.st_mtime_ns, 5)
    write_record(root, PluginRecord([], None, [entry]))
    return entry


def test_a_recorded_plugin_serves_every_type_of_its_provider_and_the_native_adapter_none(
        make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    _record_plugin(root, ["aws_iam_role", "aws_vpc"])
    registry = registry_for(root)
    provider = registry.provider("aws")
    assert isinstance(provider, PluginProvider)
    assert sorted(provider.resources) == ["aws_iam_role", "aws_vpc"] and not provider.data_sources
    assert registry.resource_type("aws_iam_role") is provider.resources["aws_iam_role"]
    # Types the plugin does not have are not served natively behind its back: unsupported, as under Terraform.
    assert registry.resource_type("aws_sqs_queue") is None
    assert registry.resource_type("aws_s3_bucket", "data") is None
    assert registry.resource_type("random_string") is not None  # other providers keep their native adapters
    check_requirements(root, load_config(root)[0])


@pytest.mark.parametrize("cache_format", [None, 2], ids=["current", "format 2"])
def test_a_cached_type_is_built_from_its_own_schema_and_the_whole_schema_reads_back(
        make_config: MakeConfig, cache_format: int | None) -> None:
    root = make_config({"main.tf": ROLE % ""})
    entry = _record_plugin(root, ["aws_iam_role", "aws_vpc"], cache_format=cache_format)
    doc = schema_cache.cached(root, entry.sha256)
    assert doc is not None
    if cache_format is None:  # each type held as its own JSON text, decoded when the type is built
        assert all(isinstance(text, str) for text in doc["schema"]["resource_schemas"].values())
    assert schema_cache.expanded(doc["schema"]) == _aws_schema(["aws_iam_role", "aws_vpc"])
    role = registry_for(root).resource_type("aws_iam_role")
    assert role is not None and role.schema_version == 1
    assert role.block is not None and {a.name for a in role.block.attributes} == {"id", "name"}


@pytest.mark.parametrize("cached", [False, True], ids=["new binary", "schema cached"])
def test_init_selects_a_plugin_without_starting_it(make_config: MakeConfig, cached: bool) -> None:
    """As Terraform's init: the schema is left to the first command that needs it. The protocol is
    recorded only when a schema cached for this very binary says it."""
    from engine.install.installer import Installed
    from engine.plugins.selection import select
    from vocab.providers import ProviderSource
    from vocab.versions import Version

    root = make_config({"main.tf": ROLE % ""})
    binary = root / "terraform-provider-aws"
    binary.write_bytes(b"#!/bin/sh\nexit 1\n")  # a start to read the schema would fail the selection
    binary.chmod(0o755)
    sha = schema_cache.sha256_of(binary)
    if cached:
        schema_cache.write(root, sha, 6, _aws_schema(["aws_iam_role"]), "registry.terraform.io/hashicorp/aws")
    source = ProviderSource.parse("hashicorp/aws")
    chosen = select(root, Requirement("aws", source), Installed(source, Version.parse("5.45.0"), binary, "test"))
    assert (chosen.entry.sha256, chosen.entry.protocol) == (sha, 6 if cached else None)
    assert (schema_cache.cached(root, sha) is not None) is cached  # nothing read, nothing written


def test_a_command_rewrites_an_older_cache_entry_without_starting_the_binary(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    entry = _record_plugin(root, ["aws_iam_role"], cache_format=2)
    Path(entry.executable).chmod(0o755)  # it exits 1 at once: a start to read the schema would fail
    provider = registry_for(root).provider("aws")
    assert isinstance(provider, PluginProvider) and sorted(provider.resources) == ["aws_iam_role"]
    doc = schema_cache.cached(root, entry.sha256)
    assert doc is not None and doc["format"] == schema_cache.CACHE_FORMAT
    assert schema_cache.expanded(doc["schema"]) == _aws_schema(["aws_iam_role"])
    assert schema_cache.protocol_of(root, entry.sha256) == 5


def test_a_schema_no_command_has_read_is_read_from_the_provider(make_config: MakeConfig) -> None:
    """What the first command after init does: start the binary for its schema (here one that
    cannot answer, so its failure is what the user sees, not "not cached")."""
    root = make_config({"main.tf": ROLE % ""})
    entry = _record_plugin(root, ["aws_iam_role"])
    Path(entry.executable).chmod(0o755)
    (root / schema_cache.SCHEMA_DIR / f"{entry.sha256}.json").unlink()
    with pytest.raises(CtlError) as info:
        registry_for(root)
    assert "not cached" not in str(info.value)
    assert schema_cache.cached(root, entry.sha256) is None  # nothing broken was cached


def test_changed_requirements_still_ask_for_init(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    _record_plugin(root, ["aws_iam_role"])
    (root / "main.tf").write_text('terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", '
                                  'version = ">= 5.0" }\n  }\n}\n' + ROLE % "")
    with pytest.raises(CtlError) as info:
        check_requirements(root, load_config(root)[0])
    assert "changed since `ctl init`" in str(info.value) and "ctl init" in info.value.hint


def test_a_record_written_when_types_could_be_handed_over_still_reads(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    entry = _record_plugin(root, ["aws_iam_role"])
    path = root / ".ctl" / "plugins.json"
    old = json.loads(path.read_text())
    old["native"] = True
    old["providers"][0]["handed_over"] = ["aws_iam_role"]
    path.write_text(json.dumps(old))
    record = read_record(root)
    assert record is not None and record.native is True and record.providers == [entry]
    assert isinstance(registry_for(root).provider("aws"), PluginProvider)


def test_the_unset_switch_is_recorded_as_unset(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    write_record(root, PluginRecord(["/plugins"], None, []))
    assert json.loads((root / ".ctl" / "plugins.json").read_text())["native"] is None
    assert read_record(root) == PluginRecord(["/plugins"], None, [])
