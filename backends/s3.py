"""The ``s3`` backend: state, lock, history and journal as objects in an S3 (or S3-compatible) bucket.

Layout as Terraform's S3 backend: the default workspace at ``key``, others at
``<workspace_key_prefix>/<workspace>/<key>`` (prefix ``env:``), the lock beside the state as
``<key>.tflock`` (Terraform's ``use_lockfile`` name, so mixed teams exclude each other). Unlike
Terraform, every write is conditional: the lock is created with ``If-None-Match: *``, the state is
written with ``If-Match: <ETag read>`` (``If-None-Match: *`` for the first write), and the lock is
deleted with ``If-Match`` on the ETag read — so neither a writer that skipped the lock nor a slow
unlock can overwrite somebody else's newer object.

boto3 is imported when a store is created, never at module import: ``ctl --help`` must stay fast.
Throttling and transient errors are retried by botocore's ``standard`` retry mode, not by hand.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.objectstore.objects import ObjectInfo, PreconditionFailed, StoredObject
from backends.objectstore.store import ObjectStateStore
from backends.timeouts import ENV, connect_timeout, reply_timeout

DEFAULT_WORKSPACE_KEY_PREFIX = "env:"
_DEFAULT_RETRIES = 5  # after the first attempt
_BODY_ATTEMPTS = 3  # reads of an object whose body was cut short
_PRECONDITION_CODES = {"PreconditionFailed", "412", "ConditionalRequestConflict"}
_MISSING_OBJECT_CODES = {"NoSuchKey", "404", "NotFound"}
_DENIED_CODES = {"AccessDenied", "403", "AllAccessDisabled", "AccountProblem", "Forbidden"}
_BAD_CREDENTIAL_CODES = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "InvalidToken",
    "TokenRefreshRequired",
}
_THROTTLE_CODES = {"SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded", "503"}
_PERMISSIONS = "s3:ListBucket on the bucket; s3:GetObject, s3:PutObject and s3:DeleteObject on the keys"


class S3Store(ObjectStateStore):
    """A ``StateStore`` on one S3 bucket; ``key`` names the default workspace's state object."""

    backend = "s3"

    def __init__(
        self,
        bucket: str,
        key: str,
        *,
        region: str | None = None,
        endpoint: str | None = None,
        use_path_style: bool = False,
        profile: str | None = None,
        workspace_key_prefix: str = DEFAULT_WORKSPACE_KEY_PREFIX,
        encrypt: bool = False,
        kms_key_id: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        token: str | None = None,
        max_retries: int | None = None,
    ) -> None:
        super().__init__()
        if not bucket:
            raise BackendError('s3: the "bucket" setting is required')
        if not key or key.startswith("/") or key.endswith("/"):
            raise BackendError(
                f's3: the "key" setting must name an object (got "{key}")',
                hint='Use a path such as "network/terraform.tfstate", without a leading or trailing "/".',
            )
        self.bucket = bucket
        self.key = key
        self.workspace_key_prefix = workspace_key_prefix.strip("/")
        self.endpoint = endpoint or _endpoint_from_env()
        self._encryption: dict[str, str] = {}
        if kms_key_id:
            self._encryption = {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": kms_key_id}
        elif encrypt:
            self._encryption = {"ServerSideEncryption": "AES256"}
        self._client = _make_client(
            region=region,
            endpoint=self.endpoint,
            use_path_style=use_path_style,
            profile=profile,
            access_key=access_key,
            secret_key=secret_key,
            token=token,
            max_retries=max_retries,
        )

    # -- naming --------------------------------------------------------------------------------------

    def _url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def _state_key(self, workspace: str) -> str:
        if workspace == DEFAULT_WORKSPACE:
            return self.key
        return "/".join(part for part in (self.workspace_key_prefix, workspace, self.key) if part)

    def _lock_key(self, workspace: str) -> str:
        return self._state_key(workspace) + ".tflock"

    def workspaces(self) -> list[str]:
        """``default`` first, then every ``<prefix>/<name>/<key>`` state object's name, sorted."""
        prefix = f"{self.workspace_key_prefix}/" if self.workspace_key_prefix else ""
        names = set()
        for info in self._list(prefix):
            name, sep, rest = info.key[len(prefix) :].partition("/")
            if sep and rest == self.key and name and name != DEFAULT_WORKSPACE:
                names.add(name)
        return [DEFAULT_WORKSPACE, *sorted(names)]

    # -- primitives ----------------------------------------------------------------------------------

    def _get(self, key: str, *, metadata: bool = False) -> StoredObject | None:
        from botocore import exceptions as bce

        with self._errors("read", key):
            for attempt in range(_BODY_ATTEMPTS):
                try:
                    response = self._client.get_object(Bucket=self.bucket, Key=key)
                except self._client.exceptions.NoSuchKey:
                    return None
                try:
                    data = response["Body"].read()
                    break
                except (bce.ResponseStreamingError, bce.IncompleteReadError):
                    # botocore retries requests, not a body cut short after the headers: read again
                    if attempt == _BODY_ATTEMPTS - 1:
                        raise
        return StoredObject(
            data=data,
            token=response["ETag"],
            metadata=dict(response.get("Metadata") or {}),
            modified=_rfc3339(response.get("LastModified")),
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
        args: dict[str, Any] = {"Bucket": self.bucket, "Key": key, "Body": data, **self._encryption}
        if metadata:
            args["Metadata"] = metadata
        if if_absent:
            args["IfNoneMatch"] = "*"
        if if_match is not None:
            args["IfMatch"] = if_match
        conditional = if_absent or if_match is not None
        with self._errors("write", key, conditional=conditional):
            return str(self._client.put_object(**args)["ETag"])

    def _delete(self, key: str, *, if_match: str | None = None) -> bool:
        args: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if if_match is not None:
            args["IfMatch"] = if_match
        with self._errors("delete", key, conditional=if_match is not None):
            try:
                self._client.delete_object(**args)
            except self._client.exceptions.ClientError as exc:
                if if_match is not None and _code(exc) in _MISSING_OBJECT_CODES:
                    return False  # S3 answers 404 to a conditional delete of a missing key
                raise
        return True

    def _delete_many(self, keys: Iterable[str]) -> None:
        """One DeleteObjects request per 1000 keys (a journal or a history can hold many)."""
        pending = list(keys)
        for start in range(0, len(pending), 1000):
            batch = [{"Key": k} for k in pending[start : start + 1000]]
            with self._errors("delete", batch[0]["Key"]):
                response = self._client.delete_objects(
                    Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True}
                )
            errors = response.get("Errors") or []
            if errors:
                first = errors[0]
                raise BackendError(
                    f"s3: could not delete {self._url(first.get('Key', '?'))}: "
                    f"{first.get('Code', '')} {first.get('Message', '')}".rstrip(),
                    hint=f"The backend needs {_PERMISSIONS}.",
                )

    def _list(self, prefix: str, *, metadata: bool = False) -> list[ObjectInfo]:
        found: list[tuple[str, str]] = []
        with self._errors("list", prefix):
            for page in self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            ):
                found += [(o["Key"], _rfc3339(o.get("LastModified"))) for o in page.get("Contents", [])]
        found.sort()
        if not metadata:
            return [ObjectInfo(key, {}, modified) for key, modified in found]
        # Listing does not return user metadata: one HEAD per object, a few at a time.
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            metas = list(pool.map(self._head_metadata, [key for key, _ in found]))
        return [ObjectInfo(key, meta, modified) for (key, modified), meta in zip(found, metas, strict=True)]

    def _head_metadata(self, key: str) -> dict[str, str]:
        with self._errors("read", key):
            try:
                return dict(self._client.head_object(Bucket=self.bucket, Key=key).get("Metadata") or {})
            except self._client.exceptions.ClientError as exc:
                if _code(exc) in _MISSING_OBJECT_CODES:
                    return {}
                raise

    # -- errors --------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _errors(self, action: str, key: str, *, conditional: bool = False) -> Iterator[None]:
        """Turn boto3's exceptions into one clear ``BackendError`` naming the bucket and object.

        With ``conditional``, a refused condition (412, or 404 for ``If-Match`` on a missing object)
        becomes ``PreconditionFailed`` for the protocol layer instead.
        """
        from botocore import exceptions as bce

        url = self._url(key)
        try:
            yield
        except bce.ClientError as exc:
            code = _code(exc)
            if conditional and (code in _PRECONDITION_CODES or code in _MISSING_OBJECT_CODES):
                raise PreconditionFailed(code) from None
            raise self._client_error(action, url, exc) from None
        except bce.NoCredentialsError:
            raise BackendError(
                f"s3: no AWS credentials found to {action} {url}",
                hint="Set AWS_PROFILE (or `profile` in the backend block) or AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or log in with `aws sso login`.",
            ) from None
        except (bce.EndpointConnectionError, bce.ConnectTimeoutError, bce.ConnectionClosedError) as exc:
            raise BackendError(
                f"s3: cannot reach {self.endpoint or 'the S3 endpoint'} to {action} {url}: {exc}",
                hint="Check the network, the `region` and the `endpoints { s3 = … }` setting.",
            ) from None
        except bce.ReadTimeoutError:
            raise BackendError(
                f"s3: {self.endpoint or 'the S3 endpoint'} did not answer within {reply_timeout():g} s "
                f"to {action} {url}, in any of its attempts",
                hint=f"Check the network and the endpoint; for a slow link raise {ENV} (seconds).",
            ) from None
        except bce.BotoCoreError as exc:
            raise BackendError(f"s3: cannot {action} {url}: {exc}") from None

    def _client_error(self, action: str, url: str, exc: Exception) -> BackendError:
        code = _code(exc)
        message = getattr(exc, "response", {}).get("Error", {}).get("Message") or str(exc)
        if code == "NoSuchBucket":
            return BackendError(
                f's3: bucket "{self.bucket}" does not exist (while trying to {action} {url})',
                hint="Create the bucket first (ctl does not create it), or check `bucket` and `region`.",
            )
        if code in _DENIED_CODES:
            return BackendError(
                f"s3: access denied to {action} {url}",
                hint=f"The credentials in use need {_PERMISSIONS}.",
            )
        if code in _BAD_CREDENTIAL_CODES:
            return BackendError(
                f"s3: the AWS credentials were rejected ({code}) trying to {action} {url}",
                hint="Check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or refresh the session "
                "(`aws sso login`).",
            )
        if code in {
            "PermanentRedirect",
            "301",
            "AuthorizationHeaderMalformed",
            "IllegalLocationConstraintException",
        }:
            return BackendError(
                f"s3: bucket {self.bucket} is in another region than the one configured ({action} {url})",
                hint="Set `region` in the backend block to the bucket's region.",
            )
        if code in _THROTTLE_CODES:
            return BackendError(
                f"s3: still throttled after retrying to {action} {url} ({code})",
                hint="The request rate to the bucket is too high; try again in a moment.",
            )
        if code.startswith("KMS") or "KMS" in message:
            return BackendError(
                f"s3: the KMS key refused to {action} {url}: {message}",
                hint="Check `kms_key_id` and that the credentials may use the key (kms:Encrypt, kms:Decrypt).",
            )
        return BackendError(f"s3: cannot {action} {url}: {code}: {message}")


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def _rfc3339(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if value is not None else ""


def _endpoint_from_env() -> str | None:
    """The service-specific variable first, as the AWS SDKs and CLI read them."""
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None


def _make_client(
    *,
    region: str | None,
    endpoint: str | None,
    use_path_style: bool,
    profile: str | None,
    access_key: str | None,
    secret_key: str | None,
    token: str | None,
    max_retries: int | None,
) -> Any:
    """A boto3 S3 client from the usual credential chain, with botocore's standard retries."""
    try:
        import boto3
        from botocore import exceptions as bce
        from botocore.config import Config
    except ImportError:
        raise BackendError(
            "the s3 backend needs boto3, which is not installed",
            hint="Install it with `pip install 'ctl[aws]'` (or `pip install boto3`).",
        ) from None
    if bool(access_key) != bool(secret_key):
        given, missing = ("access_key", "secret_key") if access_key else ("secret_key", "access_key")
        raise BackendError(
            f"s3: {given} is set but {missing} is not",
            hint="Give both (for example through --backend-config or AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY), or neither to use the usual credential chain.",
        )
    # botocore counts retries here, not the first attempt; 5 is Terraform's default for this backend
    retries: dict[str, Any] = {"mode": "standard", "max_attempts": _DEFAULT_RETRIES if max_retries is None else max_retries}
    config = Config(
        retries=retries,
        s3={"addressing_style": "path" if use_path_style else "auto"},
        connect_timeout=connect_timeout(),
        read_timeout=reply_timeout(),
    )
    try:
        session = boto3.session.Session(
            profile_name=profile,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            aws_session_token=token,
        )
        return session.client("s3", endpoint_url=endpoint, config=config)
    except bce.ProfileNotFound:
        raise BackendError(
            f's3: the AWS profile "{profile}" is not configured',
            hint="Check `profile` in the backend block and ~/.aws/config.",
        ) from None
    except (bce.BotoCoreError, ValueError) as exc:
        raise BackendError(f"s3: cannot set up the S3 client: {exc}") from None
