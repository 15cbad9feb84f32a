"""The ``aws_dynamodb_table`` and ``aws_sqs_queue`` arguments the corpus configurations use, through
``ctl`` against moto: ``deletion_protection_enabled``, ``global_secondary_index``, ``ttl`` and
``point_in_time_recovery`` on tables, ``sqs_managed_sse_enabled`` and ``redrive_policy`` on queues.

Every step is checked on the server with boto3 as well as in ctl's plan and state.

moto limits found (moto 5.2): it keeps every setting exercised here, but it creates and deletes
indexes at once (status ACTIVE immediately), so the waits for index changes return on their first
poll; it keeps the attribute definitions of a deleted index (AWS drops them, and refresh reports
only key attributes, which is what makes the re-plan after removing an index a no-op on both); it
reports ``RecoveryPeriodInDays`` 35 unless told otherwise; and new queues have
``SqsManagedSseEnabled`` on, as on AWS since 2022. moto checks that a redrive policy's dead-letter
queue exists, as SQS does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
TABLE = "aws_dynamodb_table.t"
KEYS = ("pk", "owner", "zone")  # every key of the indexes below


# ---- aws_dynamodb_table ----------------------------------------------------------------------------


def table_config(*, protected: bool | None = None, indexes: str = "", ttl: str = "", pitr: str = "",
                 attributes: tuple[str, ...] = ("pk",)) -> str:
    protection = "" if protected is None else f"deletion_protection_enabled = {str(protected).lower()}"
    blocks = "".join(f'\n  attribute {{\n    name = "{a}"\n    type = "S"\n  }}' for a in attributes)
    return f"""
resource "aws_dynamodb_table" "t" {{
  name         = "catalog"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  {protection}
{blocks}
{indexes}
{ttl}
{pitr}
}}
"""


BY_OWNER = """
  global_secondary_index {
    name            = "by_owner"
    hash_key        = "owner"
    range_key       = "pk"
    projection_type = "ALL"
  }"""
BY_ZONE = """
  global_secondary_index {
    name            = "by_zone"
    hash_key        = "zone"
    projection_type = "KEYS_ONLY"
  }"""
BY_ZONE_INCLUDE = """
  global_secondary_index {
    name               = "by_zone"
    hash_key           = "zone"
    projection_type    = "INCLUDE"
    non_key_attributes = ["size", "created"]
  }"""
BY_OWNER_ZONE = """
  global_secondary_index {
    name            = "by_owner_zone"
    hash_key        = "owner"
    range_key       = "zone"
    projection_type = "KEYS_ONLY"
  }"""


def ttl_block(enabled: bool, attribute: str | None = "expires_at") -> str:
    name = f'\n    attribute_name = "{attribute}"' if attribute else ""
    return f"\n  ttl {{{name}\n    enabled = {str(enabled).lower()}\n  }}"


def pitr_block(enabled: bool) -> str:
    return f"\n  point_in_time_recovery {{\n    enabled = {str(enabled).lower()}\n  }}"


def described(aws: AwsProject, name: str = "catalog") -> dict[str, Any]:
    return dict(aws.client("dynamodb").describe_table(TableName=name)["Table"])


def indexes_on_server(aws: AwsProject) -> dict[str, dict[str, Any]]:
    return {g["IndexName"]: {"keys": {k["KeyType"]: k["AttributeName"] for k in g["KeySchema"]},
                             "projection": g["Projection"]}
            for g in described(aws).get("GlobalSecondaryIndexes", [])}


def ttl_on_server(aws: AwsProject) -> dict[str, Any]:
    return dict(aws.client("dynamodb").describe_time_to_live(TableName="catalog")["TimeToLiveDescription"])


def pitr_on_server(aws: AwsProject) -> str:
    backups = aws.client("dynamodb").describe_continuous_backups(TableName="catalog")
    return str(backups["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"])


def test_deletion_protection_create_update_drift_and_destroy(aws: AwsProject) -> None:
    aws.setup(table_config(protected=True))
    aws.apply()
    assert described(aws)["DeletionProtectionEnabled"] is True
    assert aws.attrs(TABLE)["deletion_protection_enabled"] is True
    aws.assert_noop()

    # a protected table refuses destroy, with the way out in the message; the table stays
    res = aws.ctl("destroy", "--auto-approve")
    assert res.code == 1 and "Traceback" not in res.output, str(res)
    assert "protected from deletion" in res.output and "deletion_protection_enabled = false" in res.output
    assert described(aws)["TableStatus"] == "ACTIVE"

    # in place, the same table
    arn = described(aws)["TableArn"]
    aws.setup(table_config(protected=False))
    assert "0 added, 1 changed, 0 destroyed" in aws.apply().stdout
    assert described(aws)["DeletionProtectionEnabled"] is False and described(aws)["TableArn"] == arn
    aws.assert_noop()

    # drift: protection turned on behind ctl's back is reported and turned off again
    aws.client("dynamodb").update_table(TableName="catalog", DeletionProtectionEnabled=True)
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "deletion_protection_enabled" in out
    aws.apply()
    assert described(aws)["DeletionProtectionEnabled"] is False

    # unset means off (Terraform's default): no change for an unprotected table
    aws.setup(table_config())
    aws.assert_noop()
    aws.ok("destroy", "--auto-approve")
    assert aws.client("dynamodb").list_tables()["TableNames"] == []


def test_global_secondary_indexes_are_created_and_changed_in_place(aws: AwsProject) -> None:
    aws.setup(table_config(attributes=KEYS, indexes=BY_ZONE + BY_OWNER))  # out of order: kept sorted
    aws.apply()
    assert indexes_on_server(aws) == {
        "by_owner": {"keys": {"HASH": "owner", "RANGE": "pk"}, "projection": {"ProjectionType": "ALL"}},
        "by_zone": {"keys": {"HASH": "zone"}, "projection": {"ProjectionType": "KEYS_ONLY"}},
    }
    state = aws.attrs(TABLE)
    assert [g["name"] for g in state["global_secondary_index"]] == ["by_owner", "by_zone"]
    assert state["global_secondary_index"][1] == {
        "name": "by_zone", "hash_key": "zone", "range_key": None, "projection_type": "KEYS_ONLY",
        "non_key_attributes": None, "read_capacity": 0, "write_capacity": 0}
    aws.assert_noop()
    arn = described(aws)["TableArn"]

    # a new projection rebuilds that index; an index over attributes already defined is added;
    # neither replaces the table
    aws.setup(table_config(attributes=KEYS, indexes=BY_OWNER + BY_ZONE_INCLUDE + BY_OWNER_ZONE))
    res = aws.apply()
    assert "0 added, 1 changed, 0 destroyed" in res.stdout, res.stdout
    found = indexes_on_server(aws)
    assert sorted(found) == ["by_owner", "by_owner_zone", "by_zone"]
    assert found["by_zone"]["projection"]["ProjectionType"] == "INCLUDE"
    assert sorted(found["by_zone"]["projection"]["NonKeyAttributes"]) == ["created", "size"]
    assert described(aws)["TableArn"] == arn
    assert aws.attrs(TABLE)["global_secondary_index"][2]["non_key_attributes"] == ["created", "size"]
    aws.assert_noop()

    # removed in place while its attributes stay keys of other indexes
    aws.setup(table_config(attributes=KEYS, indexes=BY_OWNER + BY_ZONE_INCLUDE))
    assert "1 changed" in aws.apply().stdout
    assert sorted(indexes_on_server(aws)) == ["by_owner", "by_zone"]
    aws.assert_noop()

    # drift: an index deleted behind ctl's back is created again
    aws.client("dynamodb").update_table(TableName="catalog",
                                        GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_owner"}}])
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "by_owner" in out
    aws.apply()
    assert sorted(indexes_on_server(aws)) == ["by_owner", "by_zone"]
    aws.assert_noop()


def test_an_index_on_a_new_attribute_replaces_the_table(aws: AwsProject) -> None:
    """A change to ``attribute`` replaces the table (the engine decides replacement per argument, and
    without indexes the attributes are the table's keys); Terraform would add such an index in place.
    The plan says so before anything is destroyed."""
    aws.setup(table_config())
    aws.apply()
    aws.setup(table_config(attributes=("pk", "zone"), indexes=BY_ZONE))
    code, out = aws.plan_code()
    assert code == 2 and "must be replaced" in out and "1 to add, 0 to change, 1 to destroy" in out


def test_ttl_and_point_in_time_recovery(aws: AwsProject) -> None:
    aws.setup(table_config(ttl=ttl_block(True), pitr=pitr_block(True)))
    aws.apply()
    assert ttl_on_server(aws) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}
    assert pitr_on_server(aws) == "ENABLED"
    state = aws.attrs(TABLE)
    assert state["ttl"] == [{"attribute_name": "expires_at", "enabled": True}]
    assert state["point_in_time_recovery"] == [{"enabled": True, "recovery_period_in_days": 35}]
    aws.assert_noop()

    # in place: another TTL attribute (off, then on again), then both off
    aws.setup(table_config(ttl=ttl_block(True, "valid_until"), pitr=pitr_block(True)))
    assert "1 changed" in aws.apply().stdout
    assert ttl_on_server(aws) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "valid_until"}
    aws.setup(table_config(ttl=ttl_block(False, None), pitr=pitr_block(False)))
    assert "1 changed" in aws.apply().stdout
    assert ttl_on_server(aws)["TimeToLiveStatus"] == "DISABLED"
    assert pitr_on_server(aws) == "DISABLED"
    assert aws.attrs(TABLE)["ttl"] == [{"attribute_name": "", "enabled": False}]  # the provider's spelling of none
    aws.assert_noop()

    # drift: recovery turned on behind ctl's back is reported and turned off again
    aws.client("dynamodb").update_continuous_backups(
        TableName="catalog", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "point_in_time_recovery" in out
    aws.apply()
    assert pitr_on_server(aws) == "DISABLED"

    # omitted blocks are computed (Terraform's Optional+Computed): the table's settings are kept
    aws.setup(table_config())
    aws.assert_noop()
    aws.client("dynamodb").update_time_to_live(
        TableName="catalog", TimeToLiveSpecification={"Enabled": True, "AttributeName": "gone_at"})
    aws.assert_noop()
    aws.apply("--refresh-only")  # the state records what the table holds
    assert aws.attrs(TABLE)["ttl"] == [{"attribute_name": "gone_at", "enabled": True}]
    assert ttl_on_server(aws) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "gone_at"}


@pytest.mark.parametrize(("body", "message"), [
    (table_config(attributes=("pk", "owner")), "attribute owner is not a key of the table or of an index"),
    (table_config(indexes=BY_ZONE), "key attribute zone has no attribute block"),
    (table_config(ttl=ttl_block(True, None)), "ttl: attribute_name must be set when enabled is true"),
    (table_config(ttl=ttl_block(False)), "ttl: attribute_name must not be set when enabled is false"),
])
def test_inconsistent_table_arguments_fail_at_plan(aws: AwsProject, body: str, message: str) -> None:
    aws.setup(body)
    res = aws.ctl("plan")
    assert res.code == 1 and TABLE in res.output and message in res.output, str(res)
    assert "Traceback" not in res.output
    assert aws.client("dynamodb").list_tables()["TableNames"] == []


# ---- aws_sqs_queue -----------------------------------------------------------------------------------


def queue_config(*, sse: bool | None = None, max_receive: int | str | None = 3, timeout: int = 30) -> str:
    sse_line = "" if sse is None else f"sqs_managed_sse_enabled = {str(sse).lower()}"
    redrive = "" if max_receive is None else f"""
  redrive_policy = jsonencode({{
    deadLetterTargetArn = aws_sqs_queue.dlq.arn
    maxReceiveCount     = {json.dumps(max_receive)}
  }})"""
    return f"""
resource "aws_sqs_queue" "dlq" {{
  name = "jobs-dlq"
}}

resource "aws_sqs_queue" "q" {{
  name                       = "jobs"
  visibility_timeout_seconds = {timeout}
  {sse_line}
  {redrive}
  policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Principal = "*", Action = "sqs:SendMessage", Resource = "*" }}]
  }})
}}
"""


def queue_attrs(aws: AwsProject, name: str = "jobs") -> dict[str, str]:
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return dict(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"])


def test_sqs_managed_sse(aws: AwsProject) -> None:
    aws.setup(queue_config(sse=False, max_receive=None))
    aws.apply()
    assert queue_attrs(aws)["SqsManagedSseEnabled"] == "false"
    assert aws.attrs("aws_sqs_queue.q")["sqs_managed_sse_enabled"] is False
    # unset: the queue keeps what SQS chose for it (on, for new queues)
    assert queue_attrs(aws, "jobs-dlq")["SqsManagedSseEnabled"] == "true"
    assert aws.attrs("aws_sqs_queue.dlq")["sqs_managed_sse_enabled"] is True
    aws.assert_noop()

    url = aws.attrs("aws_sqs_queue.q")["url"]
    aws.setup(queue_config(sse=True, max_receive=None))
    assert "0 added, 1 changed, 0 destroyed" in aws.apply().stdout
    attrs = queue_attrs(aws)
    assert attrs["SqsManagedSseEnabled"] == "true" and "Policy" in attrs
    assert aws.attrs("aws_sqs_queue.q")["url"] == url
    aws.assert_noop()

    # drift: turned off behind ctl's back, reported and turned on again
    aws.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"SqsManagedSseEnabled": "false"})
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "sqs_managed_sse_enabled" in out
    aws.apply()
    assert queue_attrs(aws)["SqsManagedSseEnabled"] == "true"


def test_redrive_policy(aws: AwsProject) -> None:
    # maxReceiveCount written as a string; SQS gives it back as a number, re-serialised
    aws.setup(queue_config(max_receive="3"))
    aws.apply()
    dlq_arn = aws.attrs("aws_sqs_queue.dlq")["arn"]
    assert json.loads(queue_attrs(aws)["RedrivePolicy"]) == {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3}
    assert json.loads(aws.attrs("aws_sqs_queue.q")["redrive_policy"])["maxReceiveCount"] == "3"  # as written
    aws.assert_noop()

    # in place; the queue policy survives the attribute update
    aws.setup(queue_config(max_receive=5))
    assert "0 added, 1 changed, 0 destroyed" in aws.apply().stdout
    attrs = queue_attrs(aws)
    assert json.loads(attrs["RedrivePolicy"])["maxReceiveCount"] == 5 and "Policy" in attrs
    aws.assert_noop()

    # drift: changed behind ctl's back, reported and set back
    url = aws.attrs("aws_sqs_queue.q")["url"]
    changed = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 9})
    aws.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": changed,
                                                                       "Policy": attrs["Policy"]})
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "redrive_policy" in out
    aws.apply()
    assert json.loads(queue_attrs(aws)["RedrivePolicy"])["maxReceiveCount"] == 5

    # import by URL: the re-plan is a no-op (SQS's text means what the configuration says)
    aws.reimport("aws_sqs_queue.q", url)
    aws.assert_noop()

    # removed from the configuration: removed from the queue (managed like policy), in place
    aws.setup(queue_config(max_receive=None))
    assert "0 added, 1 changed, 0 destroyed" in aws.apply().stdout
    attrs = queue_attrs(aws)
    assert "RedrivePolicy" not in attrs and "Policy" in attrs
    assert aws.attrs("aws_sqs_queue.q")["redrive_policy"] == ""  # the provider's spelling of none
    aws.assert_noop()


# ---- the corpus configurations themselves ------------------------------------------------------------


def corpus_project(aws: AwsProject, name: str) -> None:
    shutil.copytree(CORPUS / name, aws.root, dirs_exist_ok=True)
    aws.ok("init")


def test_data_lake_corpus_applies_and_replans_clean(aws: AwsProject) -> None:
    corpus_project(aws, "data_lake")
    aws.apply()
    table = described(aws, "acme-analytics-catalog")
    assert table["DeletionProtectionEnabled"] is True
    assert sorted(g["IndexName"] for g in table["GlobalSecondaryIndexes"]) == ["by_owner", "by_zone"]
    backups = aws.client("dynamodb").describe_continuous_backups(TableName="acme-analytics-catalog")
    assert backups["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] \
        == "ENABLED"
    aws.assert_noop()


def test_event_pipeline_corpus_applies_and_replans_clean(aws: AwsProject) -> None:
    corpus_project(aws, "event_pipeline")
    aws.apply()
    sqs = aws.client("sqs", region_name="eu-west-1")
    urls = sqs.list_queues()["QueueUrls"]
    assert len(urls) == 6
    for url in urls:
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert attrs["SqsManagedSseEnabled"] == "true"
        if not url.endswith("-dlq"):
            redrive = json.loads(attrs["RedrivePolicy"])
            assert redrive["deadLetterTargetArn"] == attrs["QueueArn"] + "-dlq"
    aws.assert_noop()
