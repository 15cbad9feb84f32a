"""A native adapter steps aside for a type the configuration gives an argument it does not have.

ctl's native ``aws_iam_role`` knows the arguments most configurations use, but not every one the
AWS provider has (``inline_policy``, ``managed_policy_arns``). Such a type goes to the provider
plugin, the choice is recorded by init, and a later command that finds the configuration asking
for more than was recorded says to run init again. Until a plugin is there, validate says why
the argument is refused and what to do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from adapters.registry import Registry
from engine.config.loader import load_config
from engine.errors import CtlError
from engine.plugins.record import PluginEntry, PluginRecord, read_record, write_record
from engine.plugins.registry import check_requirements
from engine.plugins.requirements import Requirement, requirements
from engine.plugins.selection import handed_over, native_types, needs_plugin
from engine.validate import validate

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


def _aws(root: Path) -> Requirement:
    module, diags = load_config(root)
    assert not diags.has_errors
    return next(r for r in requirements(module) if r.local_name == "aws")


@pytest.mark.parametrize("block", [INLINE_BLOCK, DYNAMIC_BLOCK], ids=["block", "dynamic"])
def test_a_type_given_an_argument_the_native_adapter_lacks_is_handed_to_the_plugin(
        make_config: MakeConfig, block: str) -> None:
    req = _aws(make_config({"main.tf": ROLE % block}))
    native = Registry.discover()
    assert handed_over(req, native, use_native=True) == {"aws_iam_role"}
    assert needs_plugin(req, native, use_native=True)
    kept = native_types("aws", str(req.source), native, True, handed_over(req, native, True))
    assert "aws_sqs_queue" in kept and "aws_iam_role" not in kept
    assert handed_over(req, native, use_native=False) == frozenset()  # -native=false: the plugin has all


def test_a_configuration_the_native_adapters_cover_needs_no_plugin(make_config: MakeConfig) -> None:
    req = _aws(make_config({"main.tf": ROLE % ""}))
    native = Registry.discover()
    assert handed_over(req, native, use_native=True) == frozenset()
    assert not needs_plugin(req, native, use_native=True)


def test_validate_says_why_the_argument_is_refused_and_what_to_do(make_config: MakeConfig) -> None:
    loaded = validate(make_config({"main.tf": ROLE % INLINE_BLOCK}), environ={})
    errors = [d for d in loaded.diags.items if d.severity == "error"]
    assert [(str(d.range), d.summary) for d in errors] == [("main.tf:8:3", 'Unsupported argument "inline_policy"')]
    assert "native adapter for aws_iam_role does not have it" in errors[0].hint
    assert "ctl init" in errors[0].hint


def _entry(handed: tuple[str, ...]) -> PluginEntry:
    return PluginEntry("aws", "registry.terraform.io/hashicorp/aws", "5.0.0", "", "/nowhere/terraform-provider-aws",
                       "0" * 64, 1, 1, 5, handed)


def test_the_hand_over_is_recorded_and_a_wider_one_asks_for_init(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % INLINE_BLOCK})
    module, _ = load_config(root)
    write_record(root, PluginRecord(providers=[_entry(("aws_iam_role",))]))
    assert read_record(root).providers[0].handed_over == ("aws_iam_role",)  # type: ignore[union-attr]
    check_requirements(root, module)  # what init recorded covers the configuration

    write_record(root, PluginRecord(providers=[replace(_entry(()), handed_over=())]))
    with pytest.raises(CtlError) as info:
        check_requirements(root, module)
    assert "aws_iam_role" in str(info.value) and "ctl init" in info.value.hint


def test_a_record_written_before_hand_overs_existed_still_reads(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": ROLE % ""})
    write_record(root, PluginRecord(providers=[_entry(())]))
    text = (root / ".ctl" / "plugins.json").read_text().replace('"handed_over": [],', "")
    (root / ".ctl" / "plugins.json").write_text(text)
    assert read_record(root).providers[0].handed_over == ()  # type: ignore[union-attr]
