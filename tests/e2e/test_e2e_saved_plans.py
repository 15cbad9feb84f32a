"""Saved plans: applied as made or refused, and ``show --json`` in Terraform's plan shape."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project

CONFIG = """
variable "greeting" {
  type    = string
  default = "hello"
}
variable "token" {
  type      = string
  default   = "tok-3f9a2c-very-secret"
  sensitive = true
}
resource "random_password" "pw" {
  length  = 20
  special = false
}
resource "local_file" "f" {
  filename = "${path.module}/out/f.txt"
  content  = var.greeting
}
resource "local_file" "secret" {
  filename = "${path.module}/out/secret.txt"
  content  = var.token
}
resource "terraform_data" "t" {
  count = 2
  input = "t${count.index}"
}
output "greeting" { value = local_file.f.content }
output "password" {
  value     = random_password.pw.result
  sensitive = true
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.write(CONFIG)
    return p


def test_saved_plan_applies_without_prompt(project: Project) -> None:
    res = project.ok("plan", "--out", "tfplan")
    assert "ctl apply tfplan" in res.stdout
    assert not project.path("out").exists()  # planning changes nothing
    assert (project.path("tfplan").stat().st_mode & 0o077) == 0  # plans hold secrets
    res = project.ctl("apply", "tfplan")  # no --auto-approve, no terminal: a saved plan needs no prompt
    assert res.code == 0, res
    assert "Apply complete! Resources: 5 added, 0 changed, 0 destroyed." in res.stdout
    assert project.path("out", "f.txt").read_text() == "hello"
    assert len(project.instances()) == 5


def test_saved_plan_is_stale_after_another_apply(project: Project) -> None:
    project.apply()
    project.ok("plan", "--out", "tfplan", "--var", "greeting=bonjour")
    project.apply("--var", "greeting=hallo")  # someone else's apply in between
    serial = project.state()["serial"]
    res = project.ctl("apply", "tfplan")
    assert res.code == 1, res
    assert "Saved plan is stale" in res.stderr
    assert "ctl plan" in res.stderr  # what to do instead
    assert "Traceback" not in res.stderr
    assert project.path("out", "f.txt").read_text() == "hallo"  # nothing applied
    assert project.state()["serial"] == serial
    assert not project.lock_file.exists()


def test_first_saved_plan_is_stale_once_state_exists(project: Project) -> None:
    project.ok("plan", "--out", "tfplan")
    project.apply()
    res = project.ctl("apply", "tfplan")
    assert res.code == 1 and "Saved plan is stale" in res.stderr, res


def test_saved_plan_refused_after_configuration_change(project: Project) -> None:
    project.apply()
    project.ok("plan", "--out", "tfplan", "--var", "greeting=bonjour")
    project.write(CONFIG.replace('"t${count.index}"', '"u${count.index}"'))
    res = project.ctl("apply", "tfplan")
    assert res.code == 1, res
    assert "configuration changed" in res.stderr
    assert project.path("out", "f.txt").read_text() == "hello"


def test_saved_plan_refused_for_another_state(project: Project) -> None:
    project.apply()
    project.ok("plan", "--out", "tfplan", "--var", "greeting=bonjour")
    # The state is replaced by an unrelated one (another lineage), same serial.
    state = project.state()
    state["lineage"] = str(uuid.uuid4())
    project.state_file.write_text(json.dumps(state))
    res = project.ctl("apply", "tfplan")
    assert res.code == 1, res
    assert "does not match" in res.stderr
    assert project.path("out", "f.txt").read_text() == "hello"


def _walk_strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _walk_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _walk_strings(v)]
    return [value] if isinstance(value, str) else []


def test_show_json_plan_field_by_field(project: Project) -> None:
    project.apply()
    password = project.instances()["random_password.pw"]["attributes"]["result"]
    token = "tok-3f9a2c-very-secret"
    project.write(CONFIG.replace("count = 2", "count = 1"))
    project.ok("plan", "--out", "tfplan", "--var", "greeting=bonjour")

    res = project.ok("show", "--json", "tfplan")
    assert res.stdout.count("\n") == 1, "one line, as Terraform writes it (terraform-compliance reads no other)"
    plan = json.loads(res.stdout)
    assert plan["format_version"] == "1.2"
    assert plan["terraform_version"]
    assert not any(password in s or token in s for s in _walk_strings(plan)), "a secret is shown in clear"
    assert password not in res.stdout and token not in res.stdout

    changes = {c["address"]: c for c in plan["resource_changes"]}
    assert set(changes) == {"random_password.pw", "local_file.f", "local_file.secret", "terraform_data.t[0]",
                            "terraform_data.t[1]"}

    f = changes["local_file.f"]
    assert (f["mode"], f["type"], f["name"]) == ("managed", "local_file", "f")
    assert f.get("index") is None
    assert f["provider_name"] == "registry.terraform.io/hashicorp/local"
    assert f["change"]["actions"] == ["delete", "create"]
    assert f["action_reason"] == "replace_because_cannot_update"
    assert f["change"]["before"]["content"] == "hello"
    assert f["change"]["after"]["content"] == "bonjour"
    assert "id" not in f["change"]["after"]  # unknown until apply: left out of "after" ...
    assert f["change"]["after_unknown"]["id"] is True  # ... and flagged here
    assert ["content"] in f["change"]["replace_paths"]
    assert f["change"]["before_sensitive"] == {} and f["change"]["after_sensitive"] == {}

    gone = changes["terraform_data.t[1]"]
    assert gone["index"] == 1 and gone["name"] == "t" and gone["type"] == "terraform_data"
    assert gone["change"]["actions"] == ["delete"]
    assert gone["change"]["after"] is None
    assert gone["change"]["before"]["input"] == "t1"
    assert gone["action_reason"] == "delete_because_count_index"
    assert changes["terraform_data.t[0]"]["change"]["actions"] == ["no-op"]
    assert changes["terraform_data.t[0]"]["index"] == 0

    pw = changes["random_password.pw"]["change"]
    assert pw["actions"] == ["no-op"]
    assert pw["before"]["result"] == "(sensitive value)" == pw["after"]["result"]
    assert pw["before_sensitive"]["result"] is True and pw["after_sensitive"]["result"] is True
    secret = changes["local_file.secret"]["change"]
    assert secret["after_sensitive"]["content"] is True
    assert secret["after"]["content"] == "(sensitive value)"

    outs = plan["output_changes"]
    assert outs["greeting"]["actions"] == ["update"]
    assert (outs["greeting"]["before"], outs["greeting"]["after"]) == ("hello", "bonjour")
    assert outs["password"]["actions"] == ["no-op"]
    assert outs["password"]["after_sensitive"] is True

    prior = plan["prior_state"]
    assert prior["format_version"] == "1.0"
    prior_addrs = {r["address"] for r in prior["values"]["root_module"]["resources"]}
    assert prior_addrs == set(changes)

    planned = plan["planned_values"]["root_module"]["resources"]
    planned_addrs = {r["address"] for r in planned}
    assert planned_addrs == set(changes) - {"terraform_data.t[1]"}
    pf = next(r for r in planned if r["address"] == "local_file.f")
    assert pf["values"]["content"] == "bonjour"
    assert plan["planned_values"]["outputs"]["greeting"]["value"] == "bonjour"

    config = plan["configuration"]
    root = config["root_module"]
    cres = {r["address"]: r for r in root["resources"]}
    assert set(cres) == {"random_password.pw", "local_file.f", "local_file.secret", "terraform_data.t"}
    assert cres["terraform_data.t"]["count_expression"] == {"constant_value": 1}
    assert cres["local_file.f"]["expressions"]["content"] == {"references": ["var.greeting"]}
    assert cres["random_password.pw"]["expressions"]["length"] == {"constant_value": 20}
    assert root["outputs"]["password"]["sensitive"] is True
    assert root["variables"]["token"]["sensitive"] is True
    assert plan["variables"]["greeting"]["value"] == "bonjour"

    clear = project.ok("show", "--json", "--show-sensitive", "tfplan").stdout
    assert password in clear and token in clear


def test_human_show_of_saved_plan_masks_secrets(project: Project) -> None:
    project.apply()
    password = project.instances()["random_password.pw"]["attributes"]["result"]
    project.ok("plan", "--out", "tfplan", "--var", "greeting=bonjour", "--replace", "random_password.pw")
    res = project.ok("show", "tfplan")
    assert "random_password.pw will be replaced, as requested" in res.stdout
    assert "(sensitive value)" in res.stdout
    assert password not in res.stdout and "tok-3f9a2c" not in res.stdout
    state = project.ok("show", "--json").stdout
    assert state.count("\n") == 1
    assert password not in state and "tok-3f9a2c" not in state
    assert json.loads(state)["values"]["outputs"]["password"]["sensitive"] is True


def test_terraform_data_output_of_a_sensitive_input_is_masked(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""
    variable "token" {
      type      = string
      default   = "tok-3f9a2c-very-secret"
      sensitive = true
    }
    resource "terraform_data" "t" {
      input = var.token
    }
    """)
    res = project.ok("plan", "--out", "tfplan")
    assert "tok-3f9a2c" not in res.stdout
    assert "tok-3f9a2c" not in project.ok("show", "--json", "tfplan").stdout
