"""The google provider's client: one ``google.cloud.storage.Client`` per provider configuration.

``provider "google" { project, region }`` as in Terraform. When ``STORAGE_EMULATOR_HOST`` is set
(fake-gcs-server, or any emulator of the JSON API) the client talks to it with anonymous
credentials, as the SDK's own emulator support does; otherwise it uses ``credentials`` from the
provider block or Application Default Credentials.

Every SDK call goes through ``sdk_errors``, which turns the SDK's exceptions into ``AdapterError``s
naming the resource address and the object, so a user never sees a traceback. Retries are the
SDK's: ``RETRY`` is ``DEFAULT_RETRY`` (exponential backoff on 429, 5xx and connection errors)
bounded so that an unreachable endpoint fails within a minute rather than two.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError

EMULATOR_ENV = "STORAGE_EMULATOR_HOST"
PROJECT_ENVS = ("GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT")
RETRY_TIMEOUT = 60.0  # seconds the SDK keeps retrying one call, unless request_timeout says otherwise

CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "project": {"type": ["string", "null"], "description": "Project new buckets are created in."},
        "region": {"type": ["string", "null"], "description": "Default region (unused by storage)."},
        "zone": {"type": ["string", "null"], "description": "Default zone (unused by storage)."},
        "credentials": {
            "type": ["string", "null"],
            "description": "Path or JSON content of a service account key; default: ADC.",
        },
        "storage_custom_endpoint": {
            "type": ["string", "null"],
            "description": "Base URL of the storage JSON API, e.g. an emulator's.",
        },
        "request_timeout": {
            "type": ["string", "null"],
            "pattern": "^[0-9]+(ms|s|m|h)$",
            "description": 'How long one call may keep retrying, e.g. "30s" (default "60s").',
        },
    },
    "additionalProperties": False,
}


@dataclass
class GoogleClient:
    """What the google resource types share: the storage client and where it points."""

    storage: Any  # google.cloud.storage.Client
    project: str | None
    endpoint: str | None  # None: the real service
    retry: Any  # google.api_core.retry.Retry
    retry_timeout: float = RETRY_TIMEOUT

    @property
    def emulated(self) -> bool:
        return self.endpoint is not None


def configure(config: dict[str, Any], workdir: Path) -> GoogleClient:
    """Build the storage client for one ``provider "google"`` block (SDK imported here, lazily)."""
    unknown = sorted(set(config) - set(CONFIG_SCHEMA["properties"]))
    if unknown:
        raise AdapterError(
            f'provider "google": unsupported argument {unknown[0]!r}',
            hint="Supported: " + ", ".join(CONFIG_SCHEMA["properties"]) + ".",
        )
    try:
        from google.cloud import storage
        from google.cloud.storage.retry import DEFAULT_RETRY
    except ImportError as exc:
        raise AdapterError(
            'provider "google" needs google-cloud-storage',
            hint="pip install 'ctl[gcp]' (or google-cloud-storage) into ctl's environment.",
        ) from exc

    project = config.get("project") or next((os.environ[e] for e in PROJECT_ENVS if os.environ.get(e)), None)
    endpoint = config.get("storage_custom_endpoint") or os.environ.get(EMULATOR_ENV) or None
    options: dict[str, Any] = {}
    if endpoint is not None:
        endpoint = endpoint if "://" in endpoint else f"http://{endpoint}"
        endpoint = endpoint.rstrip("/").removesuffix("/storage/v1")
        options["client_options"] = {"api_endpoint": endpoint}
    if endpoint is not None and os.environ.get(EMULATOR_ENV) and not config.get("credentials"):
        from google.auth.credentials import AnonymousCredentials

        options["credentials"] = AnonymousCredentials()
        project = project or "ctl-emulator"  # the emulator ignores it, the SDK wants one
    elif config.get("credentials"):
        options["credentials"] = _service_account(config["credentials"], workdir)
    try:
        client = storage.Client(project=project, **options)
    except Exception as exc:  # google.auth.exceptions.DefaultCredentialsError and friends
        raise AdapterError(
            f'provider "google": cannot build a storage client: {exc}',
            hint="Set credentials in the provider block, run `gcloud auth application-default login`, "
            f"or point {EMULATOR_ENV} at an emulator.",
        ) from None
    timeout = _seconds(config.get("request_timeout"))
    return GoogleClient(storage=client, project=project, endpoint=endpoint,
                        retry=DEFAULT_RETRY.with_timeout(timeout), retry_timeout=timeout)


def _seconds(duration: str | None) -> float:
    """A Terraform-style duration ("500ms", "30s", "2m", "1h") in seconds."""
    if duration is None:
        return RETRY_TIMEOUT
    import re

    match = re.fullmatch(r"([0-9]+)(ms|s|m|h)", duration.strip())
    if match is None:
        raise AdapterError(f'provider "google": request_timeout {duration!r} is not a duration like "30s"')
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    return int(match.group(1)) * scale


def _service_account(value: str, workdir: Path) -> Any:
    """Credentials from a key file path or the key's JSON text (Terraform accepts both)."""
    from google.oauth2 import service_account

    text = value.strip()
    try:
        if not text.startswith("{"):
            path = Path(text) if Path(text).is_absolute() else workdir / text
            text = path.read_text()
        info = json.loads(text)
        scopes = ["https://www.googleapis.com/auth/devstorage.full_control"]
        return service_account.Credentials.from_service_account_info(info, scopes=scopes)
    except (OSError, ValueError) as exc:
        raise AdapterError(f'provider "google": credentials are not a usable service account key: {exc}') from None


def client_of(ctx: AdapterContext) -> GoogleClient:
    """The configured client; a context without one means the provider was never configured."""
    if not isinstance(ctx.client, GoogleClient):
        raise AdapterError('provider "google" is not configured', address=ctx.address)
    return ctx.client


@contextlib.contextmanager
def sdk_errors(ctx: AdapterContext, what: str) -> Iterator[None]:
    """Turn SDK failures into ``AdapterError``: ``what`` names the operation and object."""
    from google.api_core import exceptions as gexc
    from google.auth import exceptions as auth_exc

    try:
        yield
    except AdapterError:
        raise
    except gexc.Forbidden as exc:
        raise AdapterError(f"{what}: permission denied: {_message(exc)}", address=ctx.address,
                           hint="Check the credentials' roles on this project and bucket.") from None
    except gexc.Unauthorized as exc:
        raise AdapterError(f"{what}: not authenticated: {_message(exc)}", address=ctx.address,
                           hint="Check the provider's credentials.") from None
    except gexc.GoogleAPICallError as exc:
        raise AdapterError(f"{what}: {_message(exc)}", address=ctx.address) from None
    except gexc.RetryError as exc:
        cause = exc.cause if exc.cause is not None else exc
        waited = ctx.client.retry_timeout if isinstance(ctx.client, GoogleClient) else RETRY_TIMEOUT
        raise AdapterError(f"{what}: gave up after retrying for {waited:g}s: {cause}",
                           address=ctx.address, hint="Is the storage endpoint reachable?") from None
    except auth_exc.GoogleAuthError as exc:
        raise AdapterError(f"{what}: authentication failed: {exc}", address=ctx.address,
                           hint="Check the provider's credentials.") from None
    except OSError as exc:  # requests' ConnectionError is an OSError
        endpoint = ctx.client.endpoint if isinstance(ctx.client, GoogleClient) else None
        where = f" at {endpoint}" if endpoint else ""
        raise AdapterError(f"{what}: cannot reach the storage service{where}: {exc}",
                           address=ctx.address) from None


def _message(exc: Any) -> str:
    code = getattr(exc, "code", None)
    text = getattr(exc, "message", None) or str(exc)
    return f"{text} (HTTP {code})" if code else text
