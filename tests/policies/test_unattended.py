"""``unattended`` rules in policy-set.yaml: what ``ctl reconcile`` may apply with nobody watching."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.loader import unattended_rules
from policies.model import PolicyError
from policies.unattended import ChangeFacts, UnattendedRule, address_matches, decide
from tests.policies.conftest import write


def _facts(address: str = "aws_s3_bucket.logs", action: str = "update", touched: tuple[str, ...] = ("tags",),
           reverts: bool = True) -> ChangeFacts:
    return ChangeFacts(address, action, frozenset(touched), reverts)


def test_without_rules_nothing_is_applied_unattended() -> None:
    decision = decide([], _facts())
    assert not decision.allowed
    assert "reconcile only reports" in decision.reason


def test_a_tags_rule_allows_reverting_tag_drift_only() -> None:
    rules = [UnattendedRule("revert-tags", attributes=("tags", "tags_all"), drift=True)]
    assert decide(rules, _facts()).allowed
    assert decide(rules, _facts()).rule == "revert-tags"
    assert not decide(rules, _facts(touched=("tags", "acl"))).allowed  # touches more than tags
    assert not decide(rules, _facts(reverts=False)).allowed  # a tag change that is not drift put back
    assert not decide(rules, _facts(action="create", touched=())).allowed  # a create is the whole object
    assert not decide(rules, _facts(action="replace")).allowed


def test_address_patterns_match_as_targets_or_as_globs() -> None:
    assert address_matches("module.scratch.aws_sqs_queue.q", "module.scratch")
    assert address_matches("local_file.a[0]", "local_file.a")
    assert not address_matches("local_file.ab", "local_file.a")
    assert address_matches("aws_s3_bucket.logs", "aws_s3_bucket.*")
    assert address_matches('module.x["a"].aws_sqs_queue.jobs', "module.*.aws_sqs_queue.jobs")
    assert not address_matches("aws_sqs_queue.jobs", "aws_s3_bucket.*")


def test_actions_default_to_update_and_deletes_need_saying() -> None:
    scratch = [UnattendedRule("scratch", addresses=("module.scratch",))]
    assert decide(scratch, _facts("module.scratch.local_file.f", touched=("content",), reverts=False)).allowed
    assert not decide(scratch, _facts("module.scratch.local_file.f", action="delete")).allowed
    assert not decide(scratch, _facts("local_file.f")).allowed
    anything = [UnattendedRule("scratch", addresses=("module.scratch",), actions=("create", "delete"))]
    assert decide(anything, _facts("module.scratch.local_file.f", action="delete")).allowed


def test_rules_are_read_from_the_configurations_policy_set_and_a_later_dir_replaces_them(tmp_path: Path) -> None:
    root = tmp_path / "cfg"
    write(root / "policies", "policy-set.yaml", """
        unattended:
          - name: revert-tags
            attributes: [tags]
            drift: true
          - addresses: "local_file.a"
            actions: [create, update]
    """)
    rules = unattended_rules(root, [])
    assert rules == [UnattendedRule("revert-tags", (), ("update",), ("tags",), True),
                     UnattendedRule("rule-2", ("local_file.a",), ("create", "update"), None, False)]
    extra = tmp_path / "ops"
    write(extra, "policy-set.yaml", "unattended: []\n")
    assert unattended_rules(root, [extra]) == []  # a later source turns them off
    write(extra, "policy-set.yaml", "levels: {}\n")
    assert len(unattended_rules(root, [extra])) == 2  # a file that does not say keeps them
    assert unattended_rules(tmp_path / "none", []) == []


@pytest.mark.parametrize(("text", "line", "message"), [
    ("unattended: {name: x}\n", 1, "'unattended' must be a list of rules"),
    ("unattended:\n  - name: x\n    action: [update]\n", 2, "unattended rule 1 has unknown key(s): action"),
    ("unattended:\n  - name: ok\n  - actions: [destroy]\n", 3, "unattended rule 2: unknown action(s) destroy"),
    ("levels: {}\nunattended:\n  - drift: yes please\n", 3, "unattended rule 1: 'drift' must be true or false"),
    ("unattended:\n  - addresses: [1]\n", 2, "unattended rule 1: 'addresses' must be a list of strings"),
])
def test_a_mistake_in_a_rule_names_the_file_and_line_of_the_rule(tmp_path: Path, text: str, line: int,
                                                                  message: str) -> None:
    write(tmp_path / "policies", "policy-set.yaml", text)
    with pytest.raises(PolicyError) as err:
        unattended_rules(tmp_path, [])
    assert err.value.summary == message
    assert err.value.range is not None and err.value.range.filename.endswith("policy-set.yaml")
    assert err.value.range.start.line == line
