"""The state ctl's native aws adapters write, beside the state HashiCorp's aws provider writes.

One configuration is applied by Terraform 1.0.3 with hashicorp/aws 5.45.0, then (moto emptied in
between, so every object has the same name) by ctl with its native adapters (``ctl init
-native=true``). Per resource type the two states must record the same attributes with the same
values — ``""`` where the provider writes ``""``, the provider's defaults (a queue's
``max_message_size`` 262,144, not moto's 1,048,576), the computed attributes it records
(``hosted_zone_id``, an object's ``arn`` and ``storage_class``) — the same ``schema_version`` and
the same transitive ``dependencies``. Only values that differ per object however it is made are left
out of the comparison, by name, in ``PER_OBJECT`` with the reason.

Then the state ctl wrote natively is handed to Terraform and to ctl with the plugin
(``-native=false``): both plan no change, so a team can move a stack between the two either way
(the other direction is ``test_aws_native_adopts_terraform_state.py``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin import terraform_cli
from tests.plugin.terraform_cli import TerraformDir
from tests.real_providers.aws_on_moto import AWS_ON_MOTO
from tests.servers import MotoServer

# The provider waits for SQS attributes to settle (tens of seconds per queue), on top of its own start.
STEP_TIMEOUT = 300.0

CONFIG = AWS_ON_MOTO + r'''
locals {
  tags = { team = "core" }
}

resource "aws_s3_bucket" "data" {
  bucket = "state-data"
  tags   = local.tags
}

resource "aws_s3_object" "readme" {
  bucket       = aws_s3_bucket.data.id
  key          = "README.txt"
  content      = "hello\n"
  content_type = "text/plain"
}

resource "aws_s3_object" "notes" {
  bucket  = aws_s3_bucket.data.id
  key     = "notes.txt"
  content = "notes\n"
}

# Depends on the object, which depends on the bucket: Terraform records both, transitively.
resource "aws_sqs_queue" "work" {
  name                       = "state-work"
  visibility_timeout_seconds = 45
  tags                       = merge(local.tags, { readme = aws_s3_object.readme.etag })
}

resource "aws_sqs_queue" "plain" {
  name = "state-plain"
}

resource "aws_sqs_queue" "ordered" {
  name                        = "state-ordered.fifo"
  fifo_queue                  = true
  content_based_deduplication = true
}

resource "aws_s3_bucket" "versioned" {
  bucket = "state-versioned"
}

resource "aws_s3_bucket_versioning" "versioned" {
  bucket = aws_s3_bucket.versioned.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "versioned" {
  bucket = aws_s3_bucket.versioned.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "versioned" {
  bucket                  = aws_s3_bucket.versioned.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "versioned" {
  bucket = aws_s3_bucket.versioned.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:DeleteBucket"
      Resource  = aws_s3_bucket.versioned.arn
    }]
  })
}

resource "aws_sns_topic" "events" {
  name = "state-events"
  tags = local.tags
}

resource "aws_sns_topic_subscription" "plain" {
  topic_arn = aws_sns_topic.events.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.plain.arn
}

resource "aws_dynamodb_table" "items" {
  name         = "state-items"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = local.tags
}

resource "aws_iam_role" "app" {
  name = "state-app"
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

# Attributes the provider records and a configuration may refer to.
output "bucket_zone" {
  value = aws_s3_bucket.data.hosted_zone_id
}

output "readme_arn" {
  value = aws_s3_object.readme.arn
}

output "readme_class" {
  value = aws_s3_object.readme.storage_class
}
'''

# Attributes whose value differs per object however it is made, so only their presence is compared.
# Both tools make the same objects under the same names on one moto server (emptied between), so
# names, ARNs, queue URLs and the ACL's owner id agree, and the objects' bucket is not versioned.
# Type -> attribute -> why.
PER_OBJECT: dict[str, dict[str, str]] = {
    "aws_iam_role": {
        "unique_id": "IAM generates it for each role it makes",
        "create_date": "the time the role was made",
    },
    "aws_sns_topic_subscription": {
        "id": "the subscription ARN: the topic's ARN and a UUID SNS generates",
        "arn": "the same ARN",
    },
}


@dataclass
class Applied:
    """The configuration applied by both tools, and the state each wrote."""

    terraform: TerraformDir
    provider_state: dict[str, Any]
    native: Project
    native_state: dict[str, Any]
    moto: MotoServer


def _by_address(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``type.name`` -> the single instance (with the resource's type and schema version)."""
    out = {}
    for resource in state["resources"]:
        if resource["mode"] == "managed":
            for instance in resource["instances"]:
                out[f'{resource["type"]}.{resource["name"]}'] = {"type": resource["type"], **instance}
    return out


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory, aws_provider: Path,
            moto_server: MotoServer) -> Iterator[Applied]:
    """Terraform applies the configuration, moto is emptied, then ctl applies it natively."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(terraform_cli, "TERRAFORM_TIMEOUT", STEP_TIMEOUT)
        moto_server.reset()
        tfvars = f'moto = "{moto_server.url}"\n'
        root = tmp_path_factory.mktemp("native-state")

        theirs = root / "terraform"
        theirs.mkdir()
        (theirs / "main.tf").write_text(CONFIG)
        (theirs / "terraform.tfvars").write_text(tfvars)
        terraform = TerraformDir(theirs, aws_provider)
        terraform.init()
        terraform.apply()
        provider_state = terraform.state()
        moto_server.reset()

        ours = root / "native"
        ours.mkdir()
        (ours / "main.tf").write_text(CONFIG)
        (ours / "terraform.tfvars").write_text(tfvars)
        native = Project(ours)
        native.ok("init", "-native=true")
        applied = native.ctl("apply", "--auto-approve", timeout=STEP_TIMEOUT)
        assert applied.code == 0, applied
        yield Applied(terraform, provider_state, native, native.state(), moto_server)
        moto_server.reset()


def _differences(provider: dict[str, Any], native: dict[str, Any]) -> list[str]:
    """What the native instance records otherwise than the provider's, one line per attribute."""
    ignored = PER_OBJECT.get(provider["type"], {})
    lines = []
    theirs, ours = provider["attributes"], native["attributes"]
    for name in sorted(theirs.keys() - ours.keys()):
        lines.append(f"{name}: missing (the provider records {theirs[name]!r})")
    for name in sorted(ours.keys() - theirs.keys()):
        lines.append(f"{name}: {ours[name]!r} is not an attribute the provider records")
    for name in sorted(theirs.keys() & ours.keys()):
        if name not in ignored and theirs[name] != ours[name]:
            lines.append(f"{name}: {ours[name]!r}, the provider records {theirs[name]!r}")
    for key in ("schema_version", "sensitive_attributes"):
        if provider.get(key) != native.get(key):
            lines.append(f"{key}: {native.get(key)!r}, the provider records {provider.get(key)!r}")
    if sorted(provider.get("dependencies") or []) != sorted(native.get("dependencies") or []):
        lines.append(f"dependencies: {sorted(native.get('dependencies') or [])}, "
                     f"the provider records {sorted(provider.get('dependencies') or [])}")
    return lines


ADDRESSES = ["aws_s3_bucket.data", "aws_s3_object.readme", "aws_s3_object.notes", "aws_sqs_queue.work",
             "aws_sqs_queue.plain", "aws_sqs_queue.ordered", "aws_s3_bucket.versioned",
             "aws_s3_bucket_versioning.versioned", "aws_s3_bucket_server_side_encryption_configuration.versioned",
             "aws_s3_bucket_public_access_block.versioned", "aws_s3_bucket_policy.versioned",
             "aws_sns_topic.events", "aws_sns_topic_subscription.plain", "aws_dynamodb_table.items",
             "aws_iam_role.app", "aws_iam_role_policy.items"]


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("address", ADDRESSES)
def test_native_instance_records_what_the_provider_records(applied: Applied, address: str) -> None:
    provider, native = _by_address(applied.provider_state), _by_address(applied.native_state)
    assert _differences(provider[address], native[address]) == []


@pytest.mark.timeout(1200)
def test_native_outputs_are_the_providers(applied: Applied) -> None:
    """References to attributes only the provider used to record evaluate natively, to its values."""
    def values(state: dict[str, Any]) -> dict[str, Any]:
        return {name: output["value"] for name, output in state["outputs"].items()}

    assert values(applied.native_state) == values(applied.provider_state)
    assert values(applied.native_state)["readme_class"] == "STANDARD"


@pytest.mark.timeout(1200)
def test_terraform_plans_no_change_on_the_native_state(applied: Applied) -> None:
    terraform = applied.terraform
    terraform.write_state(applied.native_state)
    planned = terraform.plan("-refresh=false", expect=None)
    assert planned.returncode == 0, planned.output
    refreshed = terraform.plan(expect=None)
    assert refreshed.returncode == 0, refreshed.output


@pytest.mark.timeout(1200)
def test_ctl_with_the_plugin_plans_no_change_on_the_native_state(applied: Applied, tmp_path: Path) -> None:
    plugin = Project(tmp_path)
    shutil.copy(applied.native.path("main.tf"), plugin.path("main.tf"))
    shutil.copy(applied.native.path("terraform.tfvars"), plugin.path("terraform.tfvars"))
    init = plugin.ctl("init", "-native=false", f"-plugin-dir={applied.terraform.plugin_dir}", timeout=STEP_TIMEOUT)
    assert init.code == 0, init
    plugin.state_file.write_text(json.dumps(applied.native_state))
    for extra in (["-refresh=false"], []):
        planned = plugin.ctl("plan", "--detailed-exitcode", *extra, timeout=STEP_TIMEOUT)
        assert planned.code == 0, planned
