"""``--policy-override "reason"`` is an audit record: printed, kept in the saved plan, and kept with
the state version the overriding run wrote (``ctl state history``), through the real executable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Project

CONFIG = """
resource "terraform_data" "risky" {
  input = var.risky
}
variable "risky" {
  type    = string
  default = "yes"
}
resource "terraform_data" "fine" {
  input = "fine"
}
"""
POLICY = """
package main
import rego.v1
deny contains sprintf("%s is risky", [rc.address]) if {
    some rc in input.resource_changes
    rc.change.after.input == "yes"
    "create" in rc.change.actions
}
"""
REASON = "CHG-4711 accepted by the platform team"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.write(CONFIG)
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "risky.rego").write_text(POLICY)
    return project


def history(project: Project) -> list[dict[str, object]]:
    return json.loads(project.ok("state", "history", "--json").stdout)


def test_an_apply_override_is_kept_with_the_version_it_wrote(project: Project) -> None:
    res = project.ctl("apply", "--auto-approve", "--no-builtin-policies")
    assert res.code == 3, res
    assert not project.state_file.exists()  # denied: nothing written

    res = project.ctl("apply", "--auto-approve", "--no-builtin-policies", "--policy-override", REASON)
    assert res.code == 0, res
    assert f"Soft-mandatory policy failures overridden: {REASON}" in res.stderr
    (current,) = history(project)
    assert current["current"] and current["policy_override"] == REASON

    project.write(CONFIG + 'resource "terraform_data" "more" {\n  input = "fine"\n}\n')
    project.ok("apply", "--auto-approve", "--no-builtin-policies")  # nothing risky created: no override
    kept, current = history(project)
    assert (kept["serial"], kept["policy_override"]) == (current["serial"] - 1, REASON)
    assert current["policy_override"] == ""

    table = project.ok("state", "history").stdout.splitlines()
    assert table[1].endswith(f"policy override: {REASON}")
    assert table[2].endswith("(current)") and "policy override" not in table[2]


def test_a_saved_plans_override_is_kept_when_it_is_applied(project: Project) -> None:
    res = project.ctl("plan", "--out", "p.plan", "--no-builtin-policies", "--policy-override", REASON)
    assert res.code == 0, res
    res = project.ctl("apply", "p.plan", "--no-builtin-policies")
    assert res.code == 0, res
    (current,) = history(project)
    assert current["policy_override"] == REASON


def test_a_run_that_needed_no_override_records_none(project: Project) -> None:
    res = project.ctl("apply", "--auto-approve", "--no-builtin-policies", "--var", "risky=no",
                      "--policy-override", "not needed")
    assert res.code == 0, res
    (current,) = history(project)
    assert current["policy_override"] == ""
