"""Exit codes are the CI contract, and errors read as messages, never as tracebacks.

0 ok, 1 error, 2 changes present (``plan --detailed-exitcode``), 3 denied by policy, 4 lock held,
64 usage error, 130 interrupted (see test_e2e_crash_and_interrupt.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, release_lock, take_lock

GOOD = """
resource "terraform_data" "a" {
  input = "a"
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_ok_and_changes_present(project: Project) -> None:
    project.write(GOOD)
    assert project.ctl("validate").code == 0
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2, res
    assert project.ctl("plan").code == 0  # without the flag, changes are not an exit status


RISKY_POLICY = """
package main
import rego.v1
deny contains sprintf("%s is risky", [rc.address]) if {
    some rc in input.resource_changes
    rc.change.after.input == "a"
}
"""
DENIED = ('Error: 1 mandatory policy check(s) failed\n'
          '  Hint: Fix the configuration, or pass --policy-override "reason" to accept soft-mandatory failures.\n')


def test_a_denied_plan_exits_3_and_an_override_lets_it_through(project: Project) -> None:
    project.write(GOOD)
    project.path("policies").mkdir()
    project.write(RISKY_POLICY, "policies/risky.rego")
    denied = project.ctl("plan", "--out", "tfplan")
    assert denied.code == 3 and denied.stderr == DENIED, denied
    # Shown and saved before it is refused, for CI to publish; apply refuses the saved plan.
    assert "FAIL - main.deny (soft-mandatory) - terraform_data.a is risky" in denied.stdout, denied
    assert "Saved the denied plan to: tfplan" in denied.stdout and project.path("tfplan").exists(), denied
    assert project.ctl("apply", "tfplan").code == 3
    streamed = project.ctl("plan", "--json")
    last = json.loads(streamed.stdout.splitlines()[-1])
    assert streamed.code == 3 and last["diagnostic"]["summary"] == "1 mandatory policy check(s) failed", streamed
    overridden = project.ctl("plan", "--detailed-exitcode", "--policy-override", "CHG-9")
    assert overridden.code == 2, overridden
    assert overridden.stderr == "Warning: Soft-mandatory policy failures overridden: CHG-9\n", overridden
    assert "OVERRIDDEN - main.deny (soft-mandatory)" in overridden.stdout
    assert not project.state_file.exists()  # a plan writes no state, denied or not


def test_lock_held_exits_4(project: Project) -> None:
    project.write(GOOD)
    lock_id = take_lock(project, "exit code check")
    try:
        for args in (("apply", "--auto-approve"), ("plan", "--lock")):
            res = project.ctl(*args)
            assert res.code == 4, res
            assert f"ctl state unlock {lock_id}" in res.stderr
    finally:
        release_lock(project, lock_id)


@pytest.mark.parametrize("args", [
    ("plan", "--bogus"),
    ("apply", "--var"),
    ("frobnicate",),
    ("plan", "--parallelism", "0"),
    ("plan", "--lock-timeout", "soon"),
    ("apply", "--auto-approve", "--target", "terraform_data.a[oops"),
])
def test_usage_errors_exit_64(project: Project, args: tuple[str, ...]) -> None:
    project.write(GOOD)
    res = project.ctl(*args)
    assert res.code == 64, res
    assert "Traceback" not in res.stderr
    assert res.stderr.strip()


def test_failed_operation_exits_1_after_applying_independent_work(project: Project) -> None:
    project.path("blocker").write_text("a file where a directory is needed\n")
    project.write("""
    resource "local_file" "bad" {
      filename = "${path.module}/blocker/x.txt"
      content  = "x"
    }
    resource "terraform_data" "after" {
      input = local_file.bad.id
    }
    resource "local_file" "good" {
      filename = "${path.module}/good.txt"
      content  = "fine"
    }
    resource "terraform_data" "other" {
      input = "independent"
    }
    """)
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, res
    assert "Traceback" not in res.stderr
    assert "local_file.bad: Creation failed" in res.stdout
    assert "Error: local_file.bad: cannot write" in res.stderr
    assert "terraform_data.after was not applied because local_file.bad failed." in res.stderr
    assert "Apply failed. Resources: 2 added, 0 changed, 0 destroyed; 1 failed, 1 not attempted." in res.stdout
    assert project.path("good.txt").read_text() == "fine"
    assert set(project.instances()) == {"local_file.good", "terraform_data.other"}
    assert not project.lock_file.exists() and not project.journal_file.exists()

    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Plan: 2 to add, 0 to change, 0 to destroy." in res.stdout, res


def test_apply_without_input_or_auto_approve_exits_1_with_a_hint(project: Project) -> None:
    project.write(GOOD)
    res = project.ctl("apply")
    assert res.code == 1, res
    assert "needs confirmation, but input is disabled" in res.stderr
    assert "--auto-approve" in res.stderr
    assert not project.state_file.exists() or project.instances() == {}
    project.apply()
    res = project.ctl("destroy", "--input=false")
    assert res.code == 1, res
    assert "--auto-approve" in res.stderr
    assert set(project.instances()) == {"terraform_data.a"}


ERRORS = {
    "syntax": ('resource "terraform_data" "a" {\n  input = \n}\n', ("plan",), "main.tf:2"),
    "undeclared": ('resource "terraform_data" "a" {\n  input = var.nope\n}\n', ("apply", "--auto-approve"),
                   'An input variable with the name "nope" has not been declared.'),
    "required_var": ('variable "x" { type = string }\n', ("plan",), 'No value for required variable "x"'),
    "unknown_type": ('resource "nosuch_thing" "a" {\n}\n', ("plan",), "nosuch_thing"),
    "missing_plan": (GOOD, ("apply", "missing.plan"), "missing.plan does not exist"),
    "bad_plan": (GOOD, ("show", "main.tf"), "main.tf is corrupt"),
    "missing_output": (GOOD, ("output", "nope"), 'Output "nope" not found'),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_exit_1_without_traceback(project: Project, case: str) -> None:
    config, args, expected = ERRORS[case]
    project.write(config)
    res = project.ctl(*args)
    assert res.code == 1, res
    assert expected in res.stderr, res
    assert res.stderr.startswith("Error:")
    assert "Traceback" not in res.stderr


def test_corrupt_state_is_an_error_not_a_crash(project: Project) -> None:
    project.write(GOOD)
    project.state_file.write_text("{not json")
    for args in (("plan",), ("apply", "--auto-approve")):
        res = project.ctl(*args)
        assert res.code == 1, res
        assert "corrupt" in res.stderr and "ctl.tfstate.backup" in res.stderr
        assert "Traceback" not in res.stderr
    assert project.state_file.read_text() == "{not json"  # never overwritten


def test_ctl_log_debug_shows_the_traceback(project: Project) -> None:
    project.write(ERRORS["undeclared"][0])
    res = project.ctl("plan", env={"CTL_LOG": "debug"})
    assert res.code == 1, res
    assert "Traceback" in res.stderr
    assert "Reference to undeclared input variable" in res.stderr
