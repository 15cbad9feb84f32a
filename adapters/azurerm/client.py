"""The azurerm provider's client: one storage connection per provider configuration.

``provider "azurerm" { features {} }`` as in Terraform, plus ``storage_connection_string`` (or the
``AZURE_STORAGE_CONNECTION_STRING`` environment variable) naming the storage account; Azurite's
connection string works unchanged. The blob service client is built in ``configure``; the queue
service client on first use, so a configuration without queues never loads azure-storage-queue.

Retries are the SDK's own ``ExponentialRetry`` (throttling, 5xx, timeouts, dropped connections),
tuned through the clients' ``retry_*`` settings to back off from one second instead of fifteen.
Every SDK call goes through ``sdk_errors`` so a failure reaches the user as an ``AdapterError``
naming the resource address and the object, never as a traceback.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError

CONNECTION_ENV = "AZURE_STORAGE_CONNECTION_STRING"
# The SDK's ExponentialRetry, via the client keyword arguments it reads.
RETRY_SETTINGS: dict[str, Any] = {
    "retry_total": 4,
    "retry_connect": 2,
    "initial_backoff": 1,
    "increment_base": 2,
    "connection_timeout": 20,
}
# Terraform arguments accepted for portability; storage access here uses the connection string.
_IGNORED = ("subscription_id", "tenant_id", "client_id", "client_secret", "environment", "use_cli",
            "use_msi", "use_oidc", "skip_provider_registration", "resource_provider_registrations",
            "storage_use_azuread")

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "features": {"type": ["array", "object", "null"], "description": "Block; accepted, no settings used."},
        "storage_connection_string": {
            "type": ["string", "null"],
            "description": f"Storage account connection string; default: ${CONNECTION_ENV}.",
        },
        **{name: {"description": "Accepted for portability; unused."} for name in _IGNORED},
    },
    "additionalProperties": False,
}


@dataclass
class AzureClient:
    """The storage account one provider configuration manages, and its service clients."""

    connection_string: str
    blobs: Any  # azure.storage.blob.BlobServiceClient
    account_name: str
    _queues: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def queues(self) -> Any:
        """The queue service client, built once on first use (thread-safe)."""
        with self._lock:
            if self._queues is None:
                try:
                    from azure.storage.queue import QueueServiceClient
                except ImportError as exc:
                    raise AdapterError("azurerm_storage_queue needs azure-storage-queue",
                                       hint="pip install 'ctl[azure]' into ctl's environment.") from exc
                self._queues = QueueServiceClient.from_connection_string(self.connection_string, **RETRY_SETTINGS)
            return self._queues


def configure(config: dict[str, Any], workdir: Path) -> AzureClient:
    """Build the clients for one ``provider "azurerm"`` block (SDK imported here, lazily)."""
    unknown = sorted(set(config) - set(CONFIG_SCHEMA["properties"]))
    if unknown:
        raise AdapterError(f'provider "azurerm": unsupported argument {unknown[0]!r}',
                           hint="Supported: features, storage_connection_string.")
    conn = config.get("storage_connection_string") or os.environ.get(CONNECTION_ENV)
    if not conn:
        raise AdapterError(
            'provider "azurerm": no storage account connection',
            hint=f"Set storage_connection_string in the provider block or {CONNECTION_ENV} "
            "(for Azurite: its development connection string).",
        )
    try:
        from azure.storage.blob import BlobServiceClient
    except ImportError as exc:
        raise AdapterError('provider "azurerm" needs azure-storage-blob',
                           hint="pip install 'ctl[azure]' into ctl's environment.") from exc
    try:
        blobs = BlobServiceClient.from_connection_string(conn, **RETRY_SETTINGS)
    except ValueError as exc:
        raise AdapterError(f'provider "azurerm": the storage connection string is not valid: {exc}') from None
    return AzureClient(connection_string=conn, blobs=blobs, account_name=str(blobs.account_name or ""))


def client_of(ctx: AdapterContext, account: Any = None) -> AzureClient:
    """The configured client, checking that a resource's ``storage_account_name`` is its account."""
    client = ctx.client
    if not isinstance(client, AzureClient):
        raise AdapterError('provider "azurerm" is not configured', address=ctx.address)
    if isinstance(account, str) and account != client.account_name:
        raise AdapterError(
            f'storage_account_name is "{account}", but the provider\'s connection is for "{client.account_name}"',
            hint="Use a provider configuration (alias) whose connection string is for that account.",
            address=ctx.address,
        )
    return client


@contextlib.contextmanager
def sdk_errors(ctx: AdapterContext, what: str) -> Iterator[None]:
    """Turn SDK failures into ``AdapterError``: ``what`` names the operation and object."""
    from azure.core import exceptions as aexc

    try:
        yield
    except AdapterError:
        raise
    except aexc.ClientAuthenticationError as exc:
        raise AdapterError(f"{what}: authentication failed: {_message(exc)}", address=ctx.address,
                           hint="Check the account key in the storage connection string.") from None
    except aexc.HttpResponseError as exc:
        raise AdapterError(f"{what}: {_message(exc)}", address=ctx.address) from None
    except aexc.AzureError as exc:  # connection refused, timeouts after the SDK's retries
        raise AdapterError(f"{what}: cannot reach the storage service: {exc.message or exc}",
                           address=ctx.address, hint="Is the storage endpoint reachable?") from None


def _message(exc: Any) -> str:
    code = getattr(exc, "error_code", None)
    text = (getattr(exc, "reason", None) or str(exc).splitlines()[0]).strip()
    status = getattr(exc, "status_code", None)
    return f"{text} ({code or 'HTTP'} {status or ''})".replace(" )", ")")


def parse_url(ctx: AdapterContext, resource_id: str, service: str, depth: int) -> tuple[str, list[str]]:
    """The account and path parts (container, then blob) of an import URL.

    Accepts the service's URL (``https://ACCOUNT.blob.core.windows.net/CONTAINER/BLOB``) and the
    path-style URL of emulators (``http://127.0.0.1:10000/ACCOUNT/CONTAINER/BLOB``); ``depth`` is
    how many path parts the resource needs (the last one may contain ``/`` for blobs).
    """
    from urllib.parse import unquote, urlsplit

    url = urlsplit(resource_id.strip())
    host = url.hostname or ""
    example = {1: "NAME", 2: "CONTAINER/BLOB"}[depth]
    if url.scheme not in ("http", "https") or not host:
        raise AdapterError(
            f"import ID {resource_id!r} is not a URL",
            hint=f"Use the object's URL: https://ACCOUNT.{service}.core.windows.net/{example} "
            f"(emulators: http://HOST:PORT/ACCOUNT/{example}).",
            address=ctx.address,
        )
    path = url.path.lstrip("/")
    if _path_style(host):
        account, _, path = path.partition("/")
    else:
        account = host.split(".", 1)[0]
    parts = path.split("/", depth - 1) if path else []
    if len(parts) != depth or not all(parts):
        raise AdapterError(f"import ID {resource_id!r} does not name a {example}", address=ctx.address)
    return account, [unquote(p) for p in parts]


def _path_style(host: str) -> bool:
    """Emulators (an IP address, localhost, a single-label host) put the account in the path."""
    import ipaddress

    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return True
    return host == "localhost" or "." not in host
