"""``ctl drift``: what changed outside ctl, per attribute, with its exit codes, JSON lines, CI
summary and annotations; state left alone unless ``--refresh-state``; and ``ctl drift adopt``.

Through the real ``ctl`` executable: the native ``local_file`` adapter with the file edited on disk,
HashiCorp's local provider from ``../shared/providers`` (beside Terraform 1.0.3, which must see the
same drift), and the native AWS adapters against moto with the objects changed through boto3.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO, Project, release_lock, take_lock
from tests.plugin.terraform_cli import TerraformDir
from tests.servers import MotoServer

MIRROR = REPO.parent / "shared" / "providers"

LOCAL_FILES = """
resource "local_file" "a" {
  filename = "${path.module}/a.txt"
  content  = "first"
}

resource "local_file" "b" {
  filename = "${path.module}/b.txt"
  content  = "second"
}
"""

BUCKET = """
provider "aws" {
  region = "us-east-1"
}

resource "aws_s3_bucket" "logs" {
  bucket = "ctl-drift-logs"
  tags = {
    team = "payments" # owned by the payments team
    env  = "prod"
  }
}

resource "aws_sqs_queue" "jobs" {
  name                       = "ctl-drift-jobs"
  visibility_timeout_seconds = 30 # seconds a worker holds a message
}
"""


@pytest.fixture
def mirror() -> Path:
    """``../shared/providers``: HashiCorp's providers, packed as a filesystem mirror."""
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "local").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_file_edited_on_disk_is_drift_reported_without_writing_or_locking_the_state(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(LOCAL_FILES)
    project.ok("init")
    project.apply()
    clean = project.ctl("drift")
    assert clean.code == 0, clean
    assert "No drift" in clean.stdout

    project.path("a.txt").write_text("edited by hand")
    before = project.state_file.read_bytes()
    lock_id = take_lock(project, "a long apply elsewhere")  # a read never waits for the lock
    try:
        res = project.ctl("drift")
    finally:
        release_lock(project, lock_id)
    assert res.code == 2, res
    assert "Traceback" not in res.output
    assert "local_file.a: deleted outside ctl" in res.stdout
    assert "local_file.b" not in res.stdout.split("Drift:", 1)[1]  # after the refresh progress lines
    assert project.state_file.read_bytes() == before  # nothing written
    assert not project.lock_file.exists()

    lines = _json_lines(project.ctl("drift", "--json").stdout)
    assert lines[0]["type"] == "drift" and lines[0]["address"] == "local_file.a"
    assert lines[0]["action"] == "delete"
    assert lines[-1]["type"] == "drift_summary" and lines[-1]["drifted"] == 1 and lines[-1]["recorded"] is False

    assert project.ctl("drift", "--target", "local_file.b").code == 0  # only what is asked for is reported


def test_refresh_state_records_what_was_seen_under_the_lock(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(LOCAL_FILES)
    project.ok("init")
    project.apply()
    project.path("b.txt").unlink()
    lock_id = take_lock(project, "someone else")
    try:
        blocked = project.ctl("drift", "--refresh-state")
    finally:
        release_lock(project, lock_id)
    assert blocked.code == 4, blocked  # writing the state needs the lock, as apply -refresh-only does
    assert "local_file.b" in project.instances()

    recorded = project.ctl("drift", "--refresh-state")
    assert recorded.code == 2, recorded
    assert "The state now records" in recorded.stdout
    assert set(project.instances()) == {"local_file.a"}
    assert project.ctl("drift").code == 0  # recorded: no longer drift
    assert not project.lock_file.exists()


def test_on_github_actions_drift_is_a_job_summary_and_an_annotation_on_the_block(tmp_path: Path) -> None:
    project = Project(tmp_path / "cfg")
    project.root.mkdir()
    project.write(LOCAL_FILES)
    project.ok("init")
    project.apply()
    project.path("b.txt").write_text("changed")
    summary = tmp_path / "summary.md"
    res = project.ctl("drift", env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert res.code == 2, res
    assert "::warning file=main.tf,line=6,col=1,title=Drift::local_file.b: deleted outside ctl" in res.stderr
    text = summary.read_text()
    assert "ctl drift: 1 object changed outside ctl" in text
    assert "`local_file.b`" in text and "local_file.a" not in text


def test_the_real_local_provider_reports_an_edited_file_gone_as_terraform_does(tmp_path: Path, mirror: Path) -> None:
    config = LOCAL_FILES.replace('resource "local_file" "a"', 'terraform {\n  required_providers {\n'
                                 '    local = { source = "hashicorp/local" }\n  }\n}\n\nresource "local_file" "a"')
    tf = TerraformDir(tmp_path / "tf", mirror)
    tf.write(config)
    tf.init()
    tf.apply()
    (tf.workdir / "a.txt").write_text("edited")
    oracle = tf.run("plan", "-refresh-only", "-detailed-exitcode", "-no-color", expect=None)
    assert oracle.returncode == 2, oracle.output
    assert "local_file.a has been deleted" in oracle.stdout

    project = Project(tmp_path / "ctl")
    project.root.mkdir()
    project.write(config)
    project.ok("init", "-plugin-dir", str(mirror))
    project.apply()
    project.path("a.txt").write_text("edited")
    res = project.ctl("drift", "--json")
    assert res.code == 2, res
    drifted = [d for d in _json_lines(res.stdout) if d["type"] == "drift"]
    assert [(d["address"], d["action"]) for d in drifted] == [("local_file.a", "delete")]
    adopt = project.ctl("drift", "adopt")
    assert adopt.code == 2, adopt  # a deleted object has no value to write: it is left for apply
    assert "local_file.a deleted outside ctl" in adopt.stdout
    assert project.path("main.tf").read_text().count("local_file") == 2


def _aws_project(tmp_path: Path, moto: MotoServer) -> Project:
    project = Project(tmp_path)
    project.write(BUCKET)
    assert project.ctl("init", env=moto.env).code == 0
    project.ok("apply", "--auto-approve", env=moto.env)
    return project


def test_tags_and_queue_attributes_changed_with_boto3_are_named_before_and_after(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = _aws_project(tmp_path, moto)
    assert project.ctl("drift", env=moto.env).code == 0
    s3, sqs = moto.client("s3"), moto.client("sqs")
    s3.put_bucket_tagging(Bucket="ctl-drift-logs",
                          Tagging={"TagSet": [{"Key": "team", "Value": "search"}, {"Key": "env", "Value": "prod"}]})
    url = sqs.get_queue_url(QueueName="ctl-drift-jobs")["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "45"})

    res = project.ctl("drift", env=moto.env)
    assert res.code == 2, res
    assert 'tags["team"]: "payments" -> "search"' in res.stdout
    assert "visibility_timeout_seconds: 30 -> 45" in res.stdout
    assert 'tags["env"]' not in res.stdout  # unchanged tags are not listed

    lines = _json_lines(project.ctl("drift", "--json", env=moto.env).stdout)
    by_address = {d["address"]: d for d in lines if d["type"] == "drift"}
    team = [a for a in by_address["aws_s3_bucket.logs"]["attributes"] if a["path"] == ["tags", "team"]]
    assert team and team[0]["before"] == "payments" and team[0]["after"] == "search"
    queue = by_address["aws_sqs_queue.jobs"]["attributes"]
    assert [(a["name"], a["before"], a["after"]) for a in queue] == [("visibility_timeout_seconds", 30, 45)]
    assert lines[-1]["drifted"] == 2


def test_a_configuration_error_is_exit_1_with_one_message(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(LOCAL_FILES)
    project.ok("init")
    project.apply()
    project.write(LOCAL_FILES + '\nresource "local_file" "c" {\n  content = \n}\n', name="broken.tf")
    res = project.ctl("drift")
    assert res.code == 1, res
    assert "Traceback" not in res.output
    assert "broken.tf:" in res.stderr




# -- ctl drift adopt ---------------------------------------------------------------------------------

def _retag(moto: MotoServer, tags: dict[str, str]) -> None:
    moto.client("s3").put_bucket_tagging(Bucket="ctl-drift-logs",
                                         Tagging={"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]})


def test_adopt_rewrites_the_literals_keeping_comments_and_the_next_plan_is_empty(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = _aws_project(tmp_path, moto)
    _retag(moto, {"team": "search", "env": "prod", "owner": "ops"})
    sqs = moto.client("sqs")
    url = sqs.get_queue_url(QueueName="ctl-drift-jobs")["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "45"})
    original = project.path("main.tf").read_text()

    preview = project.ctl("drift", "adopt", "--dry-run", env=moto.env)
    assert preview.code == 0, preview
    assert project.path("main.tf").read_text() == original  # a dry run writes nothing
    assert "--- a/main.tf" in preview.stdout and "+++ b/main.tf" in preview.stdout
    assert '-    team = "payments" # owned by the payments team' in preview.stdout
    assert '+    team  = "search" # owned by the payments team' in preview.stdout

    res = project.ctl("drift", "adopt", env=moto.env)
    assert res.code == 0, res
    text = project.path("main.tf").read_text()
    assert 'team  = "search" # owned by the payments team' in text
    assert 'owner = "ops"' in text
    assert "visibility_timeout_seconds = 45 # seconds a worker holds a message" in text
    assert "tags_all" not in text  # computed by the provider: never written
    assert project.ctl("fmt", "-check").code == 0  # in fmt style, as it was
    plan = project.ctl("plan", "--detailed-exitcode", env=moto.env)
    assert plan.code == 0, plan
    assert project.ctl("drift", env=moto.env).code == 2  # the state still has the old values...
    assert project.ctl("drift", "--refresh-state", env=moto.env).code == 2
    assert project.ctl("drift", env=moto.env).code == 0  # ...until recorded


def test_adopt_names_where_an_expression_value_comes_from_and_changes_nothing(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = Project(tmp_path)
    project.write("""
        provider "aws" {
          region = "us-east-1"
        }

        locals {
          team = "payments"
        }

        resource "aws_s3_bucket" "logs" {
          bucket = "ctl-drift-logs"
          tags   = { team = local.team, env = var.env }
        }
        """)
    project.write('variable "env" {\n  default = "prod"\n}\n', name="variables.tf")
    project.write('env = "staging"\n', name="terraform.tfvars")
    assert project.ctl("init", env=moto.env).code == 0
    project.ok("apply", "--auto-approve", env=moto.env)
    _retag(moto, {"team": "search", "env": "dev"})
    before = {n: project.path(n).read_text() for n in ("main.tf", "variables.tf", "terraform.tfvars")}

    res = project.ctl("drift", "adopt", env=moto.env)
    assert res.code == 2, res
    assert "Traceback" not in res.output
    assert ('aws_s3_bucket.logs tags["env"] comes from var.env (default at variables.tf:2; set at '
            'terraform.tfvars:1); reality has "dev"') in res.stdout
    assert 'tags["team"] comes from local.team (the locals entry at main.tf:6); reality has "search"' in res.stdout
    assert {n: project.path(n).read_text() for n in ("main.tf", "variables.tf", "terraform.tfvars")} == before


def test_adopt_into_a_read_only_or_broken_file_is_one_error_and_changes_nothing(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = _aws_project(tmp_path, moto)
    _retag(moto, {"team": "search", "env": "prod"})
    main = project.path("main.tf")
    original = main.read_text()
    main.chmod(0o444)
    try:
        res = project.ctl("drift", "adopt", env=moto.env)
    finally:
        main.chmod(0o644)
    assert res.code == 1, res
    assert "Cannot write main.tf: permission denied; nothing was written" in res.stderr
    assert "Traceback" not in res.output
    assert main.read_text() == original

    main.write_text(original + '\nresource "aws_sqs_queue" "broken" {\n  name = \n}\n')
    broken = project.ctl("drift", "adopt", env=moto.env)
    assert broken.code == 1, broken
    assert "main.tf:" in broken.stderr and "Traceback" not in broken.output
    assert main.read_text() == original + '\nresource "aws_sqs_queue" "broken" {\n  name = \n}\n'


def test_adopt_edits_a_tf_json_file_in_place_and_the_next_plan_is_empty(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    moto = moto_server_clean
    project = Project(tmp_path)
    text = ('{\n  "provider": {"aws": {"region": "us-east-1"}},\n  "resource": {\n    "aws_s3_bucket": {\n'
            '      "logs": {\n        "bucket": "ctl-drift-logs",\n        "tags": {\n'
            '          "team": "payments",\n          "env": "prod"\n        }\n      }\n    }\n  }\n}\n')
    project.path("main.tf.json").write_text(text)
    assert project.ctl("init", env=moto.env).code == 0
    project.ok("apply", "--auto-approve", env=moto.env)
    _retag(moto, {"team": "search", "env": "prod"})
    res = project.ctl("drift", "adopt", env=moto.env)
    assert res.code == 0, res
    assert project.path("main.tf.json").read_text() == text.replace('"payments"', '"search"')
    assert project.ctl("plan", "--detailed-exitcode", env=moto.env).code == 0
