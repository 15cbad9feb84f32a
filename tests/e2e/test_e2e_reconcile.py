"""``ctl reconcile``: the control loop, through the real ``ctl`` executable.

Drift is injected outside ctl (files deleted on disk for the native ``local_file`` adapter, tags and
queue attributes changed with boto3 against moto); each round's JSON line is read as a machine
would; the loop is stopped with SIGTERM, scraped with prometheus-client's own parser, and killed
with SIGKILL in the middle of an apply to see the next round pick up where it stopped.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    FAST,
    FAST_AND_SLOW,
    REPO,
    SLOW,
    Project,
    background,
    communicate,
    journal_entries,
    release_lock,
    take_lock,
    wait_mid_apply,
    wait_until,
)
from tests.plugin.terraform_cli import TerraformDir
from tests.servers import MotoServer

MIRROR = REPO.parent / "shared" / "providers"

FILES = """
resource "local_file" "a" {
  filename = "${path.module}/a.txt"
  content  = "first"
}

resource "local_file" "b" {
  filename = "${path.module}/b.txt"
  content  = "second"
}
"""

ONLY_A = """
unattended:
  - name: recreate-a
    addresses: [local_file.a]
    actions: [create]
"""


def _rounds(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert all(line["type"] == "reconcile_round" for line in lines), text
    return lines


def _files_project(tmp_path: Path, policy: str | None = None) -> Project:
    project = Project(tmp_path)
    project.write(FILES)
    if policy is not None:
        (tmp_path / "policies").mkdir()
        project.write(policy, "policies/policy-set.yaml")
    project.ok("init")
    project.apply()
    return project


def test_without_unattended_rules_a_round_only_reports(tmp_path: Path) -> None:
    project = _files_project(tmp_path)
    clean = project.ctl("reconcile", "--once")
    assert clean.code == 0, clean
    [line] = _rounds(clean.stdout)
    assert line["outcome"] == "converged" and line["changes"] == 0 and line["exit_code"] == 0

    project.path("a.txt").unlink()
    before = project.state_file.read_bytes()
    res = project.ctl("reconcile", "--once")
    assert res.code == 2, res
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "pending"
    assert line["drifted"] == ["local_file.a"]
    assert line["applied"] == []
    assert line["refused"] == [{"address": "local_file.a", "actions": ["create"],
                                "reason": "no unattended rule in policy-set.yaml: reconcile only reports"}]
    assert not project.path("a.txt").exists()
    assert project.state_file.read_bytes() == before  # a report-only round writes nothing
    assert not project.lock_file.exists()


def test_once_reverts_what_policy_allows_and_reports_the_rest(tmp_path: Path) -> None:
    project = _files_project(tmp_path, ONLY_A)
    project.path("a.txt").unlink()
    project.path("b.txt").unlink()
    res = project.ctl("reconcile", "--once")
    assert res.code == 2, res  # something is left for a person
    assert "Traceback" not in res.stderr
    [line] = _rounds(res.stdout)
    assert line["round"] == 1 and line["workspace"] == "default" and line["next_round_seconds"] is None
    assert line["outcome"] == "pending"
    assert line["drifted"] == ["local_file.a", "local_file.b"]
    assert line["changes"] == 2
    assert line["applied"] == ["local_file.a"]
    assert line["allowed_by"] == {"local_file.a": "recreate-a"}
    assert line["refused"] == [{"address": "local_file.b", "actions": ["create"],
                                "reason": "no unattended rule allows it"}]
    assert line["failed"] == [] and line["error"] is None
    assert project.path("a.txt").read_text() == "first"  # reverted
    assert not project.path("b.txt").exists()  # reported, left alone
    assert not project.lock_file.exists()

    again = project.ctl("reconcile", "--once")
    assert again.code == 2, again
    [line] = _rounds(again.stdout)
    assert line["applied"] == [] and [r["address"] for r in line["refused"]] == ["local_file.b"]


def test_with_hashicorps_local_provider_the_round_plans_what_terraform_plans(tmp_path: Path) -> None:
    """The plugin path (the provider started for the read, again for the apply), beside Terraform 1.0.3
    planning the same drift: the changes a round reports are the ones Terraform would make."""
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "local").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    config = 'terraform {\n  required_providers {\n    local = { source = "hashicorp/local" }\n  }\n}\n' + FILES
    tf = TerraformDir(tmp_path / "tf", MIRROR)
    tf.write(config)
    tf.init()
    tf.apply()
    for name in ("a.txt", "b.txt"):
        (tf.workdir / name).unlink()
    oracle = tf.run("plan", "-detailed-exitcode", "-no-color", expect=None)
    assert oracle.returncode == 2, oracle.output
    terraform_creates = sorted(re.findall(r"# (\S+) will be created", oracle.stdout))

    project = Project(tmp_path / "ctl")
    project.root.mkdir()
    project.write(config)
    (project.root / "policies").mkdir()
    project.write(ONLY_A, "policies/policy-set.yaml")
    project.ok("init", "-plugin-dir", str(MIRROR))
    project.apply()
    for name in ("a.txt", "b.txt"):
        project.path(name).unlink()
    res = project.ctl("reconcile", "--once")
    assert res.code == 2, res
    [line] = _rounds(res.stdout)
    assert sorted(line["applied"] + [r["address"] for r in line["refused"]]) == terraform_creates
    assert line["applied"] == ["local_file.a"]
    assert project.path("a.txt").read_text() == "first" and not project.path("b.txt").exists()
    assert project.instances()["local_file.a"]["attributes"]["content"] == "first"


def test_a_lock_held_by_a_person_is_waited_for_not_broken(tmp_path: Path) -> None:
    project = _files_project(tmp_path, ONLY_A)
    project.path("a.txt").unlink()
    lock_id = take_lock(project, "a person applying by hand")
    try:
        res = project.ctl("reconcile", "--once")
    finally:
        release_lock(project, lock_id)
    assert res.code == 4, res
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "error" and line["error"]["exit_code"] == 4
    assert not project.path("a.txt").exists()
    assert project.ctl("reconcile", "--once").code == 0
    assert project.path("a.txt").exists()


def test_an_allowed_change_that_needs_a_refused_one_is_not_applied(tmp_path: Path) -> None:
    project = _files_project(tmp_path, "unattended:\n  - addresses: [local_file.b]\n    actions: [create]\n")
    project.write(FILES.replace('content  = "second"', "content  = local_file.a.content"))
    project.apply()
    project.path("a.txt").unlink()
    project.path("b.txt").unlink()
    res = project.ctl("reconcile", "--once")
    assert res.code == 1, res
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "error" and line["applied"] == []
    assert [r["address"] for r in line["refused"]] == ["local_file.a"]
    assert line["error"]["message"].startswith(
        "local_file.a: applying the allowed changes would also create local_file.a, which no unattended rule allows")
    assert not project.path("a.txt").exists() and not project.path("b.txt").exists()  # the plan under the lock
    assert not project.lock_file.exists()


def test_a_mistake_in_the_rules_is_one_message_naming_the_file(tmp_path: Path) -> None:
    project = _files_project(tmp_path, ONLY_A)
    project.write("unattended:\n  - name: x\n    actions: [destroy]\n", "policies/policy-set.yaml")
    res = project.ctl("reconcile", "--once")
    assert res.code == 1, res
    assert "Traceback" not in res.stderr
    assert "policies/policy-set.yaml:2:1: unattended rule 1: unknown action(s) destroy" in res.stderr
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "error" and "unknown action(s) destroy" in line["error"]["message"]


def test_usage_errors_exit_64(tmp_path: Path) -> None:
    project = _files_project(tmp_path)
    for args in (("--every", "0s"), ("--every", "soon"), ("--metrics-addr", "nowhere")):
        res = project.ctl("reconcile", *args)
        assert res.code == 64, res
        assert "Traceback" not in res.stderr
        assert res.stdout == ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except urllib.error.URLError:
        return 0, ""  # not listening yet


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_a_loop_serves_metrics_and_ends_cleanly_on_sigterm_between_rounds(tmp_path: Path) -> None:
    project = _files_project(tmp_path, ONLY_A)
    project.path("a.txt").unlink()
    project.path("b.txt").unlink()
    port = _free_port()
    with background(project.start("reconcile", "--every", "1h", "--metrics-addr", f"127.0.0.1:{port}")) as proc:
        wait_until(lambda: project.path("a.txt").exists(), what="the first round to revert a.txt")
        base = f"http://127.0.0.1:{port}"
        samples = wait_until(lambda: (m := _samples(_get(f"{base}/metrics")[1]))
                             .get(("ctl_reconcile_rounds_total", (("outcome", "pending"),))) and m,
                             what="the first round in the metrics")
        assert samples[("ctl_reconcile_rounds_total", (("outcome", "pending"),))] == 1
        assert samples[("ctl_reconcile_rounds_total", (("outcome", "error"),))] == 0
        assert samples[("ctl_reconcile_drifted_objects", ())] == 2
        assert samples[("ctl_reconcile_applied_changes_total", ())] == 1
        assert samples[("ctl_reconcile_refused_changes_total", ())] == 1
        assert samples[("ctl_reconcile_pending_changes", ())] == 1
        assert samples[("ctl_reconcile_round_duration_seconds_count", ())] == 1
        assert samples[("ctl_reconcile_last_success_timestamp_seconds", ())] > 1.7e9
        assert _get(f"{base}/healthz") == (200, "ok\n")
        assert _get(f"{base}/nothing")[0] == 404

        os.killpg(proc.pid, signal.SIGTERM)  # waiting for the next round, an hour away
        res = communicate(proc, timeout=20)
    assert res.code == 0, res
    assert "Traceback" not in res.stderr
    [line] = _rounds(res.stdout)
    assert line["next_round_seconds"] == 3600
    assert not project.lock_file.exists()
    assert not project.journal_file.exists()


def test_failing_rounds_back_off_and_healthz_says_so(tmp_path: Path) -> None:
    project = _files_project(tmp_path)
    project.write('resource "local_file" "a" {\n  filename = var.missing\n}\n')
    port = _free_port()
    with background(project.start("reconcile", "--every", "1s", "--max-backoff", "2s",
                                  "--metrics-addr", f"127.0.0.1:{port}")) as proc:
        wait_until(lambda: _samples(_get(f"http://127.0.0.1:{port}/metrics")[1])
                   .get(("ctl_reconcile_rounds_total", (("outcome", "error"),)), 0) >= 3,
                   timeout=30, what="three failing rounds")
        code, body = _get(f"http://127.0.0.1:{port}/healthz")
        assert code == 503 and body.startswith("last round failed: main.tf:2:")
        os.killpg(proc.pid, signal.SIGTERM)
        res = communicate(proc, timeout=20)
    assert res.code == 0, res
    lines = _rounds(res.stdout)
    assert [line["next_round_seconds"] for line in lines[:3]] == [1, 2, 2]  # doubled, then held at the bound
    assert all(line["outcome"] == "error" and line["exit_code"] == 1 for line in lines)
    assert "main.tf:2:" in lines[0]["error"]["message"]
    assert "Traceback" not in res.stderr



def _sleeps_created_unattended(root: Path) -> Project:
    """``FAST_AND_SLOW``, initialised, with a policy set that lets reconcile create its sleeps."""
    project = Project(root)
    project.write(FAST_AND_SLOW)
    (root / "policies").mkdir()
    project.write("unattended:\n  - addresses: ['time_sleep.*']\n    actions: [create]\n", "policies/policy-set.yaml")
    project.ok("init")
    return project


def test_a_loop_killed_mid_apply_is_recovered_by_the_next_round(tmp_path: Path) -> None:
    project = _sleeps_created_unattended(tmp_path)
    with background(project.start("reconcile", "--every", "10m")) as proc:
        wait_mid_apply(project)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert project.lock_file.exists() and project.journal_file.exists()  # what the killed loop left
    journaled = {e["address"]: e for e in journal_entries(project) if e.get("kind") == "result"}
    fast_ids = {a: journaled[a]["attributes"]["id"] for a in FAST} if all(
        "attributes" in journaled.get(a, {}) for a in FAST) else None

    res = project.ctl("reconcile", "--once", "--var", "slow=0s")
    assert res.code == 0, res
    assert "Traceback" not in res.stderr
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "converged" and line["recovered"] is True
    assert line["changes"] == 2 and line["applied"] == sorted(SLOW)  # the fast ones were not made again
    insts = project.instances()
    assert set(insts) == FAST | SLOW  # nothing lost, nothing twice
    if fast_ids is not None:
        assert {a: insts[a]["attributes"]["id"] for a in FAST} == fast_ids
    assert not project.lock_file.exists() and not project.journal_file.exists()
    assert project.ctl("reconcile", "--once", "--var", "slow=0s").code == 0


def test_sigterm_during_an_apply_finishes_running_operations_saves_state_and_exits_130(tmp_path: Path) -> None:
    project = _sleeps_created_unattended(tmp_path)
    with background(project.start("reconcile", "--every", "10m", "--var", "slow=3s")) as proc:
        wait_mid_apply(project)
        os.killpg(proc.pid, signal.SIGTERM)
        res = communicate(proc, timeout=30)
    assert res.code == 130, res
    assert "Traceback" not in res.stderr
    [line] = _rounds(res.stdout)
    assert line["outcome"] == "interrupted" and line["next_round_seconds"] is None
    assert sorted(line["applied"]) == sorted(FAST | SLOW)  # the running sleeps were let finish
    assert set(project.instances()) == FAST | SLOW
    assert not project.lock_file.exists() and not project.journal_file.exists()


BUCKET = """
provider "aws" {
  region = "us-east-1"
}

resource "aws_s3_bucket" "logs" {
  bucket = "ctl-reconcile-logs"
  tags = {
    team = "payments"
    env  = "prod"
  }
}

resource "aws_sqs_queue" "jobs" {
  name                       = "ctl-reconcile-jobs"
  visibility_timeout_seconds = 30
}
"""

REVERT_TAGS = """
unattended:
  - name: revert-tags
    attributes: [tags, tags_all]
    drift: true
"""


def test_tag_drift_is_reverted_and_other_drift_reported_against_moto(tmp_path: Path,
                                                                      moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = Project(tmp_path)
    project.write(BUCKET)
    (tmp_path / "policies").mkdir()
    project.write(REVERT_TAGS, "policies/policy-set.yaml")
    project.ok("init", env=moto.env)
    project.ok("apply", "--auto-approve", env=moto.env)
    s3, sqs = moto.client("s3"), moto.client("sqs")
    s3.put_bucket_tagging(Bucket="ctl-reconcile-logs",
                          Tagging={"TagSet": [{"Key": "team", "Value": "search"}, {"Key": "env", "Value": "prod"}]})
    url = sqs.get_queue_url(QueueName="ctl-reconcile-jobs")["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "45"})

    res = project.ctl("reconcile", "--once", env=moto.env)
    assert res.code == 2, res
    [line] = _rounds(res.stdout)
    assert line["drifted"] == ["aws_s3_bucket.logs", "aws_sqs_queue.jobs"]
    assert line["applied"] == ["aws_s3_bucket.logs"]
    assert line["allowed_by"] == {"aws_s3_bucket.logs": "revert-tags"}
    assert [(r["address"], r["actions"]) for r in line["refused"]] == [("aws_sqs_queue.jobs", ["update"])]
    tags = {t["Key"]: t["Value"] for t in s3.get_bucket_tagging(Bucket="ctl-reconcile-logs")["TagSet"]}
    assert tags == {"team": "payments", "env": "prod"}  # put back
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attrs["VisibilityTimeout"] == "45"  # left for a person

    # A tag the configuration changes is not drift put back: the revert-tags rule does not apply it.
    project.write(BUCKET.replace('env  = "prod"', 'env  = "staging"'))
    res = project.ctl("reconcile", "--once", env=moto.env)
    assert res.code == 2, res
    [line] = _rounds(res.stdout)
    assert line["applied"] == []
    assert sorted(r["address"] for r in line["refused"]) == ["aws_s3_bucket.logs", "aws_sqs_queue.jobs"]
