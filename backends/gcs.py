"""The ``gcs`` backend: state, lock, history and journal as objects in a Google Cloud Storage bucket.

Layout as Terraform's GCS backend: ``<prefix>/<workspace>.tfstate`` with the lock beside it as
``<prefix>/<workspace>.tflock``. The version token is the object's generation: the lock is created
with ``ifGenerationMatch=0`` (only if absent), the state written with ``ifGenerationMatch=<generation
read>`` and the lock deleted with ``ifGenerationMatch`` on the generation read.

Credentials come from the usual chain (``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's application
default credentials, the metadata server), or the ``credentials`` / ``access_token`` settings. With
``STORAGE_EMULATOR_HOST`` set the store talks to that emulator with anonymous credentials, as the
Google SDKs do. The SDK is imported when a store is created, never at module import.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.objectstore.objects import ObjectInfo, PreconditionFailed, StoredObject
from backends.objectstore.store import ObjectStateStore
from backends.timeouts import connect_timeout, reply_timeout

DEFAULT_RETRY_TIMEOUT_S = 60.0
_PERMISSIONS = "storage.objects.get, .create, .delete and .list on the bucket (roles/storage.objectAdmin)"


class GCSStore(ObjectStateStore):
    """A ``StateStore`` on one GCS bucket under ``prefix``."""

    backend = "gcs"
    create_condition = "ifGenerationMatch=0"
    swap_condition = "ifGenerationMatch"

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        credentials: str | None = None,
        access_token: str | None = None,
        project: str | None = None,
        endpoint: str | None = None,
        retry_timeout: float = DEFAULT_RETRY_TIMEOUT_S,
    ) -> None:
        super().__init__()
        if not bucket:
            raise BackendError('gcs: the "bucket" setting is required')
        if prefix.startswith("/"):
            raise BackendError(f'gcs: "prefix" must not start with "/" (got "{prefix}")')
        self.bucket_name = bucket
        self.prefix = prefix if not prefix or prefix.endswith("/") else prefix + "/"
        self._client, self._retry, self._exc = _make_client(
            credentials=credentials,
            access_token=access_token,
            project=project,
            endpoint=endpoint,
            retry_timeout=retry_timeout,
        )
        self._bucket = self._client.bucket(bucket)
        self._bucket_seen = False
        self._timeout = (connect_timeout(), reply_timeout())  # per request; retries within retry_timeout

    # -- naming --------------------------------------------------------------------------------------

    def _url(self, key: str) -> str:
        return f"gs://{self.bucket_name}/{key}"

    def _state_key(self, workspace: str) -> str:
        return f"{self.prefix}{workspace}.tfstate"

    def _lock_key(self, workspace: str) -> str:
        return f"{self.prefix}{workspace}.tflock"

    def workspaces(self) -> list[str]:
        """``default`` first, then every ``<prefix><name>.tfstate``, sorted (one delimited listing)."""
        names = set()
        with self._errors("list", self.prefix):
            blobs = self._client.list_blobs(
                self._bucket, prefix=self.prefix, delimiter="/", retry=self._retry, timeout=self._timeout
            )
            for blob in blobs:
                name = blob.name[len(self.prefix) :]
                if name.endswith(".tfstate") and len(name) > len(".tfstate"):
                    names.add(name[: -len(".tfstate")])
        names.discard(DEFAULT_WORKSPACE)
        return [DEFAULT_WORKSPACE, *sorted(names)]

    # -- primitives ----------------------------------------------------------------------------------

    def _get(self, key: str, *, metadata: bool = False) -> StoredObject | None:
        """One download gives the bytes and, in its headers, their generation; metadata needs a second
        request (only when asked), bound to that generation so it cannot describe other bytes."""
        blob = self._bucket.blob(key)
        with self._errors("read", key):
            try:
                data = blob.download_as_bytes(retry=self._retry, timeout=self._timeout)
            except self._exc.NotFound:
                self._check_bucket(key)
                return None
            generation = blob.generation
            found: dict[str, str] = {}
            modified = ""
            if not metadata:
                return StoredObject(data=data, token=str(generation), metadata=found)
            try:
                described = self._bucket.get_blob(
                    key, if_generation_match=generation, retry=self._retry, timeout=self._timeout
                )
            except (self._exc.NotFound, self._exc.PreconditionFailed):
                described = None  # replaced meanwhile: a write from this read will be refused anyway
            if described is not None:
                found = dict(described.metadata or {})
                modified = _rfc3339(described.updated)
        return StoredObject(data=data, token=str(generation), metadata=found, modified=modified)

    def _put(
        self,
        key: str,
        data: bytes,
        *,
        if_match: str | None = None,
        if_absent: bool = False,
        metadata: dict[str, str] | None = None,
    ) -> str:
        blob = self._bucket.blob(key)
        if metadata:
            blob.metadata = metadata
        generation = 0 if if_absent else (int(if_match) if if_match is not None else None)
        with self._errors("write", key, conditional=generation is not None):
            blob.upload_from_string(
                data,
                content_type="application/json",
                if_generation_match=generation,
                retry=self._retry,
                timeout=self._timeout,
            )
        self._bucket_seen = True
        return str(blob.generation)

    def _delete(self, key: str, *, if_match: str | None = None) -> bool:
        generation = int(if_match) if if_match is not None else None
        with self._errors("delete", key, conditional=generation is not None):
            try:
                self._bucket.delete_blob(
                    key, if_generation_match=generation, retry=self._retry, timeout=self._timeout
                )
            except self._exc.NotFound:
                return False
        return True

    def _delete_many(self, keys: Iterable[str]) -> None:
        for key in keys:
            self._delete(key)

    def _list(self, prefix: str, *, metadata: bool = False) -> list[ObjectInfo]:
        """Listing returns each object's metadata with it, so ``metadata`` costs nothing here."""
        with self._errors("list", prefix):
            blobs = list(
                self._client.list_blobs(self._bucket, prefix=prefix, retry=self._retry, timeout=self._timeout)
            )
        return sorted(
            (ObjectInfo(b.name, dict(b.metadata or {}), _rfc3339(b.updated)) for b in blobs),
            key=lambda o: o.key,
        )

    def _check_bucket(self, key: str) -> None:
        """A 404 on download does not say whether the object or the bucket is missing: ask once."""
        if self._bucket_seen:
            return
        if not self._bucket.exists(retry=self._retry, timeout=self._timeout):
            raise self._missing_bucket("read", key)
        self._bucket_seen = True

    # -- errors --------------------------------------------------------------------------------------

    def _missing_bucket(self, action: str, key: str) -> BackendError:
        return BackendError(
            f'gcs: bucket "{self.bucket_name}" does not exist (while trying to {action} {self._url(key)})',
            hint="Create the bucket first (ctl does not create it), or check `bucket`.",
        )

    @contextlib.contextmanager
    def _errors(self, action: str, key: str, *, conditional: bool = False) -> Iterator[None]:
        """Turn the SDK's exceptions into one clear ``BackendError`` naming the bucket and object."""
        exc = self._exc
        url = self._url(key)
        try:
            yield
        except exc.PreconditionFailed:
            if conditional:
                raise PreconditionFailed(url) from None
            raise BackendError(f"gcs: the store refused to {action} {url} (precondition failed)") from None
        except exc.NotFound:
            # Downloads and deletes handle a missing object themselves: what is left is the bucket.
            raise self._missing_bucket(action, key) from None
        except exc.Forbidden:
            raise BackendError(
                f"gcs: access denied to {action} {url}",
                hint=f"The account in use needs {_PERMISSIONS}.",
            ) from None
        except exc.Unauthorized:
            raise BackendError(
                f"gcs: the Google credentials were rejected trying to {action} {url}",
                hint="Refresh them (`gcloud auth application-default login`) or check `credentials`.",
            ) from None
        except exc.TooManyRequests:
            raise BackendError(
                f"gcs: still throttled after retrying to {action} {url}",
                hint="The request rate to the bucket is too high; try again in a moment.",
            ) from None
        except exc.RetryError as err:
            raise BackendError(
                f"gcs: gave up retrying to {action} {url}: {err.cause or err}",
                hint="Check the network, and STORAGE_EMULATOR_HOST or `storage_custom_endpoint` if set.",
            ) from None
        except exc.GoogleAPICallError as err:
            raise BackendError(f"gcs: cannot {action} {url}: {err.code} {err.message}") from None
        except exc.auth_errors as err:
            raise BackendError(
                f"gcs: no usable Google credentials to {action} {url}: {err}",
                hint="Run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, "
                "or set `credentials` in the backend block.",
            ) from None
        except exc.network_errors as err:
            raise BackendError(
                f"gcs: cannot reach the storage endpoint to {action} {url}: {err}",
                hint="Check the network, and STORAGE_EMULATOR_HOST or `storage_custom_endpoint` if set.",
            ) from None


class _Exceptions:
    """The SDK's exception classes, gathered when the SDK is imported (never at module import)."""

    def __init__(self) -> None:
        import requests
        from google.api_core import exceptions as api
        from google.auth import exceptions as auth

        self.NotFound = api.NotFound
        self.PreconditionFailed = api.PreconditionFailed
        self.Forbidden = api.Forbidden
        self.Unauthorized = api.Unauthorized
        self.TooManyRequests = api.TooManyRequests
        self.RetryError = api.RetryError
        self.GoogleAPICallError = api.GoogleAPICallError
        self.auth_errors: tuple[type[Exception], ...] = (auth.DefaultCredentialsError, auth.RefreshError)
        self.network_errors: tuple[type[Exception], ...] = (
            requests.exceptions.RequestException,
            auth.TransportError,
            ConnectionError,
        )


def _rfc3339(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if value is not None else ""


def _make_client(
    *,
    credentials: str | None,
    access_token: str | None,
    project: str | None,
    endpoint: str | None,
    retry_timeout: float,
) -> tuple[Any, Any, _Exceptions]:
    """A storage client from the credential chain (anonymous for an emulator) with DEFAULT_RETRY."""
    try:
        from google.auth import exceptions as auth_exceptions
        from google.cloud import storage
        from google.cloud.storage.retry import DEFAULT_RETRY
    except ImportError:
        raise BackendError(
            "the gcs backend needs google-cloud-storage, which is not installed",
            hint="Install it with `pip install 'ctl[gcp]'` (or `pip install google-cloud-storage`).",
        ) from None
    exc = _Exceptions()
    retry = DEFAULT_RETRY.with_timeout(retry_timeout)
    options: dict[str, Any] = {}
    emulator = os.environ.get("STORAGE_EMULATOR_HOST")
    if endpoint:
        options["client_options"] = {"api_endpoint": endpoint}
    elif emulator:
        url = emulator if "://" in emulator else f"http://{emulator}"
        options["client_options"] = {"api_endpoint": url}
    project = project or os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GOOGLE_PROJECT")
    try:
        if emulator and not credentials and not access_token:
            from google.auth.credentials import AnonymousCredentials

            creds: Any = AnonymousCredentials()
            project = project or "ctl"
        else:
            creds, found_project = _credentials(credentials, access_token)
            project = project or found_project
        return storage.Client(project=project, credentials=creds, **options), retry, exc
    except auth_exceptions.DefaultCredentialsError as err:
        raise BackendError(
            f"gcs: no Google credentials found: {err}",
            hint="Run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or set "
            "`credentials` in the backend block.",
        ) from None
    except (OSError, ValueError) as err:
        raise BackendError(f"gcs: cannot load the Google credentials: {err}") from None


def _credentials(credentials: str | None, access_token: str | None) -> tuple[Any, str | None]:
    """Explicit settings first (a key file path or its JSON content, or a token), else ADC."""
    scopes = ["https://www.googleapis.com/auth/devstorage.read_write"]
    if access_token:
        from google.oauth2.credentials import Credentials

        return Credentials(token=access_token), None
    if credentials:
        from google.oauth2 import service_account

        text = credentials.strip()
        info = json.loads(text) if text.startswith("{") else json.loads(Path(text).expanduser().read_text())
        creds = service_account.Credentials.from_service_account_info(
            info, scopes=scopes)
        return creds, info.get(
            "project_id"
        )
    import google.auth

    creds, project = google.auth.default(scopes=scopes)
    return creds, project
