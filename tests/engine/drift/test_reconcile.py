"""What a reconcile round tells the unattended rules about each planned change, and its back-off."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from engine.drift.reconcile import action_of, backoff_delay, facts_of, reconcile_round
from engine.operations import RunOptions
from engine.plan.model import ACTIONS_CREATE, ACTIONS_REPLACE, ACTIONS_UPDATE, Plan, ResourceChange
from engine.plan.planner import PlanOptions
from engine.state.model import State
from policies.gate import PolicyOptions
from vocab.errors import ExitCode, PolicyDenied
from vocab.values import Unknown, mark


def _change(before: Any, after: Any, actions: tuple[str, ...] = ACTIONS_UPDATE,
            address: str = "aws_s3_bucket.logs") -> ResourceChange:
    return ResourceChange(address=address, module_address="", mode="managed", type="aws_s3_bucket", name="logs",
                          index=None, provider="", actions=actions, before=before, after=after)


def _plan(change: ResourceChange, drift: list[ResourceChange]) -> Plan:
    return Plan(changes=[change], drift=drift, outputs={}, prior_state=State(serial=1, lineage="l"), lineage="l", serial=1,
                config_hash="")


RECORDED = {"bucket": "logs", "tags": {"team": "payments", "env": "prod"}}
READ = {"bucket": "logs", "tags": {"team": "search", "env": "prod"}}


def test_an_update_putting_back_drifted_tags_reverts_drift() -> None:
    change = _change(READ, RECORDED)
    facts = facts_of(change, _plan(change, [_change(RECORDED, READ)]))
    assert facts.action == "update"
    assert facts.touched == {"tags"}
    assert facts.reverts_drift


def test_an_update_that_writes_something_else_does_not_revert_drift() -> None:
    change = _change(READ, {"bucket": "logs", "tags": {"team": "billing", "env": "prod"}})
    assert not facts_of(change, _plan(change, [_change(RECORDED, READ)])).reverts_drift
    # The configuration changed a tag that did not drift: an ordinary change, not a revert.
    change = _change(RECORDED, {"bucket": "logs", "tags": {"team": "payments", "env": "dev"}})
    assert not facts_of(change, _plan(change, [])).reverts_drift


def test_unknown_and_sensitive_values_are_never_taken_for_a_revert() -> None:
    change = _change(READ, {"bucket": "logs", "tags": Unknown()})
    assert not facts_of(change, _plan(change, [_change(RECORDED, READ)])).reverts_drift
    secret_before = {"tags": mark({"k": "a"})}
    secret_read = {"tags": mark({"k": "b"})}
    change = _change(secret_read, secret_before)
    assert not facts_of(change, _plan(change, [_change(secret_before, secret_read)])).reverts_drift


def test_actions_as_the_rules_name_them() -> None:
    assert action_of(_change(None, READ, ACTIONS_CREATE)) == "create"
    assert action_of(_change(READ, READ, ACTIONS_REPLACE)) == "replace"
    assert facts_of(_change(None, READ, ACTIONS_CREATE), _plan(_change(None, READ), [])).touched == frozenset()


def test_failing_rounds_back_off_exponentially_up_to_a_bound() -> None:
    assert backoff_delay(60, 0) == 60
    assert [backoff_delay(60, n, cap=600) for n in range(1, 7)] == [60, 120, 240, 480, 600, 600]
    assert backoff_delay(7200, 3, cap=600) == 7200  # never shorter than the interval itself
    assert backoff_delay(1, 10_000, cap=5) == 5  # no overflow, however long it fails


def test_a_round_whose_plan_the_policies_deny_reports_each_change_refused_and_applies_nothing(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "risky" {\n  input = "yes"\n}\n')
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "risky.rego").write_text(
        'package main\nimport rego.v1\ndeny contains sprintf("%s is risky", [rc.address]) if {\n'
        '    some rc in input.resource_changes\n    rc.change.after.input == "yes"\n}\n')
    report = reconcile_round(lambda: RunOptions(root=tmp_path, plan=PlanOptions(), policy=PolicyOptions(builtin=False)),
                             stop=threading.Event(), abandon=threading.Event())
    assert report.changes == 1
    assert [(r.address, r.reason) for r in report.refused] == [
        ("terraform_data.risky", "denied by policy: terraform_data.risky is risky")]
    assert isinstance(report.error, PolicyDenied) and "nothing was applied" in report.error.summary
    assert report.exit_code == ExitCode.POLICY_DENIED
    assert not (tmp_path / "terraform.tfstate").exists() and not list(tmp_path.glob("*.tfstate"))
