"""A plan nobody reads as a document lets go of the syntax its plan walk does not read again, and
is still the same plan; its configuration view, asked for after all, is made from the files.

These call ``engine.operations.plan_only`` on a real configuration with a real local state, and the
command line on the same kind of configuration.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.lang.syntax import ReleasedBody
from engine.operations import Planned, RunOptions, plan_only
from engine.plan.planner import PlanOptions
from policies.gate import PolicyOptions, may_read_whole_plan
from tests.e2e.helpers import Project
from vocab.errors import CtlError

CONFIG = """
variable "team" {
  default = "a"
}

resource "terraform_data" "stable" {
  input = { name = "s-${var.team}", ports = [80, 443] }
}

resource "terraform_data" "counted" {
  count = 2
  input = "c-${count.index}"
}

resource "terraform_data" "chained" {
  input = terraform_data.stable.output.name
}

output "name" {
  value = terraform_data.chained.output
}
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text(CONFIG)
    return tmp_path


def _plan(root: Path, *, read_as_document: bool) -> Planned:
    return plan_only(RunOptions(root=root, plan=PlanOptions(read_as_document=read_as_document), policy=None))


def _changes(planned: Planned) -> list[tuple[str, tuple[str, ...], object]]:
    return [(c.address, c.actions, c.after) for c in planned.plan.changes]


def _bodies(planned: Planned) -> dict[str, bool]:
    """Whether each resource still has its arguments' syntax."""
    return {res.address: not isinstance(res.body, ReleasedBody) for res in planned.result.root.resources.values()}


def test_only_the_syntax_the_plan_walk_takes_over_is_let_go_of(root: Path) -> None:
    lean = _plan(root, read_as_document=False)
    assert _bodies(lean) == {"terraform_data.stable": False, "terraform_data.counted": False,
                             "terraform_data.chained": True}  # it depends on another resource: evaluated again
    assert all(_bodies(_plan(root, read_as_document=True)).values())


def test_the_plan_is_the_same_and_so_is_its_configuration_view(root: Path) -> None:
    lean, whole = _plan(root, read_as_document=False), _plan(root, read_as_document=True)
    assert _changes(lean) == _changes(whole)
    assert [c.actions for c in lean.plan.changes] == [("create",)] * 4
    assert lean.plan.outputs["name"].after == whole.plan.outputs["name"].after
    view = lean.plan.configuration_json()  # asked for after all: made from the files
    assert view == whole.plan.configuration_json()
    resources = {r["address"]: r for r in view["root_module"]["resources"]}
    assert resources["terraform_data.chained"]["expressions"]["input"]["references"][0] == \
        "terraform_data.stable.output.name"


def test_a_configuration_changed_since_the_plan_is_not_described_as_the_planned_one(root: Path) -> None:
    lean = _plan(root, read_as_document=False)
    (root / "main.tf").write_text(CONFIG.replace('"s-${var.team}"', '"t-${var.team}"'))
    with pytest.raises(CtlError, match="The configuration changed while it was being planned"):
        lean.plan.configuration_json()


def test_a_user_policy_or_a_saved_plan_keeps_the_syntax(root: Path) -> None:
    assert not may_read_whole_plan(root, PolicyOptions())
    assert not may_read_whole_plan(root, None)
    assert may_read_whole_plan(root, PolicyOptions(policy_dirs=[root / "elsewhere"]))
    (root / "policies").mkdir()
    assert may_read_whole_plan(root, PolicyOptions())


def test_the_plan_command_with_and_without_a_saved_plan(root: Path) -> None:
    project = Project(root)
    shown = project.ctl("plan", "--detailed-exitcode")
    assert shown.code == 2, str(shown)  # changes present
    assert "4 to add, 0 to change, 0 to destroy" in shown.stdout
    project.ok("plan", "--out", "p.bin")
    doc = json.loads(project.ok("show", "--json", "p.bin").stdout)
    addresses = [r["address"] for r in doc["configuration"]["root_module"]["resources"]]
    assert sorted(addresses) == ["terraform_data.chained", "terraform_data.counted", "terraform_data.stable"]
