"""The test servers start, answer their real SDKs over HTTP, and enforce the conditional writes that the
s3, gcs and azurerm backends build their locks and compare-and-swap state writes on."""

from __future__ import annotations

import socket
import sys
import uuid

import pytest

from tests.servers import Azurite, FakeGcsServer, MotoServer, ServerError


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# -- moto (S3, SQS) ----------------------------------------------------------------------------------


def test_moto_s3_conditional_create_and_compare_and_swap(moto_server_clean: MotoServer) -> None:
    from botocore.exceptions import ClientError

    s3 = moto_server_clean.client("s3")
    bucket = unique("state")
    s3.create_bucket(Bucket=bucket)

    first = s3.put_object(Bucket=bucket, Key="ctl.tfstate.tflock", Body=b"lock-1", IfNoneMatch="*")
    with pytest.raises(ClientError) as refused:
        s3.put_object(Bucket=bucket, Key="ctl.tfstate.tflock", Body=b"lock-2", IfNoneMatch="*")
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    body = s3.get_object(Bucket=bucket, Key="ctl.tfstate.tflock")["Body"].read()
    assert body == b"lock-1"

    # Compare-and-swap on the ETag: the current one is accepted, a stale one refused.
    second = s3.put_object(Bucket=bucket, Key="ctl.tfstate.tflock", Body=b"lock-3", IfMatch=first["ETag"])
    with pytest.raises(ClientError) as stale:
        s3.put_object(Bucket=bucket, Key="ctl.tfstate.tflock", Body=b"lock-4", IfMatch=first["ETag"])
    assert stale.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert second["ETag"] != first["ETag"]


def test_moto_sqs_queue(moto_server_clean: MotoServer) -> None:
    sqs = moto_server_clean.client("sqs")
    url = sqs.create_queue(QueueName=unique("jobs"))["QueueUrl"]
    assert url.startswith(moto_server_clean.url)
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    messages = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)["Messages"]
    assert [m["Body"] for m in messages] == ["hello"]


def test_moto_reset_drops_everything(moto_server_clean: MotoServer) -> None:
    s3 = moto_server_clean.client("s3")
    s3.create_bucket(Bucket=unique("gone"))
    moto_server_clean.reset()
    assert s3.list_buckets()["Buckets"] == []
    env = moto_server_clean.env
    assert env["AWS_ENDPOINT_URL"] == moto_server_clean.url
    assert env["AWS_DEFAULT_REGION"] == "us-east-1"


# -- fake-gcs-server ---------------------------------------------------------------------------------


def test_fake_gcs_conditional_create_and_generation_match(fake_gcs_clean: FakeGcsServer) -> None:
    from google.api_core.exceptions import PreconditionFailed

    client = fake_gcs_clean.client()
    bucket = client.create_bucket(unique("state"))
    lock = bucket.blob("ctl/default.tflock")

    lock.upload_from_string(b"lock-1", if_generation_match=0)
    with pytest.raises(PreconditionFailed):
        bucket.blob("ctl/default.tflock").upload_from_string(b"lock-2", if_generation_match=0)

    current = bucket.get_blob("ctl/default.tflock")
    assert current is not None and current.generation
    assert current.download_as_bytes() == b"lock-1"
    # Links handed out by the server point back at it, not at storage.googleapis.com.
    assert current.media_link.startswith(fake_gcs_clean.url)

    bucket.blob("ctl/default.tflock").upload_from_string(b"lock-3", if_generation_match=current.generation)
    with pytest.raises(PreconditionFailed):
        bucket.blob("ctl/default.tflock").upload_from_string(
            b"lock-4", if_generation_match=current.generation
        )


def test_fake_gcs_reset_drops_buckets_and_objects(fake_gcs_clean: FakeGcsServer) -> None:
    client = fake_gcs_clean.client()
    bucket = client.create_bucket(unique("gone"))
    bucket.blob("a/b.txt").upload_from_string(b"x")
    fake_gcs_clean.reset()
    assert list(client.list_buckets()) == []
    assert fake_gcs_clean.env["STORAGE_EMULATOR_HOST"] == fake_gcs_clean.url


# -- Azurite (blob, queue) ---------------------------------------------------------------------------


def test_azurite_blob_conditional_create_and_etag_match(azurite_clean: Azurite) -> None:
    from azure.core import MatchConditions
    from azure.core.exceptions import HttpResponseError

    container = azurite_clean.blob_service().create_container(unique("state"))
    blob = container.get_blob_client("ctl.tfstateenv:default.tflock")

    first = blob.upload_blob(b"lock-1", overwrite=True, if_none_match="*")
    with pytest.raises(HttpResponseError) as refused:
        blob.upload_blob(b"lock-2", overwrite=True, if_none_match="*")
    # Like Azure, Azurite refuses an If-None-Match: * write over an existing blob with 409 (not 412).
    assert refused.value.status_code == 409
    assert getattr(refused.value, "error_code", None) == "BlobAlreadyExists"
    assert blob.download_blob().readall() == b"lock-1"

    blob.upload_blob(
        b"lock-3", overwrite=True, etag=first["etag"], match_condition=MatchConditions.IfNotModified
    )
    with pytest.raises(HttpResponseError) as stale:
        blob.upload_blob(
            b"lock-4", overwrite=True, etag=first["etag"], match_condition=MatchConditions.IfNotModified
        )
    assert stale.value.status_code == 412


def test_azurite_queue(azurite_clean: Azurite) -> None:
    queues = azurite_clean.queue_service()
    name = unique("jobs")
    queue = queues.create_queue(name)
    queue.send_message("hello")
    assert [m.content for m in queue.receive_messages()] == ["hello"]
    assert [q.name for q in queues.list_queues()] == [name]


def test_azurite_reset_drops_containers_and_queues(azurite_clean: Azurite) -> None:
    name = unique("gone")
    azurite_clean.blob_service().create_container(name).upload_blob("x", b"x")
    azurite_clean.queue_service().create_queue(name)
    azurite_clean.reset()
    assert list(azurite_clean.blob_service().list_containers()) == []
    assert list(azurite_clean.queue_service().list_queues()) == []
    # A container name can be used again at once after a reset.
    azurite_clean.blob_service().create_container(name)
    assert f"BlobEndpoint={azurite_clean.blob_url};" in azurite_clean.connection_string
    assert azurite_clean.env["AZURE_STORAGE_CONNECTION_STRING"] == azurite_clean.connection_string


# -- start-up failures are reported, not hidden ------------------------------------------------------


class _Crashing(MotoServer):
    name = "crashing"

    def _command(self) -> list[str]:
        return [sys.executable, "-c", "import sys; print('cannot bind: boom', file=sys.stderr); sys.exit(3)"]


class _Silent(MotoServer):
    name = "silent"

    def _command(self) -> list[str]:
        return [sys.executable, "-c", "import time; print('starting', flush=True); time.sleep(60)"]


def test_server_that_exits_reports_its_output() -> None:
    server = _Crashing()
    with pytest.raises(ServerError, match=r"(?s)exited with code 3.*cannot bind: boom"):
        server.start()
    assert not server.running


def test_server_that_never_answers_times_out_with_its_output() -> None:
    server = _Silent(start_timeout=1)
    with pytest.raises(ServerError, match=r"(?s)did not answer .* within 1s.*starting"):
        server.start()
    assert not server.running


def test_port_taken_before_the_server_binds_is_retried(
    moto_server: MotoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asking for moto_server makes a missing moto skip (or fail in CI) like the other tests.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        ports = iter([busy])
        server = MotoServer()
        original = server._pick_ports

        def pick() -> None:
            port = next(ports, None)
            if port is None:
                original()
            else:
                server.port = port

        monkeypatch.setattr(server, "_pick_ports", pick)
        server.start()
        try:
            assert server.port != busy
            assert server.running
        finally:
            server.stop()
