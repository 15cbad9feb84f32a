"""The whole Terraform workflow through the real ``ctl`` executable, checked as a user sees it.

Each test owns a configuration directory and looks at what matters to a user: the files the
local adapters write, the state file (Terraform's v4 shape), exit codes and the lines printed.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path

import pytest

from tests.e2e.helpers import Project


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


FILES = """
variable "content" {
  type    = string
  default = "hello"
}
variable "input" {
  type    = string
  default = "one"
}
variable "name" {
  type    = string
  default = "a"
}
resource "local_file" "a" {
  filename = "${path.module}/out/${var.name}.txt"
  content  = var.content
}
resource "terraform_data" "d" {
  input = var.input
}
output "file" { value = local_file.a.filename }
"""


def test_create_noop_update_and_replace(project: Project) -> None:
    project.write(FILES)
    assert "successfully initialized" in project.ok("init").stdout

    # create
    res = project.apply()
    assert "Apply complete! Resources: 2 added, 0 changed, 0 destroyed." in res.stdout
    assert project.path("out", "a.txt").read_text() == "hello"
    state = project.state()
    assert state["version"] == 4
    assert state["serial"] >= 1
    uuid.UUID(state["lineage"])
    assert state["ctl_version"] and state["terraform_version"]
    resources = {(r["type"], r["name"]): r for r in state["resources"]}
    assert set(resources) == {("local_file", "a"), ("terraform_data", "d")}
    for r in resources.values():
        assert r["mode"] == "managed"
        assert re.fullmatch(r'provider\["[^"]+"\]', r["provider"])
        (inst,) = r["instances"]
        assert inst["schema_version"] == 0
        assert isinstance(inst["sensitive_attributes"], list)
        assert "index_key" not in inst  # Terraform leaves it out for a resource without count/for_each
    file_attrs = resources[("local_file", "a")]["instances"][0]["attributes"]
    assert file_attrs["content"] == "hello"
    assert file_attrs["id"] == sha1("hello")
    data_attrs = resources[("terraform_data", "d")]["instances"][0]["attributes"]
    assert data_attrs["output"] == {"value": "one", "type": "string"}  # typed, as Terraform writes it
    data_id = data_attrs["id"]
    uuid.UUID(data_id)
    assert project.state_file.stat().st_mode & 0o077 == 0  # state holds secrets: owner only

    # no-op re-plan
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 0, res
    assert "No changes." in res.stdout
    first_serial = state["serial"]

    # in-place update
    res = project.ctl("plan", "--detailed-exitcode", "--var", "input=two")
    assert res.code == 2, res
    assert '~ resource "terraform_data" "d"' in res.stdout
    assert "terraform_data.d will be updated in-place" in res.stdout
    assert re.search(r'~ input\s+= "one" -> "two"', res.stdout)
    assert "Plan: 0 to add, 1 to change, 0 to destroy." in res.stdout
    res = project.apply("--var", "input=two")
    assert "Resources: 0 added, 1 changed, 0 destroyed." in res.stdout
    d = project.instances()["terraform_data.d"]["attributes"]
    assert (d["input"]["value"], d["output"]["value"], d["id"]) == ("two", "two", data_id)
    assert project.state()["serial"] > first_serial
    assert project.path("ctl.tfstate.backup").exists()

    # replace: every local_file argument forces replacement
    res = project.ctl("plan", "--var", "input=two", "--var", "content=bye")
    assert res.code == 0, res
    assert '-/+ resource "local_file" "a"' in res.stdout
    assert "local_file.a must be replaced" in res.stdout
    assert re.search(r'~ content\s+= "hello" -> "bye" # forces replacement', res.stdout)
    assert "Plan: 1 to add, 0 to change, 1 to destroy." in res.stdout
    res = project.apply("--var", "input=two", "--var", "content=bye")
    assert "Resources: 1 added, 0 changed, 1 destroyed." in res.stdout
    assert res.stdout.index("local_file.a: Destroying...") < res.stdout.index("local_file.a: Creating...")
    assert project.path("out", "a.txt").read_text() == "bye"
    assert project.instances()["local_file.a"]["attributes"]["id"] == sha1("bye")


def test_create_before_destroy_replacement(project: Project) -> None:
    project.write(FILES.replace('content  = var.content',
                                'content  = var.content\n  lifecycle { create_before_destroy = true }'))
    project.apply()
    res = project.ctl("plan", "--var", "name=b")
    assert res.code == 0, res
    assert '+/- resource "local_file" "a"' in res.stdout
    assert "create replacement and then destroy" in res.stdout
    res = project.apply("--var", "name=b")
    assert res.stdout.index("local_file.a: Creating...") < res.stdout.index("local_file.a: Destroying...")
    assert "Resources: 1 added, 0 changed, 1 destroyed." in res.stdout
    assert project.path("out", "b.txt").read_text() == "hello"
    assert not project.path("out", "a.txt").exists()
    insts = project.instances()
    assert list(insts) == ["local_file.a", "terraform_data.d"]  # no deposed object left behind
    assert insts["local_file.a"]["attributes"]["filename"].endswith("b.txt")
    assert insts["local_file.a"].get("create_before_destroy") is True


def test_rename_with_moved_block(project: Project) -> None:
    project.write("""
    resource "terraform_data" "old" {
      input = "kept"
    }
    """)
    project.apply()
    old_id = project.instances()["terraform_data.old"]["attributes"]["id"]
    project.write("""
    resource "terraform_data" "new" {
      input = "kept"
    }
    moved {
      from = terraform_data.old
      to   = terraform_data.new
    }
    """)
    res = project.ctl("plan")
    assert res.code == 0, res
    assert "terraform_data.old has moved to terraform_data.new" in res.stdout
    assert "Plan: 0 to add, 0 to change, 0 to destroy." in res.stdout
    assert "will be destroyed" not in res.stdout and "will be created" not in res.stdout
    res = project.apply()
    assert "Creating..." not in res.stdout and "Destroying..." not in res.stdout
    insts = project.instances()
    assert list(insts) == ["terraform_data.new"]
    assert insts["terraform_data.new"]["attributes"]["id"] == old_id

    # Once the state recorded the move, the moved block can go: nothing is planned.
    project.write("""
    resource "terraform_data" "new" {
      input = "kept"
    }
    """)
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 0, res
    assert "No changes." in res.stdout


def test_delete_count_shrink_and_for_each_key_removal(project: Project) -> None:
    project.write("""
    resource "terraform_data" "gone" {
      input = "x"
    }
    resource "terraform_data" "c" {
      count = 3
      input = count.index
    }
    resource "terraform_data" "f" {
      for_each = toset(["a", "b"])
      input    = each.key
    }
    """)
    project.apply()
    before = project.instances()
    assert set(before) == {"terraform_data.gone", "terraform_data.c[0]", "terraform_data.c[1]",
                           "terraform_data.c[2]", 'terraform_data.f["a"]', 'terraform_data.f["b"]'}
    assert before["terraform_data.c[1]"]["index_key"] == 1
    assert before['terraform_data.f["b"]']["index_key"] == "b"
    project.write("""
    resource "terraform_data" "c" {
      count = 1
      input = count.index
    }
    resource "terraform_data" "f" {
      for_each = toset(["a"])
      input    = each.key
    }
    """)
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2, res
    out = res.stdout
    assert "terraform_data.gone will be destroyed" in out
    assert "(because terraform_data.gone is not in configuration)" in out
    assert "(because index [1] is out of range for count)" in out
    assert "(because index [2] is out of range for count)" in out
    assert '(because key ["b"] is not in for_each map)' in out
    assert "Plan: 0 to add, 0 to change, 4 to destroy." in out
    res = project.apply()
    assert "Resources: 0 added, 0 changed, 4 destroyed." in res.stdout
    after = project.instances()
    assert set(after) == {"terraform_data.c[0]", 'terraform_data.f["a"]'}
    assert after["terraform_data.c[0]"]["attributes"]["id"] == before["terraform_data.c[0]"]["attributes"]["id"]


OUTPUTS = """
resource "random_password" "pw" {
  length  = 24
  special = false
}
resource "local_file" "f" {
  filename = "${path.module}/out/f.txt"
  content  = "data"
}
resource "terraform_data" "t" {
  input = { size = 3, tags = ["x", "y"] }
}
output "path" { value = local_file.f.filename }
output "size" { value = terraform_data.t.output.size }
output "obj"  { value = terraform_data.t.output }
output "password" {
  value     = random_password.pw.result
  sensitive = true
}
"""


def test_outputs_and_destroy(project: Project) -> None:
    project.write(OUTPUTS)
    res = project.apply()
    password = project.instances()["random_password.pw"]["attributes"]["result"]
    assert len(password) == 24
    assert password not in res.output  # the apply summary masks it
    assert re.search(r"^password = <sensitive>$", res.stdout, re.M)

    data = json.loads(project.ok("output", "--json").stdout)
    assert data["size"] == {"sensitive": False, "type": "number", "value": 3}
    assert data["password"]["sensitive"] is True
    assert data["password"]["value"] == password  # machine output asks for values by intent
    assert data["obj"]["value"] == {"size": 3, "tags": ["x", "y"]}
    assert data["path"]["value"].endswith("out/f.txt")

    assert project.ok("output", "--raw", "size").stdout == "3"
    human = project.ok("output").stdout
    assert password not in human
    assert re.search(r"^password = <sensitive>$", human, re.M)
    assert re.search(r"^size\s+= 3$", human, re.M)
    assert password not in project.ok("output", "password").stdout
    assert password not in project.ok("show").stdout

    res = project.ctl("output", "nope")
    assert res.code == 1 and 'Output "nope" not found' in res.stderr, res

    res = project.ok("destroy", "--auto-approve")
    assert "Destroy complete! Resources: 0 added, 0 changed, 3 destroyed." in res.stdout
    assert not project.path("out", "f.txt").exists()
    state = project.state()
    assert state["resources"] == [] and state["outputs"] == {}
    assert json.loads(project.ok("output", "--json").stdout) == {}


TARGETS = """
resource "terraform_data" "a" {
  input = "a"
}
resource "terraform_data" "b" {
  input = terraform_data.a.output
}
resource "terraform_data" "c" {
  input = "c"
}
"""


def test_target_exclude_and_replace(project: Project) -> None:
    project.write(TARGETS)
    res = project.apply("--exclude", "terraform_data.a")
    assert set(project.instances()) == {"terraform_data.c"}, res  # a and b (which uses a) left out
    res = project.apply("--target", "terraform_data.b")
    insts = project.instances()
    assert set(insts) == {"terraform_data.a", "terraform_data.b", "terraform_data.c"}, res  # b plus a
    assert insts["terraform_data.b"]["dependencies"] == ["terraform_data.a"]
    ids = {a: i["attributes"]["id"] for a, i in insts.items()}

    res = project.ctl("plan", "--replace", "terraform_data.c")
    assert "terraform_data.c will be replaced, as requested" in res.stdout, res
    assert "Plan: 1 to add, 0 to change, 1 to destroy." in res.stdout
    project.apply("--replace", "terraform_data.c")
    after = {a: i["attributes"]["id"] for a, i in project.instances().items()}
    assert after["terraform_data.c"] != ids["terraform_data.c"]
    assert after["terraform_data.a"] == ids["terraform_data.a"]
    assert after["terraform_data.b"] == ids["terraform_data.b"]


DRIFT = """
resource "local_file" "f" {
  filename = "${path.module}/f.txt"
  content  = "managed"
}
resource "terraform_data" "t" {
  input = "t"
}
"""


def test_refresh_only_records_drift_and_apply_restores(project: Project) -> None:
    project.write(DRIFT)
    project.apply()
    f = project.path("f.txt")
    f.write_text("edited by hand")  # behind ctl's back

    res = project.ctl("plan", "--refresh-only", "--detailed-exitcode")
    assert res.code == 2, res
    assert res.stdout.count("Objects have changed outside of ctl") == 1
    assert "local_file.f has been deleted" in res.stdout  # a file whose content changed is gone
    assert "refresh-only" in res.stdout
    serial = project.state()["serial"]

    res = project.apply("--refresh-only")
    assert f.read_text() == "edited by hand"  # refresh-only changes nothing real
    state = project.state()
    assert set(project.instances()) == {"terraform_data.t"}
    assert state["serial"] > serial

    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2, res
    assert "local_file.f will be created" in res.stdout
    project.apply()
    assert f.read_text() == "managed"


def test_deleted_file_is_recreated(project: Project) -> None:
    project.write(DRIFT)
    project.apply()
    project.path("f.txt").unlink()
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2, res
    assert res.stdout.count("Objects have changed outside of ctl") == 1
    assert "local_file.f has been deleted" in res.stdout
    assert "local_file.f will be created" in res.stdout
    assert "Plan: 1 to add, 0 to change, 0 to destroy." in res.stdout
    project.apply()
    assert project.path("f.txt").read_text() == "managed"
    assert project.ctl("plan", "--detailed-exitcode").code == 0


def test_removed_blocks_forget_or_destroy_what_left_the_configuration(project: Project) -> None:
    project.write("""
    resource "local_file" "kept" {
      filename = "${path.module}/kept.txt"
      content  = "still needed elsewhere"
    }
    resource "local_file" "dropped" {
      filename = "${path.module}/dropped.txt"
      content  = "obsolete"
    }
    """)
    project.apply()
    project.write("""
    removed {
      from = local_file.kept
      lifecycle {
        destroy = false
      }
    }
    removed {
      from = local_file.dropped
    }
    """)
    res = project.ctl("plan")
    assert res.code == 0, res
    assert "local_file.kept will no longer be managed by ctl, but will not be destroyed" in res.stdout
    assert "local_file.dropped will be destroyed" in res.stdout
    assert "Plan: 0 to add, 0 to change, 1 to destroy." in res.stdout
    assert "Some objects will no longer be managed by ctl" in res.output and "  - local_file.kept" in res.output
    project.apply()
    assert list(project.instances()) == []
    assert (project.root / "kept.txt").read_text() == "still needed elsewhere"  # forgotten, not destroyed
    assert not (project.root / "dropped.txt").exists()
    assert "No changes." in project.ctl("plan").stdout


def test_a_removed_block_naming_a_declared_resource_is_an_error(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {}
    removed {
      from = terraform_data.a
    }
    """)
    res = project.ctl("validate")
    assert res.code == 1 and "Error: main.tf:2:1: Removed resource still declared" in res.stderr, res
