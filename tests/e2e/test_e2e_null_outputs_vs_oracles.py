"""Null outputs, typed and untyped, as Terraform 1.0.3 and OpenTofu 1.12.6 plan, store and show them.

One configuration holds a null output (``null``), typed nulls (``tostring(null)``, a ``string`` and a
``list(number)`` variable left null), typed nulls inside an object and a tuple, and a plain string.
Each tool plans it into a plan file and shows it with ``show -json``: the planned outputs (value,
type, sensitivity) and the output changes must be OpenTofu's, and Terraform 1.0.3's where its older
plan format has the field (it gives no ``type``). A plan carries an output as a value of no declared
type, so a null output is ``dynamic`` whatever its type, and a null inside a value keeps the type the
value gives it; an output that is null and was absent is a no-op, not a creation.

OpenTofu (unpacked from ``../shared/peers``) and Terraform 1.0.3 (the test extra) are the references;
under CI=true a missing one is a failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CONFIG = """\
variable "maybe" {
  type    = string
  default = null
}

variable "maybe_list" {
  type    = list(number)
  default = null
}

output "untyped" { value = null }
output "typed" { value = tostring(null) }
output "typed_variable" { value = var.maybe }
output "typed_list_variable" { value = var.maybe_list }
output "object_with_typed_null" { value = { a = tostring(null), b = 1 } }
output "tuple_with_typed_nulls" { value = [tolist(null), tonumber(null), var.maybe] }
output "secret_typed_null" {
  value     = sensitive(tobool(null))
  sensitive = true
}
output "plain" { value = "a" }
"""

NO_PLUGINS = Path("/nonexistent")  # outputs need no provider


def _shown_plan(tool: TerraformDir) -> dict[str, Any]:
    tool.run("init", "-input=false", "-no-color")
    tool.run("plan", "-input=false", "-no-color", "-out=saved.plan")
    shown = tool.run("show", "-json", "saved.plan").stdout
    return json.loads(shown[shown.find("{"):])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each tool's ``show -json`` of its own saved plan of CONFIG, against no state."""
    root = tmp_path_factory.mktemp("null-outputs")
    tofu = opentofu_executable(root / "opentofu-bin")
    shown = {}
    for name in ("ctl", "opentofu", "terraform"):
        (root / name).mkdir()
        (root / name / "main.tf").write_text(CONFIG)
    shown["opentofu"] = _shown_plan(OpenTofuDir(root / "opentofu", NO_PLUGINS, tofu))
    shown["terraform"] = _shown_plan(TerraformDir(root / "terraform", NO_PLUGINS))
    ours = Project(root / "ctl")
    ours.ok("plan", "-out=saved.plan")
    shown["ctl"] = json.loads(ours.ok("show", "-json", "saved.plan").stdout)
    return shown


def test_planned_outputs_have_opentofus_types(plans: dict[str, dict[str, Any]]) -> None:
    ours, newest = plans["ctl"]["planned_values"]["outputs"], plans["opentofu"]["planned_values"]["outputs"]
    assert ours == newest
    # What the configuration is for: the types OpenTofu gives, written out.
    assert ours["typed"]["type"] == ours["typed_variable"]["type"] == "dynamic"
    assert ours["object_with_typed_null"]["type"] == ["object", {"a": "string", "b": "number"}]
    assert ours["tuple_with_typed_nulls"]["type"] == ["tuple", [["list", "dynamic"], "number", "string"]]


def test_planned_outputs_have_terraforms_values(plans: dict[str, dict[str, Any]]) -> None:
    """Terraform 1.0.3's plan format has no output types; everything else is the same."""
    ours = {name: {k: v for k, v in out.items() if k != "type"}
            for name, out in plans["ctl"]["planned_values"]["outputs"].items()}
    assert ours == plans["terraform"]["planned_values"]["outputs"]


def test_output_changes_equal_the_references(plans: dict[str, dict[str, Any]]) -> None:
    ours = plans["ctl"]["output_changes"]
    assert ours == plans["opentofu"]["output_changes"]
    assert ours == plans["terraform"]["output_changes"]
    assert ours["typed"]["actions"] == ["no-op"] and ours["plain"]["actions"] == ["create"]
