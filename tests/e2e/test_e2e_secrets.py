"""Sensitive values stay out of every output, log and journal line, wherever they sit in a value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, communicate, finished, journal_entries, wait_until

SECRET = "S3cr3tPassw0rd-e2e"

NESTED = f"""
variable "pass" {{
  type      = string
  sensitive = true
  default   = "{SECRET}"
}}
resource "terraform_data" "login" {{
  input = {{ user = "bob", password = var.pass }}
}}
resource "random_string" "suffix" {{
  length  = 6
  special = false
  keepers = {{ rotate = var.pass }}
}}
resource "time_sleep" "after" {{
  create_duration = "3s"
  triggers        = {{ login = terraform_data.login.id }}
}}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_secret_nested_in_a_map_argument_applies_masked_and_stays_out_of_the_journal(project: Project) -> None:
    project.write(NESTED)
    plan = project.ok("plan")
    assert '"password" = (sensitive value)' in plan.stdout
    assert SECRET not in plan.output
    plan_json = project.ok("plan", "--json")
    assert SECRET not in plan_json.output

    log = project.path("ctl.log")
    env = {"CTL_LOG": "debug", "CTL_LOG_PATH": str(log)}
    with background(project.start("apply", "--auto-approve", "--json", env=env)) as proc:
        # terraform_data.login is done and time_sleep.after sleeps: the journal is on disk now.
        wait_until(lambda: "terraform_data.login" in finished(project), what="terraform_data.login to finish")
        entries = journal_entries(project)
        journal_mode = project.journal_file.stat().st_mode
        res = communicate(proc)
    assert res.code == 0, res
    assert "Traceback" not in res.stderr
    assert SECRET not in res.output
    assert SECRET not in log.read_text()
    # Intents (the planned arguments, kept for finding objects after a crash) never hold a secret.
    # Results are pieces of the state: the same values, the same sensitive paths, the same 0600 mode.
    intents = [e for e in entries if e.get("kind") == "intent"]
    assert {e["address"] for e in intents} >= {"terraform_data.login", "random_string.suffix"}
    assert all(SECRET not in json.dumps(e) for e in intents)
    login_intent = next(e for e in intents if e["address"] == "terraform_data.login")
    assert "input" not in login_intent.get("planned_identity", {})  # the whole map is left out, not half of it
    for result in (e for e in entries if e.get("kind") == "result" and SECRET in json.dumps(e)):
        assert result["sensitive_attributes"], result
    assert journal_mode & 0o077 == 0

    instances = {r["type"]: r["instances"][0] for r in project.state()["resources"]}
    login = instances["terraform_data"]
    assert login["attributes"]["input"] == {"user": "bob", "password": SECRET}
    assert [{"type": "get_attr", "value": "input"}, {"type": "get_attr", "value": "password"}] \
        in login["sensitive_attributes"]
    assert instances["random_string"]["sensitive_attributes"]
    shown = project.ok("show")
    assert SECRET not in shown.output
    assert SECRET not in project.ok("show", "--json").output
    assert "No changes" in project.ok("plan").stdout
    json.loads(project.state_file.read_text())  # still a well-formed state
