"""The ``azurerm`` backend: state, lock, history and journal as block blobs in an Azure Storage container.

Layout as Terraform's azurerm backend: the default workspace at ``key``, others at
``<key>env:<workspace>``. Terraform locks with a blob lease; ctl uses a lock blob ``<state>.tflock``
instead (created with ``If-None-Match: *``, which Azure refuses with 409 when the blob exists), so the
lock carries the same lock-info JSON and heartbeat on every backend. State writes are conditional on
the ETag read (``If-Match``), unlock deletes with ``If-Match`` on the lock's ETag.

Credentials: ``connection_string`` (or ``AZURE_STORAGE_CONNECTION_STRING``), else the account's
``access_key`` (or ``ARM_ACCESS_KEY``), else a ``sas_token`` (or ``ARM_SAS_TOKEN``). The SDK is imported
when a store is created, never at module import.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.objectstore.objects import ObjectInfo, PreconditionFailed, StoredObject
from backends.objectstore.store import ObjectStateStore
from backends.timeouts import connect_timeout, reply_timeout

_PERMISSIONS = "read, write, delete and list on the container's blobs (Storage Blob Data Contributor)"
_DENIED_CODES = {
    "AuthorizationFailure",
    "AuthorizationPermissionMismatch",
    "AuthorizationResourceTypeMismatch",
    "AuthorizationSourceIPMismatch",
    "AuthorizationProtocolMismatch",
    "InsufficientAccountPermissions",
}
_BAD_CREDENTIAL_CODES = {"AuthenticationFailed", "InvalidAuthenticationInfo", "NoAuthenticationInformation"}


class AzureStore(ObjectStateStore):
    """A ``StateStore`` on one Azure Storage container; ``key`` names the default state blob."""

    backend = "azurerm"
    meta_separator = "_"  # blob metadata names must be C# identifiers: no "-"
    swap_condition = "If-Match"

    def __init__(
        self,
        container_name: str,
        key: str,
        *,
        storage_account_name: str | None = None,
        connection_string: str | None = None,
        access_key: str | None = None,
        sas_token: str | None = None,
        account_url: str | None = None,
        retry_total: int = 3,
        api_version: str | None = None,
    ) -> None:
        super().__init__()
        if not container_name:
            raise BackendError('azurerm: the "container_name" setting is required')
        if not key:
            raise BackendError('azurerm: the "key" setting is required')
        self.container_name = container_name
        self.key = key
        self.account = storage_account_name or ""
        service = _make_service(
            account=self.account,
            connection_string=connection_string,
            access_key=access_key,
            sas_token=sas_token,
            account_url=account_url,
            retry_total=retry_total,
            api_version=api_version,
        )
        self.account = self.account or service.account_name or ""
        self._container = service.get_container_client(container_name)
        self._exc = _Exceptions()
        self._endpoint = service.url

    # -- naming --------------------------------------------------------------------------------------

    def _url(self, key: str) -> str:
        return f"azurerm://{self.account}/{self.container_name}/{key}"

    def _state_key(self, workspace: str) -> str:
        return self.key if workspace == DEFAULT_WORKSPACE else f"{self.key}env:{workspace}"

    def _lock_key(self, workspace: str) -> str:
        return self._state_key(workspace) + ".tflock"

    def _checked(self, workspace: str) -> str:
        workspace = super()._checked(workspace)
        if workspace.endswith(".tflock"):  # its state blob would be another workspace's lock blob
            raise BackendError(
                f'azurerm: a workspace name may not end in ".tflock" (got "{workspace}")',
                hint="Pick another name.",
            )
        return workspace

    def workspaces(self) -> list[str]:
        """``default`` first, then every ``<key>env:<name>`` blob (lock blobs and folders skipped)."""
        prefix = f"{self.key}env:"
        names = set()
        with self._errors("list", prefix):
            for item in self._container.walk_blobs(name_starts_with=prefix, delimiter="/"):
                name = item.name[len(prefix) :]
                if name and "/" not in name and not name.endswith(".tflock"):
                    names.add(name)
        names.discard(DEFAULT_WORKSPACE)
        return [DEFAULT_WORKSPACE, *sorted(names)]

    # -- primitives ----------------------------------------------------------------------------------

    def _get(self, key: str, *, metadata: bool = False) -> StoredObject | None:
        with self._errors("read", key):
            try:
                download = self._container.get_blob_client(key).download_blob()
                data = download.readall()
            except self._exc.ResourceNotFoundError as err:
                if _code(err) == "ContainerNotFound":
                    raise
                return None
        props = download.properties
        return StoredObject(
            data=data,
            token=str(props.etag),
            metadata=dict(props.metadata or {}),
            modified=_rfc3339(props.last_modified),
        )

    def _put(
        self,
        key: str,
        data: bytes,
        *,
        if_match: str | None = None,
        if_absent: bool = False,
        metadata: dict[str, str] | None = None,
    ) -> str:
        from azure.core import MatchConditions

        args: dict[str, Any] = {"overwrite": True, "metadata": metadata or None}
        if if_absent:
            args["match_condition"] = MatchConditions.IfMissing
        elif if_match is not None:
            args.update(etag=if_match, match_condition=MatchConditions.IfNotModified)
        with self._errors("write", key, conditional=if_absent or if_match is not None):
            result = self._container.get_blob_client(key).upload_blob(data, **args)
        return str(result["etag"])

    def _delete(self, key: str, *, if_match: str | None = None) -> bool:
        from azure.core import MatchConditions

        args: dict[str, Any] = {}
        if if_match is not None:
            args.update(etag=if_match, match_condition=MatchConditions.IfNotModified)
        with self._errors("delete", key, conditional=if_match is not None):
            try:
                self._container.get_blob_client(key).delete_blob(**args)
            except self._exc.ResourceNotFoundError as err:
                if _code(err) == "ContainerNotFound":
                    raise
                return False
        return True

    def _delete_many(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._delete(key)

    def _list(self, prefix: str, *, metadata: bool = False) -> list[ObjectInfo]:
        with self._errors("list", prefix):
            blobs = list(
                self._container.list_blobs(
                    name_starts_with=prefix, include=["metadata"] if metadata else None
                )
            )
        return sorted(
            (ObjectInfo(b.name, dict(b.metadata or {}), _rfc3339(b.last_modified)) for b in blobs),
            key=lambda o: o.key,
        )

    # -- errors --------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self, action: str, key: str, *, conditional: bool = False) -> Iterator[None]:
        """Turn the SDK's exceptions into one clear ``BackendError`` naming the container and blob.

        With ``conditional``, a refused condition (409 BlobAlreadyExists for If-None-Match: *, 412, or
        404 for If-Match on a missing blob) becomes ``PreconditionFailed`` instead.
        """
        exc = self._exc
        url = self._url(key)
        try:
            yield
        except (exc.ResourceExistsError, exc.ResourceModifiedError) as err:
            if conditional:
                raise PreconditionFailed(url) from None
            raise BackendError(f"azurerm: cannot {action} {url}: {_code(err) or err}") from None
        except exc.ResourceNotFoundError as err:
            if _code(err) == "ContainerNotFound":
                raise BackendError(
                    f'azurerm: container "{self.container_name}" does not exist in storage account '
                    f'"{self.account}" (while trying to {action} {url})',
                    hint="Create the container first (ctl does not create it), or check `container_name`.",
                ) from None
            if conditional:
                raise PreconditionFailed(url) from None
            raise BackendError(f"azurerm: cannot {action} {url}: {_code(err) or err}") from None
        except exc.ClientAuthenticationError as err:
            raise self._auth_error(action, url, err) from None
        except exc.HttpResponseError as err:
            if err.status_code == 403:
                raise self._auth_error(action, url, err) from None
            if err.status_code in (429, 503):
                raise BackendError(
                    f"azurerm: still throttled after retrying to {action} {url}",
                    hint="The request rate to the storage account is too high; try again in a moment.",
                ) from None
            raise BackendError(f"azurerm: cannot {action} {url}: {_code(err) or err.message}") from None
        except (exc.ServiceRequestError, exc.ServiceResponseError) as err:
            raise BackendError(
                f"azurerm: cannot reach {self._endpoint} to {action} {url}: {err}",
                hint="Check the network, `storage_account_name` and the connection string's BlobEndpoint.",
            ) from None

    def _auth_error(self, action: str, url: str, err: Any) -> BackendError:
        code = _code(err)
        if code in _BAD_CREDENTIAL_CODES:
            return BackendError(
                f"azurerm: the storage credentials were rejected ({code}) trying to {action} {url}",
                hint="Check the access key, SAS token or connection string (and the SAS expiry).",
            )
        return BackendError(
            f"azurerm: access denied to {action} {url}" + (f" ({code})" if code else ""),
            hint=f"The credentials in use need {_PERMISSIONS}.",
        )


class _Exceptions:
    """The SDK's exception classes, gathered when the SDK is imported (never at module import)."""

    def __init__(self) -> None:
        from azure.core import exceptions as core

        self.ResourceExistsError = core.ResourceExistsError
        self.ResourceModifiedError = core.ResourceModifiedError
        self.ResourceNotFoundError = core.ResourceNotFoundError
        self.ClientAuthenticationError = core.ClientAuthenticationError
        self.HttpResponseError = core.HttpResponseError
        self.ServiceRequestError = core.ServiceRequestError
        self.ServiceResponseError = core.ServiceResponseError


def _code(err: Any) -> str:
    code = getattr(err, "error_code", "") or ""
    return str(getattr(code, "value", code))  # the SDK hands a StorageErrorCode enum or a plain string


def _rfc3339(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if value is not None else ""


def _make_service(
    *,
    account: str,
    connection_string: str | None,
    access_key: str | None,
    sas_token: str | None,
    account_url: str | None,
    retry_total: int,
    api_version: str | None,
) -> Any:
    """A BlobServiceClient from the first credential given, with the storage SDK's retry policy.

    ``ExponentialRetry`` is the storage flavour of azure.core's ``RetryPolicy`` (the plain one cannot
    be used: the storage pipeline hands its policies arguments it does not know). Its default first
    back-off is 15 s; a command line wants 1 s, growing.
    """
    try:
        from azure.storage.blob import BlobServiceClient, ExponentialRetry
    except ImportError:
        raise BackendError(
            "the azurerm backend needs azure-storage-blob, which is not installed",
            hint="Install it with `pip install 'ctl[azure]'` (or `pip install azure-storage-blob`).",
        ) from None
    options: dict[str, Any] = {
        "retry_policy": ExponentialRetry(initial_backoff=1, increment_base=2, retry_total=retry_total),
        "connection_timeout": connect_timeout(),
        "read_timeout": reply_timeout(),
    }
    if api_version:
        options["api_version"] = api_version
    connection_string = connection_string or os.environ.get("AZURE_STORAGE_CONNECTION_STRING")
    access_key = access_key or os.environ.get("ARM_ACCESS_KEY")
    sas_token = sas_token or os.environ.get("ARM_SAS_TOKEN")
    try:
        if connection_string:
            return BlobServiceClient.from_connection_string(connection_string, **options)
        if not account:
            raise BackendError(
                'azurerm: "storage_account_name" is required unless a connection string is given',
                hint="Set it in the backend block or with `ctl init --backend-config storage_account_name=…`.",
            )
        url = account_url or f"https://{account}.blob.core.windows.net"
        if access_key:
            credential: Any = {"account_name": account, "account_key": access_key}
            return BlobServiceClient(url, credential=credential, **options)
        if sas_token:
            return BlobServiceClient(url, credential=sas_token.lstrip("?"), **options)
    except ValueError as err:
        raise BackendError(f"azurerm: the storage credentials cannot be used: {err}") from None
    raise BackendError(
        f'azurerm: no credentials for storage account "{account}"',
        hint="Set `connection_string`, `access_key` or `sas_token` (or AZURE_STORAGE_CONNECTION_STRING, "
        "ARM_ACCESS_KEY, ARM_SAS_TOKEN).",
    )
