"""States written by Terraform, with tainted and deposed objects: ctl plans what Terraform plans, and applies it.

Terraform 1.0.3 writes the state with the Go-built test provider; the state is then given a tainted
object and a deposed one (exactly the fields Terraform itself writes after a failed create and an
interrupted create-before-destroy), and both tools plan on the same state and the same objects.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = """
terraform {
  required_providers {
    fwtest = { source = "ctltest/fwtest", version = "~> 1.0" }
  }
}

provider "fwtest" {
  root = "objs"
}

resource "fwtest_thing" "a" {
  name     = "alpha"
  settings = { level = 1, enabled = true }
}

resource "fwtest_thing" "b" {
  name     = "beta"
  settings = { level = 1, enabled = true }
}
"""


def _planned(plan_json: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return sorted((rc["address"], rc.get("deposed", ""), rc["change"]["actions"])
                  for rc in plan_json["resource_changes"] if rc["change"]["actions"] != ["no-op"])


@pytest.fixture
def terraform_state(tmp_path: Path, plugin_dir: Path) -> tuple[TerraformDir, Project]:
    """Terraform's apply of a and b; then b's object becomes a deposed object of a, and a is tainted."""
    work = tmp_path / "terraform"
    (work / "objs").mkdir(parents=True)
    (work / "main.tf").write_text(CONFIG)
    terraform = TerraformDir(work, plugin_dir)
    terraform.init()
    terraform.apply()
    state = terraform.state()
    resources = {r["name"]: r for r in state["resources"]}
    old = dict(resources["b"]["instances"][0], deposed="0a1b2c3d")
    resources["a"]["instances"][0]["status"] = "tainted"
    resources["a"]["instances"].append(old)
    state["resources"] = [resources["a"]]
    state["serial"] += 1
    terraform.write_state(state)
    (work / "main.tf").write_text(CONFIG.split('resource "fwtest_thing" "b"')[0])

    ours = tmp_path / "ctl"
    shutil.copytree(work / "objs", ours / "objs")
    (ours / "main.tf").write_text((work / "main.tf").read_text())
    (ours / "ctl.tfstate").write_text(json.dumps(state, indent=2))
    project = Project(ours)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    return terraform, project


def test_tainted_and_deposed_objects_are_planned_as_terraform_plans_them(
        terraform_state: tuple[TerraformDir, Project]) -> None:
    terraform, project = terraform_state
    terraform.run("plan", "-input=false", "-no-color", "-out=tfplan")
    expected = _planned(json.loads(terraform.run("show", "-json", "tfplan").stdout))
    assert expected == [("fwtest_thing.a", "", ["delete", "create"]),
                        ("fwtest_thing.a", "0a1b2c3d", ["delete"])]

    text = project.ok("plan", "--out", "tfplan").stdout
    assert "# fwtest_thing.a is tainted, so must be replaced" in text
    assert "# fwtest_thing.a (deposed object 0a1b2c3d) will be destroyed" in text
    assert "Plan: 1 to add, 0 to change, 2 to destroy." in text
    assert _planned(json.loads(project.ok("show", "--json", "tfplan").stdout)) == expected

    applied = project.ok("apply", "tfplan").stdout
    assert "1 added, 0 changed, 2 destroyed" in applied
    objects = list(project.path("objs").glob("*.json"))
    assert len(objects) == 1  # the deposed object and the tainted one are gone, the new one is there
    (resource,) = project.state()["resources"]
    (instance,) = resource["instances"]
    assert "deposed" not in instance and "status" not in instance
    assert project.ctl("plan", "--detailed-exitcode").code == 0


def test_taint_and_untaint(terraform_state: tuple[TerraformDir, Project]) -> None:
    _, project = terraform_state
    project.ok("untaint", "fwtest_thing.a")
    (resource,) = project.state()["resources"]
    current = [i for i in resource["instances"] if "deposed" not in i]
    assert "status" not in current[0]
    text = project.ok("plan").stdout
    assert "Plan: 0 to add, 0 to change, 1 to destroy." in text  # only the deposed object now
    project.ok("taint", "fwtest_thing.a")
    assert "is tainted, so must be replaced" in project.ok("plan").stdout
    missing = project.ctl("taint", "fwtest_thing.nope")
    assert missing.code == 1 and "fwtest_thing.nope" in missing.stderr and "Traceback" not in missing.stderr


def test_a_terraform_tfstate_left_here_is_refused_then_moved_in(tmp_path: Path, plugin_dir: Path) -> None:
    (tmp_path / "objs").mkdir()
    (tmp_path / "main.tf").write_text(CONFIG)
    terraform = TerraformDir(tmp_path, plugin_dir)
    terraform.init()
    terraform.apply()
    written = terraform.state()

    project = Project(tmp_path)
    init = project.ok("init", "-plugin-dir", str(plugin_dir))
    assert "terraform.tfstate holds 2 resource(s) written by Terraform" in init.output
    refused = project.ctl("plan")
    assert refused.code == 1, refused
    assert "terraform.tfstate holds 2 resource(s) written by Terraform 1.0.3" in refused.stderr
    assert "ctl init --migrate-state" in refused.stderr and "Traceback" not in refused.stderr
    assert project.ctl("apply", "--auto-approve").code == 1
    assert len(list(project.path("objs").glob("*.json"))) == 2  # nothing was created twice

    moved = project.ok("init", "--migrate-state")
    assert "Moved Terraform's state terraform.tfstate" in moved.stdout
    assert not (tmp_path / "terraform.tfstate").exists()
    assert json.loads((tmp_path / "terraform.tfstate.migrated").read_text()) == written  # the backup
    assert (project.state()["lineage"], project.state()["serial"]) == (written["lineage"], written["serial"])
    assert project.ctl("plan", "--detailed-exitcode").code == 0


def test_a_newer_terraform_state_keeps_its_fields_and_sorted_keys_through_an_update(tmp_path: Path) -> None:
    """Terraform 1.12+ writes identity fields; an in-place update keeps them, and keys stay sorted."""
    state = {
        "version": 4, "terraform_version": "1.12.2", "serial": 5, "lineage": "6a3f0d8e-2c1b-4f7a-9e55-0c1d2e3f4a5b",
        "outputs": {},
        "resources": [{
            "mode": "managed", "type": "terraform_data", "name": "d",
            "provider": 'provider["terraform.io/builtin/terraform"]',
            "instances": [{
                "schema_version": 0,
                "attributes": {"id": "2b0c4a4e-7d6f-4c55-8f0e-1f2e3d4c5b6a", "input": {"value": "one", "type": "string"},
                               "output": {"value": "one", "type": "string"}, "triggers_replace": None},
                "sensitive_attributes": [],
                "identity_schema_version": 0,
            }],
        }],
        "check_results": None,
    }
    (tmp_path / "ctl.tfstate").write_text(json.dumps(state))
    project = Project(tmp_path)
    project.write('resource "terraform_data" "d" {\n  input = { zeta = "two", alpha = "one" }\n}\n')
    assert "0 to add, 1 to change, 0 to destroy" in project.ok("plan").stdout
    project.apply()
    (instance,) = project.state()["resources"][0]["instances"]
    assert instance["identity_schema_version"] == 0
    assert instance["attributes"]["id"] == "2b0c4a4e-7d6f-4c55-8f0e-1f2e3d4c5b6a"  # the same object
    assert list(instance["attributes"]) == sorted(instance["attributes"])
    assert list(instance["attributes"]["input"]["value"]) == ["alpha", "zeta"]
    assert project.ctl("plan", "--detailed-exitcode").code == 0
