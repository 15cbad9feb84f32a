"""The shared adapter contract (``tests/adapters/contract.py``) for aws types, against moto.

The provider is configured from the environment alone (``configure({})``), as the contract does,
with the moto server's AWS_* variables set for the test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters import aws
from adapters.base import AdapterContext, Provider, ResourceType
from engine.state.journal import planned_identity
from tests.adapters.contract import DataSourceContract, ResourceContract
from tests.servers import MotoServer

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ACCOUNT = "123456789012"  # moto's
ROLE_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}]})
_CLIENTS: dict[str, Any] = {}


class _OnMoto:
    """Contract context: a provider configured against the (reset) moto server."""

    provider: ClassVar[Provider] = aws.PROVIDER
    type_name: ClassVar[str]
    mode: ClassVar[str]  # from the contract class it is mixed into

    @pytest.fixture
    def ctx(self, tmp_path: Path, moto_server_clean: MotoServer, monkeypatch: pytest.MonkeyPatch) -> AdapterContext:
        client = _CLIENTS.get(moto_server_clean.url)
        if client is None:  # one configuration per server, as ctl keeps one per provider block
            for name, value in moto_server_clean.env.items():
                monkeypatch.setenv(name, value)
            client = _CLIENTS[moto_server_clean.url] = self.provider.configure({}, tmp_path)
        return AdapterContext(
            provider_config={},
            client=client,
            workdir=tmp_path,
            address=f"{'data.' if self.mode == 'data' else ''}{self.type_name}.contract",
        )


class TestS3BucketContract(_OnMoto, ResourceContract):
    """What the provider records as null for a new bucket stays null: website names (no website),
    the canned ACL and the operation timeouts (not managed natively)."""

    type_name = "aws_s3_bucket"
    nullable_computed = frozenset({"website_domain", "website_endpoint", "acl", "timeouts"})

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"bucket": "ctl-contract-a", "tags": {"team": "a"}}, {"bucket_prefix": "ctl-contract-"}]


class TestSqsQueueContract(_OnMoto, ResourceContract):
    type_name = "aws_sqs_queue"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "delay_seconds": 5}, {"name": "ctl-contract.fifo", "fifo_queue": True},
                {"name_prefix": "ctl-contract-"}]


class TestSnsTopicContract(_OnMoto, ResourceContract):
    type_name = "aws_sns_topic"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "display_name": "Contract"},
                {"name": "ctl-contract.fifo", "fifo_topic": True}, {"name_prefix": "ctl-contract-"}]


class TestDynamoDbTableContract(_OnMoto, ResourceContract):
    """What the provider records as null for a table made without them stays null: the restore
    arguments and the operation timeouts (not managed natively)."""

    type_name = "aws_dynamodb_table"
    nullable_computed = frozenset({"restore_date_time", "restore_source_name", "restore_to_latest_time", "timeouts"})

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "billing_mode": "PAY_PER_REQUEST", "hash_key": "id",
                 "attribute": [{"name": "id", "type": "S"}]}]


class TestIamRoleContract(_OnMoto, ResourceContract):
    type_name = "aws_iam_role"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "assume_role_policy": TRUST, "description": "contract"},
                {"name_prefix": "ctl-contract-", "assume_role_policy": TRUST}]


class TestS3ObjectContract(_OnMoto, ResourceContract):
    """What the provider records as null for an object without them stays null: its KMS key (no
    SSE-KMS), its canned ACL and checksum algorithm (not managed natively)."""

    type_name = "aws_s3_object"
    nullable_computed = frozenset({"kms_key_id", "acl", "checksum_algorithm"})

    @pytest.fixture(autouse=True)
    def bucket(self, moto_server_clean: MotoServer) -> None:
        moto_server_clean.client("s3").create_bucket(Bucket="ctl-contract-objects")

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "f.bin").write_bytes(b"\x00bytes")
        return [{"bucket": "ctl-contract-objects", "key": "a.txt", "content": "a", "content_type": "text/plain"},
                {"bucket": "ctl-contract-objects", "key": "dir/f.bin", "source": "f.bin"}]


class TestIamRolePolicyContract(_OnMoto, ResourceContract):
    type_name = "aws_iam_role_policy"

    @pytest.fixture(autouse=True)
    def role(self, moto_server_clean: MotoServer) -> None:
        moto_server_clean.client("iam").create_role(RoleName="ctl-contract", AssumeRolePolicyDocument=TRUST)

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        # In the provider's spelling (compact, Version first, keys sorted), which the state records
        # whatever the configuration's text (test_aws_iam.py shows another text planning no change).
        policy = '{"Version":"2012-10-17","Statement":[{"Action":"s3:ListBucket","Effect":"Allow","Resource":"*"}]}'
        return [{"role": "ctl-contract", "name": "read", "policy": policy},
                {"role": "ctl-contract", "name_prefix": "gen-", "policy": policy}]


class _OnTwoBuckets(_OnMoto):
    """Two buckets, one per sample: each bucket part exists once per bucket."""

    @pytest.fixture(autouse=True)
    def buckets(self, moto_server_clean: MotoServer) -> None:
        for name in ("ctl-contract-a", "ctl-contract-b"):
            moto_server_clean.client("s3").create_bucket(Bucket=name)


class TestS3BucketVersioningContract(_OnTwoBuckets, ResourceContract):
    """Destroy only suspends versioning (a bucket never goes back to unversioned), so it reads back."""

    type_name = "aws_s3_bucket_versioning"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"bucket": "ctl-contract-a", "versioning_configuration": [{"status": "Enabled", "mfa_delete": None}]},
                {"bucket": "ctl-contract-b", "expected_bucket_owner": ACCOUNT,
                 "versioning_configuration": [{"status": "Suspended", "mfa_delete": None}]}]

    def test_read_after_delete_reports_gone(self, rt: ResourceType, ctx: AdapterContext, created: list) -> None:
        for _, state in created:
            rt.delete(ctx, state)
            after = rt.read(ctx, dict(state))
            assert after is not None and after["versioning_configuration"][0]["status"] == "Suspended"

    def test_find_after_delete_finds_nothing(self, rt: ResourceType, ctx: AdapterContext, created: list) -> None:
        """What find adopts then is the suspended setting, which the next plan turns back on."""
        for sample, state in created:
            rt.delete(ctx, state)
            found = rt.find(ctx, planned_identity(rt.plan(ctx, None, dict(sample))) or {})
            assert found is not None and found["versioning_configuration"][0]["status"] == "Suspended"


class TestS3BucketEncryptionContract(_OnTwoBuckets, ResourceContract):
    type_name = "aws_s3_bucket_server_side_encryption_configuration"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        def rule(algorithm: str) -> list[dict[str, Any]]:
            return [{"apply_server_side_encryption_by_default": [{"sse_algorithm": algorithm,
                                                                  "kms_master_key_id": None}],
                     "bucket_key_enabled": None}]

        return [{"bucket": "ctl-contract-a", "rule": rule("AES256")},
                {"bucket": "ctl-contract-b", "expected_bucket_owner": ACCOUNT, "rule": rule("aws:kms")}]


class TestS3BucketPublicAccessBlockContract(_OnTwoBuckets, ResourceContract):
    type_name = "aws_s3_bucket_public_access_block"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"bucket": "ctl-contract-a", "block_public_acls": True, "block_public_policy": True},
                {"bucket": "ctl-contract-b"}]


class TestS3BucketPolicyContract(_OnTwoBuckets, ResourceContract):
    type_name = "aws_s3_bucket_policy"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        def policy(bucket: str) -> str:
            return json.dumps({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "s3:GetObject",
                 "Resource": f"arn:aws:s3:::{bucket}/*"}]})

        return [{"bucket": name, "policy": policy(name)} for name in ("ctl-contract-a", "ctl-contract-b")]


class TestSnsTopicSubscriptionContract(_OnMoto, ResourceContract):
    type_name = "aws_sns_topic_subscription"

    @pytest.fixture(autouse=True)
    def topic_and_queues(self, moto_server_clean: MotoServer) -> None:
        self.topic_arn = moto_server_clean.client("sns").create_topic(Name="ctl-contract")["TopicArn"]
        sqs = moto_server_clean.client("sqs")
        self.queue_arns = []
        for name in ("ctl-contract-a", "ctl-contract-b"):
            url = sqs.create_queue(QueueName=name)["QueueUrl"]
            self.queue_arns.append(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
                                   ["Attributes"]["QueueArn"])

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"topic_arn": self.topic_arn, "protocol": "sqs", "endpoint": self.queue_arns[0]},
                {"topic_arn": self.topic_arn, "protocol": "sqs", "endpoint": self.queue_arns[1],
                 "raw_message_delivery": True}]


class TestCallerIdentityContract(_OnMoto, DataSourceContract):
    type_name = "aws_caller_identity"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{}]


class TestS3BucketDataContract(_OnMoto, DataSourceContract):
    type_name = "aws_s3_bucket"

    @pytest.fixture(autouse=True)
    def bucket(self, moto_server_clean: MotoServer) -> None:
        moto_server_clean.client("s3").create_bucket(Bucket="ctl-contract-data")

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"bucket": "ctl-contract-data"}]


@pytest.mark.parametrize("rt", [*aws.PROVIDER.resources.values(), *aws.PROVIDER.data_sources.values()],
                         ids=lambda rt: f"{rt.mode}.{rt.name}")
def test_every_type_declares_a_consistent_schema(rt: Any) -> None:
    """The schema half of the contract, for the types not run against the server above."""
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(rt.schema)
    props = set(rt.schema["properties"])
    assert rt.schema.get("additionalProperties") is False and rt.name.startswith("aws_")
    assert rt.computed <= props and rt.replace_on <= props and rt.id_attribute in props
    read_only = {k for k, v in rt.schema["properties"].items() if v.get("readOnly")}
    assert read_only <= rt.computed and not (rt.replace_on & read_only)
    if "tags" in props:
        assert "tags_all" in rt.computed


_SUBSCRIPTION = {"topic_arn": f"arn:aws:sns:us-east-1:{ACCOUNT}:t", "protocol": "sqs",
                 "endpoint": f"arn:aws:sqs:us-east-1:{ACCOUNT}:q"}
# type -> (identity, its import ID, findable); SQS and SNS IDs are URLs and ARNs only the service knows.
_RECOVERY = [
    ("aws_s3_bucket", {"bucket": "b", "force_destroy": True}, "b", True),
    ("aws_s3_bucket", {"bucket_prefix": "b-"}, None, False),
    ("aws_s3_bucket_versioning", {"bucket": "b", "expected_bucket_owner": ACCOUNT}, f"b,{ACCOUNT}", True),
    ("aws_s3_bucket_server_side_encryption_configuration", {"bucket": "b"}, "b", True),
    ("aws_s3_bucket_public_access_block", {"bucket": "b"}, "b", True),
    ("aws_s3_bucket_policy", {"bucket": "b", "policy": "{}"}, "b", True),
    ("aws_s3_object", {"bucket": "b", "key": "dir/k.txt"}, "b/dir/k.txt", True),
    ("aws_s3_object", {"key": "k.txt"}, None, False),  # the bucket was still unknown
    ("aws_dynamodb_table", {"name": "t", "hash_key": "id"}, "t", True),
    ("aws_iam_role", {"name": "r"}, "r", True),
    ("aws_iam_role", {"name_prefix": "r-"}, None, False),
    ("aws_iam_role_policy", {"role": "r", "name": "p"}, "r:p", True),
    ("aws_iam_role_policy", {"role": "r", "name_prefix": "p-"}, None, False),
    ("aws_sqs_queue", {"name": "q"}, None, True),
    ("aws_sqs_queue", {"name_prefix": "q-"}, None, False),
    ("aws_sns_topic", {"name": "t"}, None, True),
    ("aws_sns_topic", {"name_prefix": "t-"}, None, False),
    ("aws_sns_topic_subscription", _SUBSCRIPTION, None, True),
    ("aws_sns_topic_subscription", {**_SUBSCRIPTION, "topic_arn": None}, None, False),
]


@pytest.mark.parametrize(("type_name", "identity", "import_id", "findable"), _RECOVERY,
                         ids=[f"{row[0]}-{i}" for i, row in enumerate(_RECOVERY)])
def test_import_id_and_findable_of_a_planned_identity(type_name: str, identity: dict[str, Any],
                                                       import_id: str | None, findable: bool) -> None:
    """Computed offline: no client is needed to say what a journaled identity names."""
    rt = aws.PROVIDER.resources[type_name]
    ctx = AdapterContext(provider_config={}, address=f"{type_name}.x")
    assert rt.import_id(ctx, identity) == import_id
    assert rt.findable(ctx, identity) is findable


def test_every_aws_resource_type_can_be_recovered() -> None:
    assert {row[0] for row in _RECOVERY if row[3]} == set(aws.PROVIDER.resources)
