"""HashiCorp's aws provider served as a plugin by ctl, beside Terraform 1.0.3 with the same binary,
each against a moto server of its own, through a whole lifecycle.

The configuration has fifteen resources: S3 buckets (for_each), one versioned, objects in the other,
two SQS queues joined by a redrive policy, an SNS topic with a subscription, a DynamoDB table, an IAM
role with an inline policy, a managed policy and their attachment, tags throughout, outputs, and an
SNS topic made outside either tool and imported. Every step (create, a tag change, a bucket rename,
the import, destroy) is planned by both tools into a saved plan: the planned action of every address
must agree, and after each apply the two moto servers must hold the same objects. Once everything
exists, each tool plans on the state the other wrote, against the other's server, and finds nothing
to change but what it finds on its own state too: moto gives a redrive policy back re-spaced, and
the provider plans its compact spelling again (``_respaced_only``).

The provider's schema is read once, by ``ctl init`` (ctl caches it under ``.ctl/plugins/schemas``);
every later command of the run reads the cache, as a user's would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.conftest import running_in_ci
from tests.e2e.helpers import Project, Result
from tests.plugin import terraform_cli
from tests.plugin.terraform_cli import TerraformDir
from tests.real_providers.aws_on_moto import AWS_ON_MOTO
from tests.servers import MotoServer, ServerError

T = TypeVar("T")
U = TypeVar("U")

# The provider waits for SQS attributes to settle (tens of seconds per queue), on top of its own start.
STEP_TIMEOUT = 300.0

CONFIG = AWS_ON_MOTO + r'''
variable "team" {
  type    = string
  default = "core"
}

variable "bucket_names" {
  type    = map(string)
  default = { logs = "ctl-logs", data = "ctl-data" }
}

locals {
  tags = { team = var.team, managed = "yes" }
}

resource "aws_s3_bucket" "b" {
  for_each = var.bucket_names
  bucket   = each.value
  tags     = merge(local.tags, { role = each.key })
}

# The logs bucket keeps versions; the objects live in the data bucket (an object deleted from a
# versioned bucket leaves a version behind, and then the bucket cannot be deleted).
resource "aws_s3_bucket_versioning" "b" {
  for_each = { for k, b in aws_s3_bucket.b : k => b if k == "logs" }
  bucket   = each.value.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_object" "file" {
  for_each     = toset(["README.txt", "notes.txt", "data.json"])
  bucket       = aws_s3_bucket.b["data"].id
  key          = each.key
  content      = "file ${each.key}\n"
  content_type = "text/plain"
}

resource "aws_sqs_queue" "dlq" {
  name = "ctl-dlq"
  tags = local.tags
}

resource "aws_sqs_queue" "work" {
  name                       = "ctl-work"
  visibility_timeout_seconds = 45
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = 3
  })
  tags = local.tags
}

resource "aws_sns_topic" "events" {
  name = "ctl-events"
  tags = local.tags
}

resource "aws_sns_topic_subscription" "work" {
  topic_arn = aws_sns_topic.events.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.work.arn
}

resource "aws_dynamodb_table" "items" {
  name         = "ctl-items"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = local.tags
}

resource "aws_iam_role" "app" {
  name = "ctl-app"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
  inline_policy {
    name = "read-queue"
    policy = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = ["sqs:ReceiveMessage"], Resource = aws_sqs_queue.work.arn }]
    })
  }
  tags = local.tags
}

resource "aws_iam_policy" "items" {
  name = "ctl-items"
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["dynamodb:GetItem"], Resource = aws_dynamodb_table.items.arn }]
  })
  tags = local.tags
}

resource "aws_iam_role_policy_attachment" "items" {
  role       = aws_iam_role.app.name
  policy_arn = aws_iam_policy.items.arn
}

output "bucket_arns" {
  value = { for k, b in aws_s3_bucket.b : k => b.arn }
}

output "queue_url" {
  value = aws_sqs_queue.work.url
}

output "table_arn" {
  value = aws_dynamodb_table.items.arn
}
'''

IMPORTED = '''
resource "aws_sns_topic" "audit" {
  name = "ctl-audit"
  tags = { team = "audit" }
}
'''

RENAMED = {"logs": "ctl-logs", "data": "ctl-data-2"}


# -- what the servers hold ------------------------------------------------------------------------


def _tags(pairs: list[dict[str, str]]) -> dict[str, str]:
    return {p["Key"]: p["Value"] for p in pairs}


def _moto_objects(server: MotoServer) -> dict[str, Any]:
    """Everything the configuration makes, as the AWS APIs describe it, without timestamps, ids moto
    draws at random, or the server's own address."""
    s3, sqs, sns = server.client("s3"), server.client("sqs"), server.client("sns")
    dynamodb, iam = server.client("dynamodb"), server.client("iam")
    out: dict[str, Any] = {}
    for bucket in sorted(b["Name"] for b in s3.list_buckets()["Buckets"]):
        objects = {}
        for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            got = s3.get_object(Bucket=bucket, Key=item["Key"])
            objects[item["Key"]] = (got["Body"].read().decode(), got["ContentType"])
        out[f"s3 {bucket}"] = {
            "tags": _tags(s3.get_bucket_tagging(Bucket=bucket)["TagSet"]),
            "versioning": s3.get_bucket_versioning(Bucket=bucket).get("Status"),
            "objects": objects,
        }
    for url in sorted(sqs.list_queues().get("QueueUrls", [])):
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        for drawn in ("CreatedTimestamp", "LastModifiedTimestamp"):
            attributes.pop(drawn, None)
        out[f"sqs {url.rsplit('/', 1)[1]}"] = {
            "attributes": attributes, "tags": sqs.list_queue_tags(QueueUrl=url).get("Tags", {})}
    for topic in sorted(t["TopicArn"] for t in sns.list_topics()["Topics"]):
        attributes = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
        out[f"sns {topic}"] = {
            "display_name": attributes.get("DisplayName"),
            "tags": _tags(sns.list_tags_for_resource(ResourceArn=topic)["Tags"]),
        }
    subscriptions = sns.list_subscriptions()["Subscriptions"]
    out["sns subscriptions"] = sorted((s["TopicArn"], s["Protocol"], s["Endpoint"]) for s in subscriptions)
    for table in sorted(dynamodb.list_tables()["TableNames"]):
        described = dynamodb.describe_table(TableName=table)["Table"]
        out[f"dynamodb {table}"] = {
            "keys": described["KeySchema"],
            "attributes": described["AttributeDefinitions"],
            "billing": described.get("BillingModeSummary", {}).get("BillingMode"),
            "tags": _tags(dynamodb.list_tags_of_resource(ResourceArn=described["TableArn"])["Tags"]),
        }
    for role in sorted(r["RoleName"] for r in iam.list_roles()["Roles"]):
        got = iam.get_role(RoleName=role)["Role"]
        out[f"iam role {role}"] = {
            "assume": got["AssumeRolePolicyDocument"],
            "tags": _tags(got.get("Tags", [])),
            "inline": {name: iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"]
                       for name in iam.list_role_policies(RoleName=role)["PolicyNames"]},
            "attached": sorted(p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName=role)
                               ["AttachedPolicies"]),
        }
    for policy in iam.list_policies(Scope="Local")["Policies"]:
        version = iam.get_policy_version(PolicyArn=policy["Arn"], VersionId=policy["DefaultVersionId"])
        out[f"iam policy {policy['PolicyName']}"] = {
            "document": version["PolicyVersion"]["Document"],
            "tags": _tags(iam.list_policy_tags(PolicyArn=policy["Arn"])["Tags"]),
        }
    return json.loads(json.dumps(out, default=str).replace(server.url, "MOTO"))


# -- the two tools --------------------------------------------------------------------------------


def _actions(plan_json: dict[str, Any]) -> dict[str, list[str]]:
    return {rc["address"]: rc["change"]["actions"] for rc in plan_json["resource_changes"]
            if rc["change"]["actions"] != ["no-op"]}


def _respaced_only(plan_json: dict[str, Any]) -> bool:
    """Whether the plan changes nothing but the spacing of the work queue's redrive policy.

    moto gives a queue's redrive policy back re-serialized with spaces, and the provider plans its
    compact form again on every plan after a refresh: Terraform and ctl alike plan that update on
    their own state, so it is the one change a no-change plan may hold.
    """
    for change in plan_json["resource_changes"]:
        if change["change"]["actions"] == ["no-op"]:
            continue
        if change["address"] != "aws_sqs_queue.work" or change["change"]["actions"] != ["update"]:
            return False
        before, after = change["change"]["before"], change["change"]["after"]
        differing = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        if differing != {"redrive_policy"} or \
                json.loads(before["redrive_policy"]) != json.loads(after["redrive_policy"]):
            return False
    return True


# The provider's AWS SDK (aws-sdk-go-v2 before v1.33, which 5.45.0 bundles) does not retry a call whose
# connection was closed under it while the answer was read (aws/aws-sdk-go-v2#2737): now and then one
# call fails with this message, under Terraform as under ctl (bench/README.md, aws_race.py, counts it).
# A user runs the command again; so does the test.
PROVIDER_CONNECTION_RACE = "use of closed network connection"

# When the lost answer was to a create that moto carried out, the next plan creates the object again
# and the API refuses it as existing. A user adopts it with an import and applies again; so does the
# test. What a user would import for each address whose create the API refuses a second time (S3,
# SQS, SNS and attachments are created again without complaint; these are not).
ALREADY_EXISTS = ("EntityAlreadyExists", "ResourceInUseException", "already exists")
IMPORT_IDS = {
    "aws_iam_role.app": "ctl-app",
    "aws_iam_policy.items": "arn:aws:iam::123456789012:policy/ctl-items",
    "aws_dynamodb_table.items": "ctl-items",
}
_FAILED_ADDRESS = re.compile(r"^[\s│]*with ([\w.\[\]\"-]+),", re.MULTILINE)  # both tools' diagnostics


def existing(output: str) -> list[str]:
    """The addresses whose create failed because the object exists already, as the error says."""
    found: list[str] = []
    for block in output.split("Error:")[1:]:
        if any(marker in block for marker in ALREADY_EXISTS):
            found += [a for a in _FAILED_ADDRESS.findall(block) if a not in found]
    return found


def _both(on_ctl: Callable[[], T], on_terraform: Callable[[], U]) -> tuple[T, U]:
    """Run one step in both tools at once (most of a step is waiting on the provider and moto)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        ours, theirs = pool.submit(on_ctl), pool.submit(on_terraform)
        return ours.result(), theirs.result()


class Side:
    """One tool's directory, pointed at one moto server."""

    def __init__(self, work: Path, moto: MotoServer) -> None:
        work.mkdir(parents=True)
        (work / "main.tf").write_text(CONFIG)
        self.work, self.moto = work, moto
        self.settings(moto)

    def settings(self, moto: MotoServer, team: str = "core", buckets: dict[str, str] | None = None) -> None:
        """The step's variables, in terraform.tfvars, which both tools read."""
        chosen = buckets or {"logs": "ctl-logs", "data": "ctl-data"}
        names = ", ".join(f'{k} = "{v}"' for k, v in chosen.items())
        (self.work / "terraform.tfvars").write_text(
            f'moto = "{moto.url}"\nteam = "{team}"\nbucket_names = {{ {names} }}\n')

    # -- what each tool provides --------------------------------------------------------------------

    def plan(self, *args: str) -> dict[str, Any]:
        raise NotImplementedError

    def try_apply(self) -> tuple[bool, str]:
        """Apply the saved plan once: whether it succeeded, and its output."""
        raise NotImplementedError

    def adopt(self, address: str, resource_id: str) -> None:
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------------

    def apply(self, *plan_args: str) -> None:
        """Apply the saved plan as a user would: after the provider's connection race, plan and apply
        again; when that finds an object whose create's answer the race lost, import it and go on."""
        ok, output = self.try_apply()
        if ok:
            return
        if PROVIDER_CONNECTION_RACE not in output:
            pytest.fail(f"{type(self).__name__} apply failed:\n{output}", pytrace=False)
        self.plan(*plan_args)
        ok, output = self.try_apply()
        adopted = existing(output)
        if not ok and adopted and all(a in IMPORT_IDS for a in adopted):
            for address in adopted:
                self.adopt(address, IMPORT_IDS[address])
            self.plan(*plan_args)
            ok, output = self.try_apply()
        if not ok:
            pytest.fail(f"{type(self).__name__} apply after the connection race failed:\n{output}", pytrace=False)


class CtlSide(Side):
    def __init__(self, work: Path, moto: MotoServer) -> None:
        super().__init__(work, moto)
        self.project = Project(work)

    def run(self, *args: str, expect: int = 0) -> Result:
        result = self.project.ctl(*args, timeout=STEP_TIMEOUT)
        if result.code != expect and PROVIDER_CONNECTION_RACE in result.output:  # a plan's refresh
            result = self.project.ctl(*args, timeout=STEP_TIMEOUT)
        if result.code != expect:
            pytest.fail(f"expected exit {expect}: {result}", pytrace=False)
        return result

    def plan(self, *args: str) -> dict[str, Any]:
        self.run("plan", "--out", "ctlplan", *args)
        return json.loads(self.run("show", "--json", "ctlplan").stdout)

    def try_apply(self) -> tuple[bool, str]:
        result = self.project.ctl("apply", "ctlplan", timeout=STEP_TIMEOUT)
        return result.code == 0, str(result)

    def adopt(self, address: str, resource_id: str) -> None:
        self.run("import", address, resource_id)


class TerraformSide(Side):
    def __init__(self, work: Path, moto: MotoServer, mirror: Path) -> None:
        super().__init__(work, moto)
        self.terraform = TerraformDir(work, mirror)

    def run(self, command: str, *args: str, expect: int | None = 0) -> terraform_cli.Result:
        result = self.terraform.run(command, "-input=false", "-no-color", *args, expect=None)
        if result.returncode != 0 and PROVIDER_CONNECTION_RACE in result.output:  # a plan's refresh
            result = self.terraform.run(command, "-input=false", "-no-color", *args, expect=None)
        if expect is not None and result.returncode != expect:
            pytest.fail(f"terraform {command} exited {result.returncode}:\n{result.output}", pytrace=False)
        return result

    def plan(self, *args: str) -> dict[str, Any]:
        self.run("plan", "-out=tfplan", *args)
        return json.loads(self.terraform.run("show", "-json", "tfplan").stdout)

    def try_apply(self) -> tuple[bool, str]:
        result = self.terraform.run("apply", "-input=false", "-no-color", "tfplan", expect=None)
        return result.returncode == 0, result.output

    def adopt(self, address: str, resource_id: str) -> None:
        self.run("import", address, resource_id)


@pytest.fixture
def second_moto() -> Iterator[MotoServer]:
    """A moto server of Terraform's own, so that the two tools' objects can be compared by name."""
    server = MotoServer()
    try:
        server.start()
    except ServerError as exc:
        if running_in_ci():
            pytest.fail(f"moto could not be started: {exc}", pytrace=False)
        pytest.skip(f"moto could not be started: {exc}")
    yield server
    server.stop()


@pytest.mark.timeout(900)
def test_aws_lifecycle_served_by_the_plugin_as_terraform(
    tmp_path: Path, aws_provider: Path, moto_server_clean: MotoServer, second_moto: MotoServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terraform_cli, "TERRAFORM_TIMEOUT", STEP_TIMEOUT)
    ctl = CtlSide(tmp_path / "ctl", moto_server_clean)
    terraform = TerraformSide(tmp_path / "terraform", second_moto, aws_provider)
    sides = (ctl, terraform)

    def step(name: str, *, destroy: bool = False) -> dict[str, list[str]]:
        """Plan in both (saved), compare the actions, apply both, compare what moto holds."""
        extra = ("-destroy",) if destroy else ()
        ours, theirs = _both(lambda: ctl.plan(*extra), lambda: terraform.plan(*extra))
        assert _actions(ours) == _actions(theirs), name
        _both(lambda: ctl.apply(*extra), lambda: terraform.apply(*extra))
        assert _moto_objects(ctl.moto) == _moto_objects(terraform.moto), name
        return _actions(ours)

    def no_changes(name: str) -> None:
        ours, theirs = _both(ctl.plan, terraform.plan)
        assert _respaced_only(theirs), (name, _actions(theirs))
        assert _respaced_only(ours), (name, _actions(ours))

    initialized, _ = _both(lambda: ctl.run("init", "-plugin-dir", str(aws_provider)),
                           lambda: terraform.run("init", f"-plugin-dir={aws_provider}"))
    assert "Using provider plugin aws" in initialized.output  # every aws type is the plugin's

    created = step("create")
    assert len(created) == 14 and all(a == ["create"] for a in created.values()), created
    made = _moto_objects(ctl.moto)
    assert made["s3 ctl-data"]["objects"]["README.txt"] == ["file README.txt\n", "text/plain"]
    assert made["s3 ctl-logs"]["versioning"] == "Enabled"
    assert made["iam role ctl-app"]["inline"].keys() == {"read-queue"}

    for side in sides:
        side.settings(side.moto, team="platform")
    retagged = step("tag change")
    assert retagged and all(a == ["update"] for a in retagged.values()), retagged
    assert _moto_objects(ctl.moto)["dynamodb ctl-items"]["tags"] == {"team": "platform", "managed": "yes"}

    # A rename replaces the bucket (and what lives in it): the new one exists, the old one is gone.
    for side in sides:
        side.settings(side.moto, team="platform", buckets=RENAMED)
    renamed = step("bucket rename")
    assert renamed['aws_s3_bucket.b["data"]'] == ["delete", "create"], renamed
    held = _moto_objects(ctl.moto)
    assert "s3 ctl-data" not in held
    assert held["s3 ctl-data-2"]["objects"].keys() == {"README.txt", "notes.txt", "data.json"}

    # A topic made outside either tool is adopted by import, and then plans no change.
    for side in sides:
        topic = side.moto.client("sns").create_topic(Name="ctl-audit", Tags=[{"Key": "team", "Value": "audit"}])
        with (side.work / "main.tf").open("a") as f:
            f.write(IMPORTED)
    arn = topic["TopicArn"]  # the same in both servers: one account, one region
    _both(lambda: ctl.run("import", "aws_sns_topic.audit", arn),
          lambda: terraform.run("import", "aws_sns_topic.audit", arn))
    assert len(ctl.project.instances()) == 15

    # Each tool reads the state the other wrote, against the other's server, and plans no change:
    # so each tool's own state, after every step above, is the one the other would have written.
    ctl_state, terraform_state = ctl.project.state_file, terraform.work / "terraform.tfstate"
    written_by_ctl, written_by_terraform = ctl_state.read_text(), terraform_state.read_text()
    ctl_state.write_text(written_by_terraform)
    terraform_state.write_text(written_by_ctl)
    ctl.settings(terraform.moto, team="platform", buckets=RENAMED)
    terraform.settings(ctl.moto, team="platform", buckets=RENAMED)
    no_changes("each tool on the state the other wrote")
    ctl_state.write_text(written_by_ctl)
    terraform_state.write_text(written_by_terraform)
    for side in sides:
        side.settings(side.moto, team="platform", buckets=RENAMED)

    destroyed = step("destroy", destroy=True)
    assert len(destroyed) == 15 and all(a == ["delete"] for a in destroyed.values()), destroyed
    left = _moto_objects(ctl.moto)
    assert [name for name in left if name != "sns subscriptions"] == [], left
