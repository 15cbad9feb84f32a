"""The policy gate is part of the engine's plan and apply operations: no caller can skip it by accident.

These call ``engine.operations`` directly, without the command line, on a real configuration with a
real local state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.operations import Planned, RunOptions, apply_run, plan_only
from engine.plan.planfile import load_plan, save_plan
from engine.plan.planner import PlanOptions
from engine.state_tools.history import history
from policies.gate import PolicyOptions
from vocab.errors import PolicyDenied

CONFIG = 'resource "terraform_data" "risky" {\n  input = "yes"\n}\n'
SOFT = """package main
import rego.v1
deny contains sprintf("%s is risky", [rc.address]) if {
    some rc in input.resource_changes
    rc.change.after.input == "yes"
}
"""
HARD = """package main
import rego.v1
deny_hard contains {"msg": "never", "level": "hard-mandatory"} if true
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text(CONFIG)
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "soft.rego").write_text(SOFT)
    return tmp_path


def run_options(root: Path, override: str | None = None) -> RunOptions:
    return RunOptions(root=root, plan=PlanOptions(),
                      policy=PolicyOptions(builtin=False, override=override))


def test_plan_only_refuses_a_denied_plan_after_handing_it_over(root: Path) -> None:
    handed: list[Planned] = []
    with pytest.raises(PolicyDenied) as err:
        plan_only(run_options(root), on_planned=handed.append)
    assert err.value.exit_code == 3 and "--policy-override" in err.value.hint
    assert err.value.summary == "1 mandatory policy check(s) failed"
    [planned] = handed  # the caller still had the plan, to show, save or summarize it
    assert planned.policy is not None and planned.policy.denied
    assert [r["message"] for r in planned.plan.policy_results] == ["terraform_data.risky is risky"]
    assert planned.plan.policy_results[0]["status"] == "failed"
    assert planned.plan.policy_override is None


def test_plan_only_with_an_override_returns_the_verdict_and_records_it_in_the_plan(root: Path) -> None:
    handed: list[Planned] = []
    planned = plan_only(run_options(root, "CHG-0"), on_planned=handed.append)
    assert handed == [planned]
    assert planned.policy is not None and not planned.policy.denied and planned.policy.override_used
    assert planned.plan.policy_results[0]["status"] == "overridden"
    assert planned.plan.policy_override == "CHG-0"


def test_plan_only_checks_policies_unless_told_not_to(root: Path) -> None:
    with pytest.raises(PolicyDenied):
        plan_only(RunOptions(root=root, plan=PlanOptions()))  # default: the gate
    skipped = plan_only(RunOptions(root=root, plan=PlanOptions(), policy=None))
    assert skipped.policy is None and skipped.plan.policy_results == []


def test_apply_run_refuses_a_denied_plan_before_asking(root: Path) -> None:
    asked: list[object] = []
    with pytest.raises(PolicyDenied) as err:
        apply_run(run_options(root), saved_plan=None, confirm=lambda plan: asked.append(plan) or True)
    assert err.value.exit_code == 3 and "--policy-override" in err.value.hint
    assert asked == [] and history(root) == []  # nothing was asked, nothing was written


def test_apply_run_with_an_override_keeps_it_with_the_state_version(root: Path) -> None:
    seen: list[object] = []
    _plan, result = apply_run(run_options(root, "CHG-1"), saved_plan=None, confirm=lambda plan: True,
                              on_policy=seen.append)
    assert result is not None and result.ok
    assert len(seen) == 1 and seen[0].override_used
    assert [row.policy_override for row in history(root)][-1] == "CHG-1"


def test_a_saved_plan_is_checked_again_with_the_policies_of_now(root: Path) -> None:
    planned = plan_only(run_options(root, "CHG-2"))
    assert planned.plan.policy_override == "CHG-2"
    planfile = root / "tfplan"
    save_plan(planned.plan, planfile)
    (root / "policies" / "hard.rego").write_text(HARD)
    with pytest.raises(PolicyDenied) as err:
        apply_run(run_options(root), saved_plan=planfile, confirm=lambda plan: True)
    assert "Hard-mandatory" in err.value.hint
    (root / "policies" / "hard.rego").unlink()
    _plan, result = apply_run(run_options(root), saved_plan=planfile, confirm=lambda plan: True)
    assert result is not None and result.ok
    assert load_plan(planfile).policy_override == "CHG-2"
    assert [row.policy_override for row in history(root)][-1] == "CHG-2"  # the saved plan's override
