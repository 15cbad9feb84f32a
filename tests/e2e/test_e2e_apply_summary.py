"""The apply summary counts what happened, and each error of a failed apply is shown once.

Through the real ``ctl`` executable: a replacement whose new object cannot be made has destroyed
the old one and added nothing; an object made and then failing its postcondition was added (it is
in the state) and its error is reported once, in the text output and in the ``--json`` stream.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Project

POSTCONDITION = """
resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    postcondition {
      condition     = self.output == "y"
      error_message = "The output must be y."
    }
  }
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _file(name: str) -> str:
    return f"""
    resource "local_file" "f" {{
      filename = "${{path.module}}/{name}"
      content  = "x"
    }}
    """


def test_a_replacement_whose_create_fails_counts_the_destroy_and_no_add(project: Project) -> None:
    project.path("blocker").write_text("a file where a directory is needed\n")
    project.write(_file("ok.txt"))
    project.apply()
    assert project.path("ok.txt").exists()

    project.write(_file("blocker/x.txt"))
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, res
    assert "local_file.f: Destruction complete" in res.stdout
    assert "local_file.f: Creation failed" in res.stdout
    assert "Apply failed. Resources: 0 added, 0 changed, 1 destroyed; 1 failed, 0 not attempted." in res.stdout
    assert res.stderr.count("cannot write") == 1, res
    assert not project.path("ok.txt").exists()
    assert "local_file.f" not in project.instances()


def test_an_object_failing_its_postcondition_is_added_and_its_error_shown_once(project: Project) -> None:
    project.write(POSTCONDITION)
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, res
    assert res.stderr.count("The output must be y.") == 1, res
    assert "Traceback" not in res.stderr
    assert "Apply failed. Resources: 1 added, 0 changed, 0 destroyed; 1 failed, 0 not attempted." in res.stdout
    assert set(project.instances()) == {"terraform_data.a"}


def test_the_json_stream_reports_the_failure_once_with_honest_counts(project: Project) -> None:
    project.write(POSTCONDITION)
    res = project.ctl("apply", "--auto-approve", "--json")
    assert res.code == 1, res
    events = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    errors = [e for e in events if e.get("type") == "diagnostic" and "The output must be y." in e["@message"]]
    assert len(errors) == 1, res
    summary = [e for e in events if e.get("type") == "change_summary" and e["changes"]["operation"] == "apply"]
    assert [s["changes"]["add"] for s in summary] == [1], res


def test_a_destroy_that_fails_says_destroy_failed_and_counts_what_went(project: Project) -> None:
    project.write("""
    resource "local_file" "f" {
      filename = "${path.module}/f.txt"
      content  = "x"
    }
    resource "terraform_data" "t" {
      input = "y"
    }
    """)
    project.apply()
    project.path("f.txt").unlink()
    project.path("f.txt", "inside").mkdir(parents=True)  # a directory where the file was: cannot be deleted
    res = project.ctl("destroy", "--auto-approve", "--refresh=false")
    assert res.code == 1, res
    assert "Destroy failed. Resources: 0 added, 0 changed, 1 destroyed; 1 failed, 0 not attempted." in res.stdout
    assert res.stderr.count("cannot delete") == 1, res
    assert set(project.instances()) == {"local_file.f"}
