"""The plan walk takes over the validate walk's arguments only where they cannot differ.

A plan walks the configuration twice: in validate mode (``prepare``) and in plan mode. Resources
whose arguments depend on no resource, data source or mode-dependent function (``timestamp()``,
``uuid()``, ``plantimestamp()``) keep what the first walk evaluated; everything else is evaluated
again, and the plan must come out exactly as if nothing were reused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.graph import RESOURCE, Node
from engine.plan.planner import PlanOptions, make_plan
from engine.state.model import new_state
from engine.validate import load_and_evaluate
from tests.engine.pipeline import Project, change, new_project
from vocab.values import Unknown


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path / "cfg")


CONFIG = """
variable "prefix" { default = "p" }
locals {
  when = timestamp()
  base = "${var.prefix}-base"
}
resource "demo_thing" "plain" { name = local.base }
resource "demo_thing" "counted" {
  count = 2
  name  = "${local.base}-${count.index}"
}
resource "demo_thing" "chained" { name = "${demo_thing.plain.id}-x" }
resource "demo_thing" "via_local" { name = local.chain }
locals { chain = demo_thing.plain.name }
resource "demo_thing" "stamped" { name = local.when }
resource "demo_thing" "random" { name = uuid() }
resource "demo_thing" "templated" { name = templatefile("${path.module}/t.tpl", {}) }
resource "demo_thing" "moduled" {
  name = module.child.out
}
module "child" {
  source = "./child"
  n      = var.prefix
}
module "late" {
  source = "./child"
  count  = length(demo_thing.counted)
  n      = "late"
}
"""
CHILD = """
variable "n" {}
output "out" { value = "child-${var.n}" }
resource "demo_thing" "inner" { name = "inner-${var.n}" }
"""


def _res(path: tuple[str, ...], name: str) -> Node:
    return Node(path, RESOURCE, f"demo_thing.{name}")


def test_only_resources_that_cannot_evaluate_differently_are_stable(project: Project) -> None:
    project.write(CONFIG, **{"t.tpl": "${timestamp()}", "child/main.tf": CHILD})
    loaded = load_and_evaluate(project.root, registry=project.registry, require_all_variables=True)
    assert not loaded.diags.has_errors, loaded.diags.items
    assert loaded.walk is not None
    assert loaded.walk.stable_resources() == {
        _res((), "plain"), _res((), "counted"), _res((), "moduled"), _res(("child",), "inner"),
    }


def test_a_plan_that_reuses_arguments_equals_one_that_evaluates_everything_again(project: Project) -> None:
    project.write(CONFIG, **{"t.tpl": "${timestamp()}", "child/main.tf": CHILD})
    loaded = load_and_evaluate(project.root, registry=project.registry, require_all_variables=True)
    plan = make_plan(project.root, new_state(), "lineage", -1, PlanOptions(), project.registry,
                     first=loaded).plan
    assert loaded.walk is not None
    loaded.walk.stable_resources = frozenset  # reuse nothing
    fresh = make_plan(project.root, new_state(), "lineage", -1, PlanOptions(), project.registry,
                      first=loaded).plan
    assert [(c.address, c.actions, c.after) for c in plan.changes if c.address != "demo_thing.random"] == [
        (c.address, c.actions, c.after) for c in fresh.changes if c.address != "demo_thing.random"]
    for address in ("demo_thing.stamped", "demo_thing.random", "demo_thing.templated"):
        after = change(plan, address).after
        assert after is not None and isinstance(after["name"], Unknown), address  # as plan mode says
    assert change(plan, "demo_thing.plain").after["name"] == "p-base"
    assert change(plan, 'module.late[1].demo_thing.inner').after["name"] == "inner-late"



def test_the_validate_walk_lets_go_of_each_resource_the_plan_walk_has_evaluated(project: Project) -> None:
    project.write(CONFIG, **{"t.tpl": "${timestamp()}", "child/main.tf": CHILD})
    loaded = load_and_evaluate(project.root, registry=project.registry, require_all_variables=True)
    assert loaded.walk is not None and loaded.walk.instances
    root_scope = loaded.walk.scopes[()][0]
    assert root_scope.variables["demo_thing"]["plain"] is not None
    plan = make_plan(project.root, new_state(), "lineage", -1, PlanOptions(), project.registry,
                     first=loaded).plan
    assert loaded.walk.instances == {}  # taken over or evaluated again: either way, no longer held twice
    assert root_scope.variables["demo_thing"] == {}
    assert change(plan, "demo_thing.plain").after["name"] == "p-base"
    assert change(plan, "demo_thing.chained").actions == ("create",)
