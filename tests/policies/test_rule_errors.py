"""An advisory rule that cannot evaluate a resource warns about it; it never stops a plan.

A mandatory rule's evaluation error still stops the check (passing it quietly would let through
what it exists to stop). The built-in queue rule reads an empty policy as no policy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.gate import PolicyOptions, check_plan_json
from policies.levels import Level
from policies.model import PolicyError
from tests.policies.conftest import plan, rc, write

PUBLIC = '{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage"}]}'
RULE = "ctl.aws.queue_topic_not_public.deny"


def _queue(name: str, policy: str, actions: tuple[str, ...] = ("update",)) -> dict:
    after = {"name": name, "policy": policy, "tags": {"team": "b"}}
    return rc("aws_sqs_queue", name, after, actions, before={**after, "tags": {"team": "a"}})


def _builtin(tmp: Path, doc: dict, mode: str = "advisory") -> object:
    return check_plan_json(doc, tmp, PolicyOptions(builtin_mode=mode))


@pytest.mark.parametrize("mode", ["advisory", "enforce"])
def test_a_queue_with_an_empty_policy_is_no_policy_and_plans(tmp_path: Path, mode: str,
                                                              capfd: pytest.CaptureFixture[str]) -> None:
    out = _builtin(tmp_path, plan(_queue("q", ""), _queue("open", PUBLIC, ("create",))), mode)
    assert [(f.rule.rule_id, f.address) for f in out.findings] == [(RULE, "aws_sqs_queue.open")]
    assert "Invalid JSON" not in capfd.readouterr().err


def test_an_advisory_builtin_rule_that_cannot_evaluate_a_resource_warns_and_keeps_its_other_findings(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    doc = plan(_queue("a", PUBLIC), _queue("broken", "{not json"), _queue("c", "{}"))
    out = _builtin(tmp_path, doc)
    assert not out.denied
    got = {(f.rule.rule_id, f.address, f.level) for f in out.findings}
    assert got == {(RULE, "aws_sqs_queue.a", Level.ADVISORY), (RULE, "aws_sqs_queue.broken", Level.ADVISORY)}
    warning = next(f for f in out.findings if f.address == "aws_sqs_queue.broken")
    assert "could not evaluate this resource" in warning.message
    assert "aws_sqs_queue.broken" in warning.message
    assert warning.to_json()["status"] == "advisory"
    assert "Pass groups failed" not in capfd.readouterr().err  # the interpreter's report stays out


def test_an_enforced_rule_that_cannot_evaluate_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match=r"Invalid character|Invalid JSON"):
        _builtin(tmp_path, plan(_queue("broken", "{not json")), mode="enforce")


USER_RULES = """
    package main

    import rego.v1

    warn contains msg if {
        some rc in input.resource_changes
        doc := json.unmarshal(rc.change.after.document)
        doc.open == true
        msg := sprintf("%s is open", [rc.address])
    }
"""


def _docs(*items: tuple[str, str]) -> dict:
    return plan(*(rc("terraform_data", name, {"document": text}) for name, text in items))


def test_a_user_warn_rule_that_cannot_evaluate_a_resource_warns_naming_rule_and_resource(
        tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "main.rego", USER_RULES)
    doc = _docs(("one", '{"open": true}'), ("two", "nope"), ("three", '{"open": false}'), ("four", ""))
    out = check_plan_json(doc, tmp_path, PolicyOptions(policy_dirs=[policy_dir], builtin=False))
    assert not out.denied
    assert [f.message for f in out.findings if f.address is None] == ["terraform_data.one is open"]
    by_address = {f.address: f for f in out.findings if f.address is not None}
    assert set(by_address) == {"terraform_data.two", "terraform_data.four"}
    for bad, f in by_address.items():
        assert f.rule.rule_id == "main.warn"
        assert f.level is Level.ADVISORY
        assert f.message.startswith(f"{bad}: the rule could not evaluate this resource")


def test_a_user_deny_rule_that_cannot_evaluate_stops_the_check(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "main.rego", USER_RULES.replace("warn contains", "deny contains"))
    with pytest.raises(PolicyError, match=r"data\.main\.deny"):
        check_plan_json(_docs(("two", "nope")), tmp_path, PolicyOptions(policy_dirs=[policy_dir], builtin=False))


def test_every_resource_an_advisory_rule_fails_on_is_named_in_a_large_plan(tmp_path: Path) -> None:
    queues = [_queue(f"q{i}", "{}") for i in range(200)]
    for i in (5, 130, 199):
        queues[i] = _queue(f"q{i}", "{broken")
    queues[64] = _queue("q64", PUBLIC)
    out = _builtin(tmp_path, plan(*queues))
    named = {f.address: "could not evaluate" in f.message for f in out.findings}
    assert named == {"aws_sqs_queue.q5": True, "aws_sqs_queue.q130": True, "aws_sqs_queue.q199": True,
                     "aws_sqs_queue.q64": False}
