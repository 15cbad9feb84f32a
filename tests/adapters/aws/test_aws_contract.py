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
from adapters.base import AdapterContext, Provider
from tests.adapters.contract import DataSourceContract, ResourceContract
from tests.servers import MotoServer

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
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
    type_name = "aws_s3_bucket"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"bucket": "ctl-contract-a", "tags": {"team": "a"}}, {"bucket_prefix": "ctl-contract-"}]


class TestSqsQueueContract(_OnMoto, ResourceContract):
    type_name = "aws_sqs_queue"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "delay_seconds": 5}, {"name": "ctl-contract.fifo", "fifo_queue": True}]


class TestSnsTopicContract(_OnMoto, ResourceContract):
    type_name = "aws_sns_topic"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "display_name": "Contract"}]


class TestDynamoDbTableContract(_OnMoto, ResourceContract):
    type_name = "aws_dynamodb_table"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "billing_mode": "PAY_PER_REQUEST", "hash_key": "id",
                 "attribute": [{"name": "id", "type": "S"}]}]


class TestIamRoleContract(_OnMoto, ResourceContract):
    type_name = "aws_iam_role"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "ctl-contract", "assume_role_policy": TRUST, "description": "contract"}]


class TestS3ObjectContract(_OnMoto, ResourceContract):
    """An unversioned bucket's objects have no version ID, so ``version_id`` stays null."""

    type_name = "aws_s3_object"
    nullable_computed = frozenset({"version_id"})

    @pytest.fixture(autouse=True)
    def bucket(self, moto_server_clean: MotoServer) -> None:
        moto_server_clean.client("s3").create_bucket(Bucket="ctl-contract-objects")

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "f.bin").write_bytes(b"\x00bytes")
        return [{"bucket": "ctl-contract-objects", "key": "a.txt", "content": "a", "content_type": "text/plain"},
                {"bucket": "ctl-contract-objects", "key": "dir/f.bin", "source": "f.bin"}]


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
