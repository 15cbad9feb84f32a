"""``--json``: Terraform's streamed machine-readable UI, read line by line from the real executable."""

from __future__ import annotations

import io
import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from cli.views.json_ui import JsonUI, change_action, resource_json
from tests.e2e.helpers import Project
from vocab.errors import ExitCode

CONFIG = """
variable "password" {
  type      = string
  sensitive = true
  default   = "hunter2-secret"
}

resource "time_sleep" "s" {
  count           = 2
  create_duration = "1s"
}

resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = "hello"
}

resource "terraform_data" "d" {
  input = var.password
}

output "name" {
  value = local_file.f.filename
}

output "password" {
  value     = var.password
  sensitive = true
}
"""
SECRET = "hunter2-secret"
COMMON = ("@level", "@message", "@module", "@timestamp", "type")
HOOK_RESOURCE = ("addr", "module", "resource", "implied_provider", "resource_type", "resource_name", "resource_key")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.write(CONFIG)
    return p


def stream(text: str) -> list[dict[str, Any]]:
    """Every stdout line parsed on its own, with the fields every message must have."""
    lines = text.splitlines()
    assert lines, "no output"
    out = []
    for line in lines:
        msg = json.loads(line)  # nothing but JSON on stdout
        for key in COMMON:
            assert key in msg, (key, msg)
        assert msg["@module"] == "ctl.ui"
        assert msg["@level"] in ("info", "warn", "error")
        stamp = datetime.fromisoformat(msg["@timestamp"])
        assert stamp.tzinfo is not None  # RFC 3339 carries an offset
        for obj in (msg.get("hook"), msg.get("change")):
            if obj is not None:
                assert tuple(obj["resource"]) and set(HOOK_RESOURCE) <= set(obj["resource"])
        out.append(msg)
    stamps = [datetime.fromisoformat(m["@timestamp"]) for m in out]
    assert stamps == sorted(stamps)
    assert out[0]["type"] == "version" and out[0]["ui"] == "1.2" and out[0]["@message"] == "ctl 0.1.0"
    return out


def types(msgs: list[dict[str, Any]]) -> list[str]:
    return [m["type"] for m in msgs]


def by_type(msgs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in msgs if m["type"] == kind]


def test_plan_json(project: Project) -> None:
    res = project.ctl("plan", "--json", "--detailed-exitcode")
    assert res.code == ExitCode.CHANGES_PRESENT, res
    msgs = stream(res.stdout)
    assert types(msgs)[-2:] == ["change_summary", "outputs"]
    planned = {m["change"]["resource"]["addr"]: m for m in by_type(msgs, "planned_change")}
    assert set(planned) == {"time_sleep.s[0]", "time_sleep.s[1]", "local_file.f", "terraform_data.d"}
    s0 = planned["time_sleep.s[0]"]
    assert s0["@message"] == "time_sleep.s[0]: Plan to create"
    assert s0["change"] == {"action": "create", "resource": {
        "addr": "time_sleep.s[0]", "module": "", "resource": "time_sleep.s[0]", "implied_provider": "time",
        "resource_type": "time_sleep", "resource_name": "s", "resource_key": 0}}
    summary = by_type(msgs, "change_summary")[0]
    assert summary["changes"] == {"add": 4, "change": 0, "import": 0, "remove": 0, "operation": "plan"}
    assert summary["@message"] == "Plan: 4 to add, 0 to change, 0 to destroy."
    assert by_type(msgs, "outputs")[0]["outputs"] == {"name": {"sensitive": False, "action": "create"},
                                                      "password": {"sensitive": True, "action": "create"}}
    assert SECRET not in res.stdout + res.stderr


def test_apply_json_order_and_fields(project: Project) -> None:
    res = project.ctl("apply", "--json", "--auto-approve")
    assert res.code == 0, res
    msgs = stream(res.stdout)
    kinds = types(msgs)
    first_start = kinds.index("apply_start")
    assert kinds.index("change_summary") < first_start  # the plan's summary comes before any operation
    assert all(k in ("planned_change", "change_summary", "outputs", "diagnostic") for k in kinds[1:first_start])
    assert kinds[-2:] == ["change_summary", "outputs"]
    starts = {m["hook"]["resource"]["addr"]: i for i, m in enumerate(msgs) if m["type"] == "apply_start"}
    completes = {m["hook"]["resource"]["addr"]: (i, m) for i, m in enumerate(msgs) if m["type"] == "apply_complete"}
    assert set(starts) == set(completes) == {"time_sleep.s[0]", "time_sleep.s[1]", "local_file.f", "terraform_data.d"}
    for addr, (i, m) in completes.items():
        assert starts[addr] < i
        hook = m["hook"]
        assert hook["action"] == "create" and isinstance(hook["elapsed_seconds"], int)
        assert hook["id_key"] == "id" and hook["id_value"]
        assert m["@message"] == f"{addr}: Creation complete after {hook['elapsed_seconds']}s [id={hook['id_value']}]"
    assert completes["time_sleep.s[0]"][1]["hook"]["elapsed_seconds"] >= 1
    start = msgs[starts["local_file.f"]]
    assert start["@message"] == "local_file.f: Creating..." and start["hook"]["action"] == "create"
    final = msgs[-2]
    assert final["@message"] == "Apply complete! Resources: 4 added, 0 changed, 0 destroyed."
    assert final["changes"] == {"add": 4, "change": 0, "import": 0, "remove": 0, "operation": "apply"}
    outputs = msgs[-1]["outputs"]
    assert outputs["name"]["value"].endswith("out.txt") and outputs["name"]["type"] == "string"
    assert outputs["password"] == {"sensitive": True, "type": "string", "value": "(sensitive value)"}
    assert SECRET not in res.stdout + res.stderr

    # A second run refreshes first: refresh_start / refresh_complete for every object, then no changes.
    again = stream(project.ok("apply", "--json", "--auto-approve").stdout)
    refresh = [m for m in again if m["type"].startswith("refresh_")]
    assert {m["hook"]["resource"]["addr"] for m in refresh} == set(starts)
    for m in refresh:
        addr = m["hook"]["resource"]["addr"]
        starts_at = next(i for i, x in enumerate(again) if x["type"] == "refresh_start"
                         and x["hook"]["resource"]["addr"] == addr)
        assert again.index(m) >= starts_at
        if m["type"] == "refresh_complete":
            assert m["@message"].startswith(f"{addr}: Refresh complete")
    assert "apply_start" not in types(again)
    assert again[-2]["changes"]["operation"] == "apply" and again[-2]["changes"]["add"] == 0


def test_drift_destroy_and_refresh_only(project: Project) -> None:
    project.apply()
    project.path("out.txt").unlink()  # changed outside ctl
    plan = stream(project.ok("plan", "--refresh-only", "--json").stdout)
    drift = by_type(plan, "resource_drift")
    assert [m["change"]["resource"]["addr"] for m in drift] == ["local_file.f"]
    assert drift[0]["change"]["action"] == "delete"
    assert drift[0]["@message"] == "local_file.f: Drift detected (delete)"
    assert "planned_change" not in types(plan)
    assert by_type(plan, "change_summary")[0]["changes"]["operation"] == "plan"

    res = project.ctl("destroy", "--json", "--auto-approve")
    assert res.code == 0, res
    msgs = stream(res.stdout)
    deletes = by_type(msgs, "apply_complete")
    assert {m["hook"]["resource"]["addr"] for m in deletes} == {"time_sleep.s[0]", "time_sleep.s[1]",
                                                                "terraform_data.d"}
    assert all(m["hook"]["action"] == "delete" and "Destruction complete" in m["@message"] for m in deletes)
    final = msgs[-1]
    assert final["type"] == "change_summary" and final["changes"]["operation"] == "destroy"
    assert final["@message"] == "Destroy complete! Resources: 3 destroyed."


def test_apply_json_needs_approval_source(project: Project) -> None:
    res = project.ctl("apply", "--json")
    assert res.code == ExitCode.USAGE, res
    msgs = stream(res.stdout)
    assert types(msgs) == ["version", "diagnostic"]
    assert msgs[1]["@level"] == "error" and "--auto-approve" in msgs[1]["diagnostic"]["summary"]
    assert not project.state_file.exists()


def test_saved_plan_applies_with_json(project: Project) -> None:
    project.ok("plan", "--out", "tfplan", "--json")
    msgs = stream(project.ok("apply", "--json", "tfplan").stdout)
    assert "planned_change" not in types(msgs) and len(by_type(msgs, "apply_complete")) == 4


def test_errors_are_diagnostics_in_the_stream(project: Project) -> None:
    project.write('resource "time_sleep" "s" {\n  create_duration = nope.x\n}\n')
    res = project.ctl("plan", "--json")
    assert res.code == ExitCode.ERROR, res
    msgs = stream(res.stdout)
    diags = by_type(msgs, "diagnostic")
    assert diags and diags[0]["@level"] == "error" and diags[0]["@message"].startswith("Error: ")
    rng = diags[0]["diagnostic"]["range"]
    assert rng["filename"] == "main.tf" and rng["start"]["line"] == 2
    assert res.stderr == ""


def test_failed_operation(project: Project) -> None:
    project.write("""
    resource "local_file" "bad" {
      filename = "${path.module}/missing-dir/\\u0000/x"
      content  = "x"
    }
    """)
    res = project.ctl("apply", "--json", "--auto-approve")
    assert res.code == ExitCode.ERROR, res
    msgs = stream(res.stdout)
    errored = by_type(msgs, "apply_errored")
    assert len(errored) == 1 and errored[0]["@message"].startswith("local_file.bad: Creation errored after ")
    assert errored[0]["hook"]["action"] == "create" and "elapsed_seconds" in errored[0]["hook"]
    assert any(m["@level"] == "error" for m in by_type(msgs, "diagnostic"))
    assert msgs[-1]["type"] == "change_summary" and msgs[-1]["@message"].startswith("Apply failed.")


def test_validate_json_keeps_its_single_document(project: Project) -> None:
    doc = json.loads(project.ok("validate", "--json").stdout)
    assert doc["format_version"] == "1.0" and doc["valid"] is True and doc["diagnostics"] == []


@pytest.mark.slow
def test_apply_progress_every_ten_seconds(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('resource "time_sleep" "slow" {\n  create_duration = "11s"\n}\n')
    msgs = stream(project.ok("apply", "--json", "--auto-approve").stdout)
    progress = by_type(msgs, "apply_progress")
    assert len(progress) == 1
    assert progress[0]["@message"] == "time_sleep.slow: Still creating... [10s elapsed]"
    assert progress[0]["hook"]["elapsed_seconds"] == 10 and progress[0]["hook"]["action"] == "create"
    kinds = types(msgs)
    assert kinds.index("apply_start") < kinds.index("apply_progress") < kinds.index("apply_complete")


# -- the view itself, in-process ---------------------------------------------------------------------------


def test_progress_messages_with_a_short_interval() -> None:
    buf = io.StringIO()
    ui = JsonUI(buf, interval=0.2)
    ui("apply_start", 'module.app.aws_s3_bucket.b["logs"]', {"action": "update"})
    deadline = time.monotonic() + 5
    while "apply_progress" not in buf.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    ui("apply_complete", 'module.app.aws_s3_bucket.b["logs"]', {"action": "update", "elapsed": 0.6, "id": None})
    ui.close()
    msgs = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert msgs[0]["type"] == "apply_start" and msgs[-1]["type"] == "apply_complete"
    prog = next(m for m in msgs if m["type"] == "apply_progress")
    assert prog["@message"].startswith('module.app.aws_s3_bucket.b["logs"]: Still modifying... [')
    assert "id_key" not in msgs[-1]["hook"]


def test_resource_objects() -> None:
    assert resource_json('module.app.aws_s3_bucket.b["logs"]') == {
        "addr": 'module.app.aws_s3_bucket.b["logs"]', "module": "module.app", "resource": 'aws_s3_bucket.b["logs"]',
        "implied_provider": "aws", "resource_type": "aws_s3_bucket", "resource_name": "b", "resource_key": "logs"}
    assert resource_json("data.aws_caller_identity.me")["resource"] == "data.aws_caller_identity.me"
    assert change_action(("delete", "create")) == "replace" == change_action(("create", "delete"))
    assert change_action(("no-op",)) is None and change_action(("no-op",), "a.b") == "move"
