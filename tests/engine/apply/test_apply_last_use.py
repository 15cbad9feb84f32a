"""An apply is the configuration's last use: each resource's syntax is let go of once evaluated.

At 50,000 resources the syntax trees are about a fifth of what an apply holds, so the apply drops
each resource's as soon as its instances are evaluated. These check that everything an apply
evaluates later (conditions, provisioners, outputs, dependents) still sees the right values, and
that the syntax is in fact gone, through ``engine.operations`` on a real configuration and state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.lang.syntax import ReleasedBody
from engine.operations import RunOptions, apply_run
from engine.plan.planner import PlanOptions, PlanResult

CONFIG = """
resource "terraform_data" "base" {
  input = { name = "base", ports = [80, 443] }
}

resource "terraform_data" "many" {
  count = 3
  input = "${terraform_data.base.output.name}-${count.index}"

  lifecycle {
    postcondition {
      condition     = startswith(self.output, "base-")
      error_message = "named after base"
    }
  }
}

resource "terraform_data" "each" {
  for_each = toset(["a", "b"])
  input    = [for m in terraform_data.many : m.output if endswith(m.output, "1")][0]

  provisioner "local-exec" {
    command = "printf '%s' '${self.output}' > ${path.module}/provisioned-${each.key}.txt"
  }
}

module "child" {
  source = "./child"
  value  = terraform_data.each["a"].output
}

output "child" {
  value = module.child.echoed
}
"""

CHILD = """
variable "value" {
  type = string
}

resource "terraform_data" "inner" {
  input = upper(var.value)
}

output "echoed" {
  value = terraform_data.inner.output
}
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text(CONFIG)
    (tmp_path / "child").mkdir()
    (tmp_path / "child" / "main.tf").write_text(CHILD)
    return tmp_path


def test_an_apply_releases_each_resource_and_still_evaluates_everything_after(root: Path) -> None:
    planned: list[PlanResult] = []
    plan, result = apply_run(RunOptions(root=root, plan=PlanOptions(), policy=None), saved_plan=None,
                             confirm=lambda _plan: True, on_plan=planned.append)
    assert result is not None and result.ok, result and result.failed
    assert result.counts["add"] == 7
    state = result.state
    assert state.instance("terraform_data.many[2]").attributes["output"] == "base-2"
    assert state.instance('terraform_data.each["b"]').attributes["output"] == "base-1"
    assert state.outputs["child"].value == "BASE-1"
    assert (root / "provisioned-a.txt").read_text() == "base-1"  # the provisioner read self after the release
    resources = [res for _, module in planned[0].root.walk() for res in module.resources.values()]
    assert len(resources) == 4 and all(isinstance(res.body, ReleasedBody) for res in resources)
    assert planned[0].graph.deps == {}  # the edges too, once the apply's order was made from them
    with pytest.raises(RuntimeError, match="configuration was released"):
        plan.configuration_json()


def test_a_released_body_read_by_mistake_says_so(root: Path) -> None:
    planned: list[PlanResult] = []
    apply_run(RunOptions(root=root, plan=PlanOptions(), policy=None), saved_plan=None,
              confirm=lambda _plan: True, on_plan=planned.append)
    res = planned[0].root.resources["terraform_data.base"]
    with pytest.raises(RuntimeError, match=r"a released body was read \(attributes\)"):
        res.body.attributes  # noqa: B018


def test_the_next_plan_finds_nothing_to_do(root: Path) -> None:
    options = RunOptions(root=root, plan=PlanOptions(), policy=None)
    apply_run(options, saved_plan=None, confirm=lambda _plan: True)
    plan, result = apply_run(options, saved_plan=None, confirm=lambda _plan: True)
    assert result is None and not plan.has_changes


REPLACED = """
variable "v" {
  type = string
}

resource "terraform_data" "r" {
  input            = var.v
  triggers_replace = [var.v]

  lifecycle {
    create_before_destroy = true
  }

  provisioner "local-exec" {
    when    = destroy
    command = "printf '%s,' '${self.output}' >> ${path.module}/destroyed.txt"
  }
}
"""


def test_a_replacement_destroys_the_old_object_after_its_resource_was_released(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(REPLACED)

    def apply(value: str) -> None:
        options = RunOptions(root=tmp_path, plan=PlanOptions(var_args=[("var", f"v={value}")]), policy=None)
        plan, result = apply_run(options, saved_plan=None, confirm=lambda _plan: True)
        assert result is not None and result.ok, result and result.failed
        assert all(c.after is None for c in plan.changes if c.actions == ("create",))  # let go of once applied

    apply("one")
    apply("two")  # the new object first, then the old one's destroy, which reads its instance and change
    assert (tmp_path / "destroyed.txt").read_text() == "one,"
