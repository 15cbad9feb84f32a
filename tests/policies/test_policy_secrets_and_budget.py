"""Policies never cost secrets or the machine: a message built from a secret is masked wherever it is
shown, a rule that allocates or loops without end is stopped at its budget, naming it, and the Rego
worker never outlives ctl. Through the real executable, as a user and a CI job run it."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, wait_until
from tests.policies.conftest import write

SECRET = "hunter2-very-secret"
CONFIG = """
variable "pw" {
  type      = string
  sensitive = true
}
resource "terraform_data" "db" {
  input = { password = var.pw, size = 2 }
}
"""
LEAKS = """
    package main

    deny contains msg if {
      rc := input.resource_changes[_]
      msg := sprintf("password %v of %v is too weak", [rc.change.after.input.password, rc.address])
    }

    warn contains {"msg": "see metadata", "password": rc.change.after.input.password} if {
      rc := input.resource_changes[_]
      print("checking", rc.change.after.input.password)
    }
"""
MASKED = "password (sensitive value) of terraform_data.db is too weak"
ALLOCATES = """
    package main

    deny contains msg if {
      xs := [x | some x in numbers.range(1, 2000000000)]
      count(xs) > 0
      msg := "never reached"
    }
"""
# rego-cpp gives up on this rule by itself, but only after tens of seconds.
LOOPS = """
    package main

    warn contains msg if {
      some i in numbers.range(1, 100000)
      some j in numbers.range(1, 100000)
      i * j == -1
      msg := "never reached"
    }
"""
FINE = """
    package main

    deny contains msg if {
      false
      msg := "never"
    }
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_a_deny_message_built_from_a_secret_is_masked_everywhere(project: Project) -> None:
    project.write(CONFIG)
    write(project.root / "policies", "leak.rego", LEAKS)
    summary = project.root / "summary.md"
    env = {"CTL_VAR_pw": SECRET, "GITHUB_STEP_SUMMARY": str(summary)}
    planned = project.ctl("plan", "--out", "tfplan", env=env)
    assert planned.code in (0, 3), planned
    assert "(sensitive value)" in planned.stdout and MASKED in planned.output
    assert SECRET not in planned.output
    assert MASKED in summary.read_text() and SECRET not in summary.read_text()

    for fmt in ("text", "json", "sarif", "junit", "github"):
        checked = project.ctl("policy", "check", "tfplan", "--format", fmt, env={"CTL_VAR_pw": SECRET})
        assert checked.code == 3, checked
        assert SECRET not in checked.output, fmt
        assert MASKED in checked.stdout, fmt
    report = json.loads(project.ctl("policy", "check", "tfplan", "--format", "json").stdout)
    warned = next(r for r in report["results"] if r["message"] == "see metadata")
    assert warned["metadata"]["password"] == "(sensitive value)"

    # The JSON plan `terraform show -json` writes holds the real value, marked in after_sensitive.
    doc = {"format_version": "1.0", "resource_changes": [{
        "address": "terraform_data.db", "mode": "managed", "type": "terraform_data", "name": "db",
        "change": {"actions": ["create"], "after": {"input": {"password": SECRET, "size": 2}},
                   "after_sensitive": {"input": {"password": True}}}}]}
    (project.root / "plan.json").write_text(json.dumps(doc))
    for fmt in ("json", "sarif"):
        checked = project.ctl("policy", "check", "--plan-json", "plan.json", "--format", fmt)
        assert checked.code == 3 and MASKED in checked.stdout and SECRET not in checked.output, checked


def test_a_policy_that_allocates_is_stopped_at_its_memory_budget_naming_it(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    write(project.root / "policies", "fine.rego", FINE)
    write(project.root / "policies", "allocates.rego", ALLOCATES)
    started = time.monotonic()
    res = project.ctl("plan", env={"CTL_POLICY_MEMORY_MB": "300"}, timeout=120)
    assert time.monotonic() - started < 60
    assert res.code == 1, res
    assert ("policies/allocates.rego:3:1: policy policies/allocates.rego, policies/fine.rego exceeded its "
            "memory budget of 300 MB, in rule data.main.deny") in res.stderr
    assert "CTL_POLICY_MEMORY_MB" in res.stderr and "Traceback" not in res.stderr


def test_a_policy_that_runs_past_its_time_budget_is_stopped_naming_it(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    write(project.root / "policies", "loops.rego", LOOPS)
    res = project.ctl("policy", "check", "--plan-json", str(write(project.root, "p.json", '{"resource_changes": []}')),
                      env={"CTL_POLICY_TIMEOUT": "2"}, timeout=60)
    assert res.code == 1, res
    assert "policy policies/loops.rego exceeded its time budget of 2 seconds, in rule data.main.warn" in res.stderr
    assert "CTL_POLICY_TIMEOUT" in res.stderr


def workers_in(root: Path) -> list[int]:
    """Rego workers running in the project's directory (a worker inherits ctl's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"policies.rego_worker" in (entry / "cmdline").read_bytes() and (entry / "cwd").resolve() == root:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_worker_never_outlives_ctl(project: Project, sig: signal.Signals) -> None:
    project.write('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    write(project.root / "policies", "loops.rego", LOOPS)
    with background(project.start("plan")) as proc:
        workers = wait_until(lambda: workers_in(project.root.resolve()), timeout=30, what="the Rego worker")
        time.sleep(0.5)  # evaluating the rule that never ends
        os.kill(proc.pid, sig)  # ctl alone, as a CI runner or an OOM killer does
        proc.wait(timeout=10)
        try:
            wait_until(lambda: not any(alive(w) for w in workers), timeout=10, what="the worker to stop")
        except AssertionError:
            # Only a worker that outlived ctl is killed: once they are all gone, their numbers may
            # already belong to other processes.
            for w in filter(alive, workers):
                os.kill(w, signal.SIGKILL)
            raise
