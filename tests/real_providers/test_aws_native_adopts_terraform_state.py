"""A state Terraform 1.0.3 wrote with HashiCorp's aws provider, adopted by ctl's native aws adapters.

A team moving from Terraform copies its state and runs ``ctl init -native=true`` and ``ctl plan``.
The provider records arguments the configuration leaves unset as ``""`` or their defaults (and
attributes the native adapters do not know); the native adapters must read those as the same
values, or the first plan replaces the objects, deleting what they hold. Terraform's own re-plan of
the stack says "No changes", and so must ctl's; a real change (a tag) still plans as an update.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin import terraform_cli
from tests.plugin.terraform_cli import TerraformDir
from tests.real_providers.aws_on_moto import AWS_ON_MOTO
from tests.servers import MotoServer

STEP_TIMEOUT = 300.0

STACK = AWS_ON_MOTO + r'''
variable "team" {
  type    = string
  default = "core"
}

locals {
  tags = { team = var.team }
}

resource "aws_s3_bucket" "data" {
  bucket = "adopt-data"
  tags   = local.tags
}

resource "aws_s3_bucket_versioning" "data" {
  bucket = aws_s3_bucket.data.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_object" "readme" {
  bucket       = aws_s3_bucket.data.id
  key          = "README.txt"
  content      = "hello\n"
  content_type = "text/plain"
}

resource "aws_sqs_queue" "dlq" {
  name = "adopt-dlq"
  tags = local.tags
}

resource "aws_sqs_queue" "work" {
  name                       = "adopt-work"
  visibility_timeout_seconds = 45
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 3
  })
}

resource "aws_sns_topic" "events" {
  name = "adopt-events"
}

resource "aws_sns_topic_subscription" "work" {
  topic_arn = aws_sns_topic.events.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.work.arn
}

resource "aws_dynamodb_table" "items" {
  name         = "adopt-items"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}

resource "aws_iam_role" "app" {
  name = "adopt-app"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "items" {
  name = "read-items"
  role = aws_iam_role.app.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["dynamodb:GetItem"], Resource = aws_dynamodb_table.items.arn }]
  })
}
'''


def _changes(plan_json: dict[str, Any]) -> dict[str, list[str]]:
    return {rc["address"]: rc["change"]["actions"] for rc in plan_json["resource_changes"]
            if rc["change"]["actions"] != ["no-op"]}


def _drift(plan_json: dict[str, Any]) -> dict[str, dict[str, tuple[Any, Any]]]:
    """Address -> attribute -> (recorded, read back), for what the plan's refresh found changed."""
    out = {}
    for rc in plan_json.get("resource_drift", []):
        before, after = rc["change"]["before"] or {}, rc["change"]["after"] or {}
        changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
                   if before.get(k) != after.get(k)}
        if changed:
            out[rc["address"]] = changed
    return out


def _respaced_only(plan_json: dict[str, Any]) -> dict[str, list[str]]:
    """The plan's changes, less an update of the work queue that only re-spaces its redrive policy
    (moto gives it back with spaces; the provider under Terraform plans that update too)."""
    out = _changes(plan_json)
    for rc in plan_json["resource_changes"]:
        if rc["address"] == "aws_sqs_queue.work" and rc["change"]["actions"] == ["update"]:
            before, after = rc["change"]["before"], rc["change"]["after"]
            differing = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
            if differing == {"redrive_policy"} and \
                    json.loads(before["redrive_policy"]) == json.loads(after["redrive_policy"]):
                out.pop(rc["address"])
    return out


@pytest.mark.timeout(900)
def test_native_adapters_plan_no_change_on_terraforms_state(
    tmp_path: Path, aws_provider: Path, moto_server_clean: MotoServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terraform_cli, "TERRAFORM_TIMEOUT", STEP_TIMEOUT)
    moto = moto_server_clean
    tfvars = f'moto = "{moto.url}"\n'

    theirs = tmp_path / "terraform"
    theirs.mkdir()
    (theirs / "main.tf").write_text(STACK)
    (theirs / "terraform.tfvars").write_text(tfvars)
    terraform = TerraformDir(theirs, aws_provider)
    terraform.run("init", "-input=false", "-no-color", f"-plugin-dir={aws_provider}")
    terraform.run("apply", "-input=false", "-no-color", "-auto-approve")
    replanned = terraform.run("plan", "-input=false", "-no-color", "-out=tfplan")
    theirs_replanned = json.loads(terraform.run("show", "-json", "tfplan").stdout)
    assert "No changes" in replanned.output or _respaced_only(theirs_replanned) == {}, replanned.output

    ours = tmp_path / "ctl"
    ours.mkdir()
    shutil.copy(theirs / "main.tf", ours / "main.tf")
    (ours / "terraform.tfvars").write_text(tfvars)
    project = Project(ours)
    project.ok("init", "-native=true")
    shutil.copy(theirs / "terraform.tfstate", project.state_file)

    def plan() -> dict[str, Any]:
        result = project.ctl("plan", "--out", "ctlplan", timeout=STEP_TIMEOUT)
        assert result.code == 0, result
        shown = project.ctl("show", "--json", "ctlplan", timeout=STEP_TIMEOUT)
        assert shown.code == 0, shown
        return dict(json.loads(shown.stdout))

    adopted = plan()
    assert _respaced_only(adopted) == {}, _changes(adopted)
    # The attributes the native adapters do not know are still in the state the plan read.
    prior = {r["address"]: r["values"] for r in adopted["prior_state"]["values"]["root_module"]["resources"]}
    assert "hosted_zone_id" in prior["aws_s3_bucket.data"]
    # Nor does the refresh report values read back in another spelling as changed outside ctl: what
    # it reports, Terraform's own refresh reports too (the bucket's versioning, recorded when the
    # bucket was made and turned on by aws_s3_bucket_versioning after).
    ours_drift, theirs_drift = _drift(adopted), _drift(theirs_replanned)
    assert {(address, name): change for address, changes in ours_drift.items() for name, change in changes.items()
            if theirs_drift.get(address, {}).get(name) != change} == {}, (ours_drift, theirs_drift)

    # A real change still plans, in place: the test fails both ways.
    (ours / "terraform.tfvars").write_text(tfvars + 'team = "platform"\n')
    retagged = _respaced_only(plan())
    assert retagged == {"aws_s3_bucket.data": ["update"], "aws_sqs_queue.dlq": ["update"]}, retagged
