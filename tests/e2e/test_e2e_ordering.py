"""Ordering that users only notice when it goes wrong: destroys with data sources, imported objects."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project


def test_destroy_with_a_data_source_that_reads_a_managed_file(tmp_path: Path) -> None:
    """A destroy reads nothing: the data source that depends on the file is simply forgotten."""
    project = Project(tmp_path)
    project.write("""
    resource "local_file" "src" {
      filename = "${path.module}/src.txt"
      content  = "hello"
    }
    data "local_file" "read" {
      filename = local_file.src.filename
    }
    resource "terraform_data" "copy" {
      input = data.local_file.read.content
    }
    """)
    project.apply()
    assert project.instances()["terraform_data.copy"]["attributes"]["output"] == {"value": "hello", "type": "string"}
    res = project.ctl("destroy", "--auto-approve")
    assert res.code == 0, res
    assert not project.path("src.txt").exists()
    assert project.instances() == {}


def test_deletes_follow_the_configuration_when_state_has_no_dependencies(tmp_path: Path) -> None:
    """An imported object records no dependencies; the configuration still orders its delete.

    ``terraform_data.child`` refers to ``random_id.parent``. The child is imported (no dependencies
    in state), then both are destroyed: the child must be deleted before the parent.
    """
    project = Project(tmp_path)
    project.write("""
    resource "random_id" "parent" {
      byte_length = 2
    }
    resource "terraform_data" "child" {
      input = random_id.parent.hex
    }
    """)
    project.apply()
    child_id = project.instances()["terraform_data.child"]["attributes"]["id"]
    project.ok("state", "rm", "terraform_data.child")
    project.ok("import", "terraform_data.child", child_id)
    assert project.instances()["terraform_data.child"].get("dependencies", []) == []
    project.apply()  # reconciles input; the apply also records the configuration's dependencies
    assert project.instances()["terraform_data.child"]["dependencies"] == ["random_id.parent"]
    res = project.ctl("destroy", "--auto-approve")
    assert res.code == 0, res
    lines = [line for line in res.stdout.splitlines() if "Destruction complete" in line]
    assert [line.split(":")[0] for line in lines] == ["terraform_data.child", "random_id.parent"]
