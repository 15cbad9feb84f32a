"""The azurerm backend against Azurite: the shared contract, Terraform's layout, the ETag conditions,
and one clear error for each way a container can be unusable.

Azurite (started with ``--skipApiVersionCheck``, as azure-storage-blob 12.31 speaks a newer API
version than Azurite 3.37 knows) checks every condition ctl sends: ``If-None-Match: *`` on create
(refused with 409 BlobAlreadyExists, as Azure does, not 412), ``If-Match`` on upload and on delete.
"""

from __future__ import annotations

import functools
import uuid
from pathlib import Path
from typing import Any

import pytest

from backends.azurerm import AzureStore
from backends.base import DEFAULT_WORKSPACE, BackendError, BackupReader, LockInfo
from backends.factory import make_store
from backends.objectstore.objects import PreconditionFailed
from engine.state.manager import StateManager
from tests.backends.contract import StateStoreContract, state_bytes
from tests.backends.stubs import StubServer
from tests.servers import Azurite, free_port
from vocab.errors import CtlError, LockHeld

KEY = "team/network.tfstate"


def _settings(azurite: Azurite, container: str) -> dict[str, Any]:
    return {
        "storage_account_name": azurite.account_name,
        "container_name": container,
        "key": KEY,
        "connection_string": azurite.connection_string,
    }


@pytest.fixture
def container(azurite_clean: Azurite) -> str:
    name = f"ctl-state-{uuid.uuid4().hex[:8]}"
    azurite_clean.blob_service().create_container(name)
    return name


@pytest.fixture
def store(azurite_clean: Azurite, container: str, tmp_path: Path) -> AzureStore:
    made = make_store("azurerm", _settings(azurite_clean, container), tmp_path)
    assert isinstance(made, AzureStore)
    return made


class TestAzureStoreContract(StateStoreContract):
    capabilities = frozenset({BackupReader})

    @pytest.fixture
    def make_store(self, azurite_clean: Azurite, container: str, tmp_path: Path) -> Any:
        return functools.partial(make_store, "azurerm", _settings(azurite_clean, container), tmp_path)


def _names(azurite: Azurite, container: str) -> list[str]:
    return sorted(b.name for b in azurite.blob_service().get_container_client(container).list_blobs())


# -- layout -----------------------------------------------------------------------------------------


def test_blobs_are_where_terraform_puts_them(
    store: AzureStore, azurite_clean: Azurite, container: str
) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    store.write("staging", state_bytes(1), expected=None)
    store.lock("staging", LockInfo())
    store.journal_append("staging", b'{"seq":1}')
    assert _names(azurite_clean, container) == [
        KEY,
        f"{KEY}.history/1.tfstate",
        f"{KEY}env:staging",
        f"{KEY}env:staging.journal/000000000001",
        f"{KEY}env:staging.tflock",
    ]
    assert store.describe() == f"azurerm://{azurite_clean.account_name}/{container}/{KEY}"
    assert store.workspaces() == [DEFAULT_WORKSPACE, "staging"]


def test_the_state_blob_records_who_wrote_it(
    store: AzureStore, azurite_clean: Azurite, container: str
) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    blob = azurite_clean.blob_service().get_blob_client(container, KEY)
    assert set(blob.get_blob_properties().metadata) == {"ctl_who", "ctl_time"}


def test_a_workspace_name_that_would_collide_with_a_lock_blob_is_refused(store: AzureStore) -> None:
    with pytest.raises(BackendError, match=r'may not end in "\.tflock"'):
        store.write("blue.tflock", state_bytes(1), expected=None)


def test_the_connection_string_can_come_from_the_environment(
    azurite_clean: Azurite, container: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", azurite_clean.connection_string)
    from_env = make_store("azurerm", {"container_name": container, "key": KEY}, tmp_path)
    from_env.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert from_env.describe() == f"azurerm://{azurite_clean.account_name}/{container}/{KEY}"


def test_an_account_key_works_without_a_connection_string(azurite_clean: Azurite, container: str) -> None:
    keyed = AzureStore(
        container,
        KEY,
        storage_account_name=azurite_clean.account_name,
        access_key=azurite_clean.account_key,
        account_url=azurite_clean.blob_url,
    )
    keyed.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert keyed.read(DEFAULT_WORKSPACE) is not None


def test_a_sas_token_works(azurite_clean: Azurite, container: str) -> None:
    from datetime import UTC, datetime, timedelta

    from azure.storage.blob import ContainerSasPermissions, generate_container_sas

    token = generate_container_sas(
        azurite_clean.account_name,
        container,
        account_key=azurite_clean.account_key,
        permission=ContainerSasPermissions(read=True, write=True, delete=True, list=True, create=True),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )
    with_sas = AzureStore(
        container,
        KEY,
        storage_account_name=azurite_clean.account_name,
        sas_token=token,
        account_url=azurite_clean.blob_url,
    )
    with_sas.lock(DEFAULT_WORKSPACE, LockInfo())
    assert with_sas.lock_info(DEFAULT_WORKSPACE) is not None


# -- conditions -------------------------------------------------------------------------------------


def test_the_lock_is_refused_by_the_server_not_just_by_a_read(store: AzureStore) -> None:
    store.lock(DEFAULT_WORKSPACE, LockInfo())
    with pytest.raises(PreconditionFailed):  # Azurite answers 409 BlobAlreadyExists, like Azure
        store._put(f"{KEY}.tflock", LockInfo().to_json(), if_absent=True)


def test_a_stale_conditional_delete_is_refused_by_the_server(store: AzureStore) -> None:
    info = LockInfo()
    store.lock(DEFAULT_WORKSPACE, info)
    stale = store._get(f"{KEY}.tflock")
    assert stale is not None
    store.renew_lock(DEFAULT_WORKSPACE, info)
    with pytest.raises(PreconditionFailed):
        store._delete(f"{KEY}.tflock", if_match=stale.token)
    assert store.lock_info(DEFAULT_WORKSPACE) is not None


# -- errors -----------------------------------------------------------------------------------------


def test_a_missing_container_is_named(azurite_clean: Azurite, tmp_path: Path) -> None:
    missing = make_store("azurerm", _settings(azurite_clean, "no-such-container"), tmp_path)
    for attempt in (
        lambda: missing.read(DEFAULT_WORKSPACE),
        lambda: missing.lock(DEFAULT_WORKSPACE, LockInfo()),
        lambda: missing.workspaces(),
    ):
        with pytest.raises(
            BackendError, match='azurerm: container "no-such-container" does not exist'
        ) as err:
            attempt()
        assert "azurerm://devstoreaccount1/no-such-container/" in err.value.summary
        assert "Create the container" in err.value.hint


def test_no_credentials_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_STORAGE_CONNECTION_STRING", "ARM_ACCESS_KEY", "ARM_SAS_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(BackendError, match='azurerm: no credentials for storage account "acct"') as err:
        make_store("azurerm", {"storage_account_name": "acct", "container_name": "c", "key": KEY}, tmp_path)
    assert "connection_string" in err.value.hint


def test_a_wrong_account_key_is_named(azurite_clean: Azurite, container: str) -> None:
    wrong = AzureStore(
        container,
        KEY,
        storage_account_name=azurite_clean.account_name,
        access_key="d3Jvbmcga2V5",
        account_url=azurite_clean.blob_url,
    )
    # Azure answers a bad key with 403 AuthenticationFailed, Azurite with 403 AuthorizationFailure.
    with pytest.raises(
        BackendError, match=r"azurerm: (the storage credentials were rejected|access denied)"
    ) as err:
        wrong.read(DEFAULT_WORKSPACE)
    assert f"azurerm://devstoreaccount1/{container}/{KEY}" in err.value.summary


def test_an_unreachable_endpoint_is_named(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/devstoreaccount1"
    connection = (
        f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={Azurite.account_key};"
        f"BlobEndpoint={endpoint};"
    )
    unreachable = AzureStore("c", KEY, connection_string=connection, retry_total=0)
    with pytest.raises(
        BackendError, match=r"azurerm: cannot reach .* to read azurerm://devstoreaccount1/c/"
    ) as err:
        unreachable.read(DEFAULT_WORKSPACE)
    assert "BlobEndpoint" in err.value.hint


def _stubbed(server: StubServer, retry_total: int = 0) -> AzureStore:
    connection = (
        f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={Azurite.account_key};"
        f"BlobEndpoint={server.url}/devstoreaccount1;"
    )
    return AzureStore("ctl-state", KEY, connection_string=connection, retry_total=retry_total)


def test_access_denied_is_named_with_the_permissions_needed() -> None:
    body = b"<?xml version='1.0'?><Error><Code>AuthorizationPermissionMismatch</Code><Message>no</Message></Error>"
    headers = {"Content-Type": "application/xml", "x-ms-error-code": "AuthorizationPermissionMismatch"}
    with (
        StubServer(403, body, headers) as server,
        pytest.raises(
            BackendError, match=r"azurerm: access denied to write .*/ctl-state/team/network\.tfstate\.tflock"
        ) as err,
    ):
        _stubbed(server).lock(DEFAULT_WORKSPACE, LockInfo())
    assert "Storage Blob Data Contributor" in err.value.hint


def test_throttling_is_retried_with_backoff_then_named() -> None:
    body = b"<?xml version='1.0'?><Error><Code>ServerBusy</Code><Message>busy</Message></Error>"
    headers = {"Content-Type": "application/xml", "x-ms-error-code": "ServerBusy"}
    throttled = "azurerm: still throttled after retrying to read"
    with StubServer(503, body, headers) as server, pytest.raises(BackendError, match=throttled):
        _stubbed(server, retry_total=2).read(DEFAULT_WORKSPACE)
    assert len(server.requests) == 3  # the retry policy: the first try and two retries


def test_a_corrupt_state_blob_gives_one_clear_error(
    store: AzureStore, azurite_clean: Azurite, container: str
) -> None:
    azurite_clean.blob_service().get_blob_client(container, KEY).upload_blob(b"\x00not json")
    with pytest.raises(CtlError) as err:
        StateManager(store).load()
    assert f"azurerm://{azurite_clean.account_name}/{container}/{KEY}" in str(err.value)


def test_a_corrupt_lock_blob_reads_as_held_and_can_be_forced(
    store: AzureStore, azurite_clean: Azurite, container: str
) -> None:
    azurite_clean.blob_service().get_blob_client(container, f"{KEY}.tflock").upload_blob(b"")
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == "" and "unreadable" in held.Info
    with pytest.raises(LockHeld):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    store.unlock(DEFAULT_WORKSPACE, "", force=True)
    store.lock(DEFAULT_WORKSPACE, LockInfo())

