"""``--timings`` / ``CTL_TIMINGS=1`` end to end: the real ``ctl`` says where a plan or an apply spent its time.

The configuration has a resource that is slow on purpose (``time_sleep``), one of HashiCorp's
``random`` provider served as a plugin from ``../shared/providers``, and a module: the slow resource
must head the table, every resource must be in it, the waits must be there, and the same report
must reach the JSON UI and the GitHub job summary. Without the option, nothing of it appears.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO, Project, release_lock, take_lock

MIRROR = REPO.parent / "shared" / "providers"

CONFIG = """
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

resource "time_sleep" "slow" {
  create_duration = "1500ms"
}

resource "random_pet" "name" {
  length = 2
}

module "m" {
  source = "./mod"
  name   = random_pet.name.id
}
"""

MODULE = """
variable "name" {
  type = string
}

resource "terraform_data" "inner" {
  input = var.name
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "random").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    project = Project(tmp_path)
    project.write(CONFIG)
    (tmp_path / "mod").mkdir()
    project.write(MODULE, "mod/main.tf")
    project.ok("init", "-plugin-dir", str(MIRROR))
    return project


def _rows(stderr: str) -> list[list[str]]:
    """The table's rows (what, kind…, seconds) as printed on standard error."""
    lines = stderr.split("Timings (total ", 1)[1].splitlines()[1:]
    return [line.split() for line in lines if line.startswith("  ") and line.rstrip().endswith("s")]


def _json_timings(stdout: str) -> dict[str, Any]:
    messages = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    (timings,) = [m["timings"] for m in messages if m["type"] == "timings"]
    return timings


def test_the_slowest_resource_heads_the_table_after_an_apply_and_a_plan(project: Project) -> None:
    applied = project.ok("apply", "--auto-approve", "--timings")
    assert "Apply complete!" in applied.stdout and "Timings" not in applied.stdout  # the report is on stderr
    rows = _rows(applied.stderr)
    resources = [r for r in rows if r[0] not in ("waiting",) and r[1] not in ("phase",)]
    assert resources[0][:3] == ["time_sleep.slow", "apply", "create"], applied
    assert float(resources[0][-1].rstrip("s")) >= 1.5
    assert {r[0] for r in resources} >= {"time_sleep.slow", "random_pet.name", "module.m.terraform_data.inner"}
    phases = [r[0] for r in rows if r[1] == "phase"]
    assert phases[0] == "load" and phases.index("plan") < phases.index("apply") < phases.index("persist")
    assert {" ".join(r[:3]) for r in rows if r[0] == "waiting"} == \
        {"waiting on lock", "waiting on providers", "waiting on backend"}

    planned = project.ctl("plan", "--detailed-exitcode", env={"CTL_TIMINGS": "1"})
    assert planned.code == 0, planned
    steps = {(r[0], r[1]) for r in _rows(planned.stderr) if r[0] != "waiting" and r[1] != "phase"}
    assert ("random_pet.name", "refresh") in steps and ("module.m.terraform_data.inner", "plan") in steps
    assert not any(step == "apply" for _, step in steps)


def test_without_the_option_nothing_is_shown(project: Project) -> None:
    for result in (project.ok("apply", "--auto-approve"), project.ok("plan")):
        assert "Timings" not in result.output and "waiting on" not in result.output


def test_the_json_ui_and_the_job_summary_carry_the_report(project: Project, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    applied = project.ok("apply", "--auto-approve", "--json", "--timings",
                         env={"GITHUB_STEP_SUMMARY": str(summary)})
    timings = _json_timings(applied.stdout)
    slowest = timings["slowest_resources"][0]
    assert (slowest["address"], slowest["step"], slowest["action"]) == ("time_sleep.slow", "apply", "create")
    assert slowest["seconds"] >= 1.5 and timings["total_seconds"] >= slowest["seconds"]
    assert next(p["name"] for p in timings["phases"]) == "load"
    assert set(timings["waiting"]) == {"lock", "providers", "backend"}
    text = summary.read_text()
    assert "### Timings" in text and "| `time_sleep.slow` | apply create |" in text

    no_option = project.ok("plan", "--json", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert '"type":"timings"' not in no_option.stdout
    assert summary.read_text().count("### Timings") == 1


def test_time_waiting_for_the_state_lock_is_reported(project: Project) -> None:
    project.ok("apply", "--auto-approve")
    lock_id = take_lock(project, "someone else's run")
    releaser = threading.Timer(2.0, release_lock, args=(project, lock_id))
    started = time.monotonic()
    releaser.start()
    try:
        planned = project.ok("plan", "--lock", "--lock-timeout", "30s", "--json", "--timings")
    finally:
        releaser.join()
    waited = _json_timings(planned.stdout)["waiting"]["lock"]
    assert 1.5 <= waited <= time.monotonic() - started, planned
