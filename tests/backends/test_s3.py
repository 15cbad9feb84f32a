"""The s3 backend against moto in server mode: the shared contract, Terraform's layout, the conditions
on every request, and one clear error for each way a bucket can be unusable.

moto 5.2 checks every condition ctl sends: ``If-None-Match: *`` and ``If-Match`` on PutObject and
``If-Match`` on DeleteObject (412), so the conditional unlock is shown against the server itself.
"""

from __future__ import annotations

import functools
import uuid
from pathlib import Path
from typing import Any

import pytest

from backends.base import DEFAULT_WORKSPACE, BackendError, BackupReader, LockInfo
from backends.factory import make_store
from backends.objectstore.objects import PreconditionFailed
from backends.s3 import S3Store
from engine.state.manager import StateManager
from tests.backends.contract import StateStoreContract, state_bytes
from tests.backends.stubs import StubServer
from tests.servers import MotoServer, free_port
from vocab.errors import CtlError, LockHeld

KEY = "team/network/ctl.tfstate"


def _settings(moto: MotoServer, bucket: str, **extra: Any) -> dict[str, Any]:
    return {
        "bucket": bucket,
        "key": KEY,
        "region": moto.region,
        "endpoints": {"s3": moto.url},
        "use_path_style": True,
        "access_key": moto.access_key,
        "secret_key": moto.secret_key,
        **extra,
    }


@pytest.fixture
def bucket(moto_server_clean: MotoServer) -> str:
    name = f"ctl-state-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=name)
    return name


@pytest.fixture
def s3(moto_server_clean: MotoServer) -> Any:
    return moto_server_clean.client("s3")


@pytest.fixture
def store(moto_server_clean: MotoServer, bucket: str, tmp_path: Path) -> S3Store:
    made = make_store("s3", _settings(moto_server_clean, bucket), tmp_path)
    assert isinstance(made, S3Store)
    return made


class TestS3StoreContract(StateStoreContract):
    capabilities = frozenset({BackupReader})

    @pytest.fixture
    def make_store(self, moto_server_clean: MotoServer, bucket: str, tmp_path: Path) -> Any:
        return functools.partial(make_store, "s3", _settings(moto_server_clean, bucket), tmp_path)


def _keys(s3: Any, bucket: str) -> list[str]:
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []))


# -- layout -----------------------------------------------------------------------------------------


def test_objects_are_where_terraform_puts_them(store: S3Store, s3: Any, bucket: str) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    store.write("staging", state_bytes(1), expected=None)
    store.lock("staging", LockInfo())
    store.journal_append("staging", b'{"seq":1}')
    assert _keys(s3, bucket) == [
        "env:/staging/team/network/ctl.tfstate",
        "env:/staging/team/network/ctl.tfstate.journal/000000000001",
        "env:/staging/team/network/ctl.tfstate.tflock",
        KEY,
        f"{KEY}.history/1.tfstate",
    ]
    assert store.describe() == f"s3://{bucket}/{KEY}"


def test_workspaces_written_by_terraform_are_listed(store: S3Store, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key=f"env:/blue/{KEY}", Body=state_bytes(1))
    s3.put_object(Bucket=bucket, Key="env:/green/other/key.tfstate", Body=state_bytes(1))  # another state
    assert store.workspaces() == [DEFAULT_WORKSPACE, "blue"]


def test_a_custom_workspace_key_prefix_is_honoured(
    moto_server_clean: MotoServer, bucket: str, s3: Any, tmp_path: Path
) -> None:
    custom = make_store(
        "s3", _settings(moto_server_clean, bucket, workspace_key_prefix="workspaces"), tmp_path
    )
    custom.write("blue", state_bytes(1), expected=None)
    assert _keys(s3, bucket) == [f"workspaces/blue/{KEY}"]
    assert custom.workspaces() == [DEFAULT_WORKSPACE, "blue"]


def test_the_state_object_records_who_wrote_it(store: S3Store, s3: Any, bucket: str) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    metadata = s3.head_object(Bucket=bucket, Key=KEY)["Metadata"]
    assert set(metadata) == {"ctl-who", "ctl-time"}


def test_encrypt_asks_for_server_side_encryption(
    moto_server_clean: MotoServer, bucket: str, s3: Any, tmp_path: Path
) -> None:
    encrypted = make_store("s3", _settings(moto_server_clean, bucket, encrypt=True), tmp_path)
    encrypted.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    encrypted.lock(DEFAULT_WORKSPACE, LockInfo())
    assert s3.head_object(Bucket=bucket, Key=KEY)["ServerSideEncryption"] == "AES256"
    assert s3.head_object(Bucket=bucket, Key=f"{KEY}.tflock")["ServerSideEncryption"] == "AES256"


def test_the_endpoint_can_come_from_the_environment(
    moto_server_clean: MotoServer, bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(moto_server_clean, bucket)
    del settings["endpoints"]
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")  # the S3-specific variable wins
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", moto_server_clean.url)
    from_env = make_store("s3", settings, tmp_path)
    from_env.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert from_env.read(DEFAULT_WORKSPACE) is not None


# -- conditions the server checks ---------------------------------------------------------------------


def test_the_lock_is_refused_by_the_server_not_just_by_a_read(store: S3Store, s3: Any, bucket: str) -> None:
    """Even a client that skipped the read cannot create over an existing lock (If-None-Match: *)."""
    store.lock(DEFAULT_WORKSPACE, LockInfo())
    with pytest.raises(PreconditionFailed):
        store._put(f"{KEY}.tflock", LockInfo().to_json(), if_absent=True)


def test_a_stale_conditional_delete_is_refused_by_the_server(store: S3Store) -> None:
    info = LockInfo()
    store.lock(DEFAULT_WORKSPACE, info)
    stale = store._get(f"{KEY}.tflock")
    assert stale is not None
    store.renew_lock(DEFAULT_WORKSPACE, info)  # the lock object changes: a new ETag
    with pytest.raises(PreconditionFailed):
        store._delete(f"{KEY}.tflock", if_match=stale.token)
    assert store.lock_info(DEFAULT_WORKSPACE) is not None


def test_an_s3_compatible_server_that_ignores_conditions_fails_the_probe(
    store: S3Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a server without conditional writes looks like to the client: the headers are never sent."""
    client = store._client
    honest = client.put_object

    def without_conditions(**kwargs: Any) -> Any:
        kwargs.pop("IfNoneMatch", None)
        return honest(**kwargs)

    monkeypatch.setattr(client, "put_object", without_conditions)
    with pytest.raises(
        BackendError, match=r"s3: .*does not refuse a second conditional create \(If-None-Match"
    ):
        store.probe()


# -- errors -------------------------------------------------------------------------------------------


def test_a_missing_bucket_is_named(moto_server_clean: MotoServer, tmp_path: Path) -> None:
    missing = make_store("s3", _settings(moto_server_clean, "no-such-bucket"), tmp_path)
    for attempt in (
        lambda: missing.read(DEFAULT_WORKSPACE),
        lambda: missing.lock(DEFAULT_WORKSPACE, LockInfo()),
        lambda: missing.workspaces(),
    ):
        with pytest.raises(BackendError, match='s3: bucket "no-such-bucket" does not exist') as err:
            attempt()
        assert f"s3://no-such-bucket/{KEY}" in err.value.summary or "list" in err.value.summary
        assert "Create the bucket" in err.value.hint


def test_no_credentials_is_a_clear_error(
    moto_server_clean: MotoServer, bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    settings = _settings(moto_server_clean, bucket)
    del settings["access_key"], settings["secret_key"]
    with pytest.raises(BackendError, match="s3: no AWS credentials found to read s3://") as err:
        make_store("s3", settings, tmp_path).read(DEFAULT_WORKSPACE)
    assert "AWS_PROFILE" in err.value.hint


def test_half_a_key_pair_is_a_clear_error(moto_server_clean: MotoServer, bucket: str, tmp_path: Path) -> None:
    settings = _settings(moto_server_clean, bucket)
    del settings["access_key"]
    with pytest.raises(BackendError, match="s3: secret_key is set but access_key is not"):
        make_store("s3", settings, tmp_path)


def test_an_unknown_profile_is_a_clear_error(
    moto_server_clean: MotoServer, bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    settings = _settings(moto_server_clean, bucket, profile="nobody")
    del settings["access_key"], settings["secret_key"]
    with pytest.raises(BackendError, match='s3: the AWS profile "nobody" is not configured'):
        make_store("s3", settings, tmp_path)


def test_an_unreachable_endpoint_is_named(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    unreachable = make_store(
        "s3",
        {"bucket": "b", "key": KEY, "region": "us-east-1", "endpoint": endpoint, "access_key": "a",
         "secret_key": "b", "max_retries": 1},
        tmp_path,
    )  # fmt: skip
    with pytest.raises(BackendError, match=f"s3: cannot reach {endpoint} to read s3://b/{KEY}"):
        unreachable.read(DEFAULT_WORKSPACE)


def _stubbed(server: StubServer, tmp_path: Path, **extra: Any) -> Any:
    settings = {"bucket": "ctl-state", "key": KEY, "region": "us-east-1", "endpoint": server.url,
                "use_path_style": True, "access_key": "a", "secret_key": "b", **extra}  # fmt: skip
    return make_store("s3", settings, tmp_path)


def test_access_denied_is_named_with_the_permissions_needed(tmp_path: Path) -> None:
    body = b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
    denied = f"s3: access denied to write s3://ctl-state/{KEY}.tflock"
    with (
        StubServer(403, body, {"Content-Type": "application/xml"}) as server,
        pytest.raises(BackendError, match=denied) as err,
    ):
        _stubbed(server, tmp_path).lock(DEFAULT_WORKSPACE, LockInfo())
    assert "s3:PutObject" in err.value.hint


def test_throttling_is_retried_with_backoff_then_named(tmp_path: Path) -> None:
    body = b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
    with (
        StubServer(503, body, {"Content-Type": "application/xml"}) as server,
        pytest.raises(BackendError, match="s3: still throttled after retrying to read"),
    ):
        _stubbed(server, tmp_path, max_retries=2).read(DEFAULT_WORKSPACE)
    assert len(server.requests) == 3  # botocore's standard retry mode: the first try and two retries


def test_a_corrupt_state_object_gives_one_clear_error(store: S3Store, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key=KEY, Body=b"\x00not json")
    with pytest.raises(CtlError) as err:
        StateManager(store).load()
    assert f"s3://{bucket}/{KEY}" in str(err.value)


def test_a_corrupt_lock_object_reads_as_held_and_can_be_forced(store: S3Store, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key=f"{KEY}.tflock", Body=b"{truncated")
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == "" and "unreadable" in held.Info
    with pytest.raises(LockHeld):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    removed = store.unlock(DEFAULT_WORKSPACE, "", force=True)
    assert "unreadable" in removed.Info
    store.lock(DEFAULT_WORKSPACE, LockInfo())


def test_an_empty_state_object_counts_as_no_state(store: S3Store, s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key=KEY, Body=b"")
    assert store.read(DEFAULT_WORKSPACE) is None
    version = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    snap = store.read(DEFAULT_WORKSPACE)
    assert snap is not None and snap.version == version
    assert store.history(DEFAULT_WORKSPACE) == []  # nothing worth keeping was replaced

