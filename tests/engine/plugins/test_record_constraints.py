"""A plugin record written before constraints were normalized keeps working, and a real change still asks for init."""

from __future__ import annotations

import dataclasses

import pytest

from engine.config.loader import load_config
from engine.plugins.record import PluginRecord, write_record
from engine.plugins.registry import check_requirements
from tests.engine.plugins.test_selection import ROLE, MakeConfig, _record_plugin
from vocab.errors import CtlError

REQUIRED = 'terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", version = "%s" }\n  }\n}\n'


@pytest.mark.parametrize(("recorded", "written", "changed"), [
    (">= 5.0", ">= 5.0", False),  # as an older ctl recorded it: the same requirement
    ("~> 5", "~> 5.0", False),
    (">= 5.0", ">= 5.1", True),
])
def test_recorded_constraints_are_compared_by_their_normalized_form(
        make_config: MakeConfig, recorded: str, written: str, changed: bool) -> None:
    root = make_config({"main.tf": REQUIRED % written + ROLE % ""})
    entry = _record_plugin(root, ["aws_iam_role"])
    write_record(root, PluginRecord([], None, [dataclasses.replace(entry, constraints=recorded)]))
    if not changed:
        check_requirements(root, load_config(root)[0])
        return
    with pytest.raises(CtlError) as info:
        check_requirements(root, load_config(root)[0])
    assert "changed since `ctl init`" in str(info.value)
