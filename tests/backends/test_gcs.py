"""The gcs backend against fake-gcs-server: the shared contract, Terraform's layout, the generation
conditions, and one clear error for each way a bucket can be unusable.

Emulator limit, measured: fake-gcs-server checks ``ifGenerationMatch`` on uploads (412) but NOT on
deletes — a delete with a stale generation succeeds. So the conditional unlock cannot be shown against
this server; the tests check instead that ctl sends the generation it read with the delete (which real
GCS enforces), and the contract's stale-unlock race is skipped with that reason.
"""

from __future__ import annotations

import functools
import uuid
from pathlib import Path
from typing import Any

import pytest

from backends.base import DEFAULT_WORKSPACE, BackendError, BackupReader, LockInfo
from backends.factory import make_store
from backends.gcs import GCSStore
from backends.objectstore.objects import PreconditionFailed
from engine.state.manager import StateManager
from tests.backends.contract import StateStoreContract, state_bytes
from tests.backends.stubs import StubServer
from tests.servers import FakeGcsServer, free_port
from vocab.errors import CtlError, LockHeld

PREFIX = "team/network"
EMULATOR_LIMIT = (
    "fake-gcs-server does not check ifGenerationMatch on delete, so a stale conditional unlock cannot "
    "be refused by this server (real GCS refuses it with 412); test_unlock_deletes_on_the_generation_read "
    "checks that ctl sends the condition"
)


@pytest.fixture
def emulator(fake_gcs_clean: FakeGcsServer, monkeypatch: pytest.MonkeyPatch) -> FakeGcsServer:
    """The emulator, announced the way the Google SDKs expect (inherited by spawned racers too)."""
    for name, value in fake_gcs_clean.env.items():
        monkeypatch.setenv(name, value)
    return fake_gcs_clean


@pytest.fixture
def bucket(emulator: FakeGcsServer) -> str:
    name = f"ctl-state-{uuid.uuid4().hex[:8]}"
    emulator.client().create_bucket(name)
    return name


@pytest.fixture
def store(bucket: str, tmp_path: Path) -> GCSStore:
    made = make_store("gcs", {"bucket": bucket, "prefix": PREFIX}, tmp_path)
    assert isinstance(made, GCSStore)
    return made


class TestGCSStoreContract(StateStoreContract):
    capabilities = frozenset({BackupReader})

    conditional_delete_limit = EMULATOR_LIMIT

    @pytest.fixture
    def make_store(self, bucket: str, tmp_path: Path) -> Any:
        return functools.partial(make_store, "gcs", {"bucket": bucket, "prefix": PREFIX}, tmp_path)


def _names(emulator: FakeGcsServer, bucket: str) -> list[str]:
    return sorted(b.name for b in emulator.client().list_blobs(bucket))


# -- layout -----------------------------------------------------------------------------------------


def test_objects_are_where_terraform_puts_them(store: GCSStore, emulator: FakeGcsServer, bucket: str) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    store.write("staging", state_bytes(1), expected=None)
    store.lock("staging", LockInfo())
    store.journal_append("staging", b'{"seq":1}')
    assert _names(emulator, bucket) == [
        f"{PREFIX}/default.tfstate",
        f"{PREFIX}/default.tfstate.history/1.tfstate",
        f"{PREFIX}/staging.tflock",
        f"{PREFIX}/staging.tfstate",
        f"{PREFIX}/staging.tfstate.journal/000000000001",
    ]
    assert store.describe() == f"gs://{bucket}/{PREFIX}/default.tfstate"
    assert store.workspaces() == [DEFAULT_WORKSPACE, "staging"]


def test_without_a_prefix_states_sit_at_the_bucket_root(
    emulator: FakeGcsServer, bucket: str, tmp_path: Path
) -> None:
    root = make_store("gcs", {"bucket": bucket}, tmp_path)
    root.write("blue", state_bytes(1), expected=None)
    assert _names(emulator, bucket) == ["blue.tfstate"]
    assert root.workspaces() == [DEFAULT_WORKSPACE, "blue"]


def test_the_version_token_is_the_generation(store: GCSStore, emulator: FakeGcsServer, bucket: str) -> None:
    version = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    blob = emulator.client().bucket(bucket).get_blob(f"{PREFIX}/default.tfstate")
    assert version == str(blob.generation)
    assert set(blob.metadata) == {"ctl-who", "ctl-time"}


# -- conditions -------------------------------------------------------------------------------------


def test_the_lock_is_refused_by_the_server_not_just_by_a_read(store: GCSStore) -> None:
    store.lock(DEFAULT_WORKSPACE, LockInfo())
    with pytest.raises(PreconditionFailed):
        store._put(f"{PREFIX}/default.tflock", LockInfo().to_json(), if_absent=True)


def test_unlock_deletes_on_the_generation_read(store: GCSStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulator cannot refuse a stale delete (see the module docstring): check what ctl asks for."""
    info = LockInfo()
    store.lock(DEFAULT_WORKSPACE, info)
    held = store._get(f"{PREFIX}/default.tflock")
    assert held is not None
    calls: list[dict[str, Any]] = []
    honest = store._bucket.delete_blob

    def spy(name: str, **kwargs: Any) -> Any:
        calls.append({"name": name, **kwargs})
        return honest(name, **kwargs)

    monkeypatch.setattr(store._bucket, "delete_blob", spy)
    store.unlock(DEFAULT_WORKSPACE, info.ID)
    assert [(c["name"], c["if_generation_match"]) for c in calls] == [
        (f"{PREFIX}/default.tflock", int(held.token))
    ]


def test_the_emulator_limit_on_deletes_is_still_there(store: GCSStore) -> None:
    """Documents the limit the skip relies on; when fake-gcs-server starts checking, this fails."""
    store.lock(DEFAULT_WORKSPACE, LockInfo())
    stale = store._get(f"{PREFIX}/default.tflock")
    assert stale is not None
    store._put(f"{PREFIX}/default.tflock", b"{}", if_match=stale.token)
    assert store._delete(f"{PREFIX}/default.tflock", if_match=stale.token)  # real GCS: 412


# -- errors -----------------------------------------------------------------------------------------


def test_a_missing_bucket_is_named(emulator: FakeGcsServer, tmp_path: Path) -> None:
    missing = make_store("gcs", {"bucket": "no-such-bucket", "prefix": PREFIX}, tmp_path)
    for attempt in (
        lambda: missing.read(DEFAULT_WORKSPACE),
        lambda: missing.lock(DEFAULT_WORKSPACE, LockInfo()),
        lambda: missing.workspaces(),
    ):
        with pytest.raises(BackendError, match='gcs: bucket "no-such-bucket" does not exist') as err:
            attempt()
        assert "gs://no-such-bucket/" in err.value.summary
        assert "Create the bucket" in err.value.hint


def test_no_credentials_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))  # no application default credentials
    monkeypatch.setenv("GCE_METADATA_HOST", f"127.0.0.1:{free_port()}")  # and no metadata server
    monkeypatch.setenv("GCE_METADATA_IP", f"127.0.0.1:{free_port()}")
    with pytest.raises(BackendError, match="gcs: no Google credentials found") as err:
        make_store("gcs", {"bucket": "b"}, tmp_path)
    assert "gcloud auth application-default login" in err.value.hint


def test_an_unreachable_endpoint_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{free_port()}")
    unreachable = GCSStore("b", PREFIX, retry_timeout=1)
    with pytest.raises(BackendError, match=f"gcs: .*to read gs://b/{PREFIX}/default.tfstate") as err:
        unreachable.read(DEFAULT_WORKSPACE)
    assert "STORAGE_EMULATOR_HOST" in err.value.hint


def test_access_denied_is_named_with_the_permissions_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        b'{"error": {"code": 403, "message": "ci@example.iam does not have storage.objects.create access"}}'
    )
    with StubServer(403, body, {"Content-Type": "application/json"}) as server:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", server.url)
        denied = GCSStore("ctl-state", PREFIX, retry_timeout=1)
        with pytest.raises(
            BackendError, match=f"gcs: access denied to write gs://ctl-state/{PREFIX}/default.tflock"
        ):
            denied.lock(DEFAULT_WORKSPACE, LockInfo())


def test_throttling_is_retried_with_backoff_then_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b'{"error": {"code": 429, "message": "rate limit exceeded"}}'
    with StubServer(429, body, {"Content-Type": "application/json"}) as server:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", server.url)
        throttled = GCSStore("ctl-state", PREFIX, retry_timeout=2)
        with pytest.raises(BackendError, match="gcs: gave up retrying to read"):
            throttled.read(DEFAULT_WORKSPACE)
    assert len(server.requests) >= 2  # DEFAULT_RETRY retried before giving up


def test_a_corrupt_state_object_gives_one_clear_error(
    store: GCSStore, emulator: FakeGcsServer, bucket: str
) -> None:
    emulator.client().bucket(bucket).blob(f"{PREFIX}/default.tfstate").upload_from_string(b"\x00not json")
    with pytest.raises(CtlError) as err:
        StateManager(store).load()
    assert f"gs://{bucket}/{PREFIX}/default.tfstate" in str(err.value)


def test_a_corrupt_lock_object_reads_as_held_and_can_be_forced(
    store: GCSStore, emulator: FakeGcsServer, bucket: str
) -> None:
    emulator.client().bucket(bucket).blob(f"{PREFIX}/default.tflock").upload_from_string(b"[]")
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == "" and "unreadable" in held.Info
    with pytest.raises(LockHeld):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    store.unlock(DEFAULT_WORKSPACE, "", force=True)
    store.lock(DEFAULT_WORKSPACE, LockInfo())

