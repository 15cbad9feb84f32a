"""A provider that answers apply or plan with what the protocol forbids, under ctl and Terraform 1.0.3.

Terraform reports each broken promise as the provider's bug, keeps the object it was told about
(unknown values nulled, tainted so the next plan replaces it) and applies nothing that depends on
it. ctl must do the same: no internal error, no object lost, nothing inconsistent stored silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugin.misbehave import Pair, make_pair


def _config(trick: str) -> str:
    return f"""
resource "misbehave_thing" "a" {{
  name  = "a"
  trick = "{trick}"
}}

resource "misbehave_thing" "after" {{
  name = misbehave_thing.a.name
}}
"""


def _objects(state: dict) -> dict[str, list[dict]]:
    return {r["name"]: [{"status": i.get("status"), "attributes": i["attributes"]} for i in r["instances"]]
            for r in state["resources"] if r["instances"]}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("trick", "summary", "detail"), [
    ("unknown_after_apply", "Provider returned invalid result object after apply",
     "the provider still indicated an unknown value for misbehave_thing.a.id"),
    ("inconsistent", "Provider produced inconsistent result after apply",
     'produced an unexpected new value: .name: was cty.StringVal("a"), but now cty.StringVal("a-changed")'),
])
def test_a_bad_result_after_apply_is_reported_and_the_object_kept_tainted(
        tmp_path: Path, misbehave_plugins: Path, trick: str, summary: str, detail: str) -> None:
    pair: Pair = make_pair(tmp_path, misbehave_plugins, _config(trick))
    tf = pair.terraform.apply(expect=1)
    ours = pair.ctl.ctl("apply", "--auto-approve")
    for result in (tf.output, ours.output):
        assert summary in result
        assert detail in _flat(result)
    assert ours.code == 1, ours
    assert "internal error" not in ours.output and "Traceback" not in ours.output, ours
    assert "misbehave_thing.a: Creation failed" in ours.stdout  # as Terraform, never "complete"
    assert "misbehave_thing.a: Creation complete" not in ours.stdout
    # The same object kept, in the same condition: tainted, the unknown value null; nothing after it.
    assert _objects(pair.ctl.state()) == _objects(pair.terraform.state())
    assert _objects(pair.ctl.state())["a"][0]["status"] == "tainted"
    # The next plan replaces it, as Terraform's does.
    plan = pair.ctl.ctl("plan", "--detailed-exitcode")
    assert plan.code == 2, plan
    assert "misbehave_thing.a is tainted, so must be replaced" in plan.stdout


def test_a_plan_that_contradicts_the_configuration_is_refused(tmp_path: Path, misbehave_plugins: Path) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, _config("bad_plan"))
    expected = ('Provider "registry.terraform.io/ctltest/misbehave" planned an invalid value for '
                'misbehave_thing.a.name: planned value cty.StringVal("a-planned") does not match config value '
                'cty.StringVal("a").')
    tf = pair.terraform.plan(expect=1)
    assert "Provider produced invalid plan" in tf.output and expected in _flat(tf.output)
    for command in (("plan",), ("apply", "--auto-approve")):
        ours = pair.ctl.ctl(*command)
        assert ours.code == 1, ours
        assert "Provider produced invalid plan" in ours.output and expected in _flat(ours.output), ours
    assert not pair.ctl.state_file.exists() or not _objects(pair.ctl.state())
