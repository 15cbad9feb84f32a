"""One entry point from ``terraform { backend "KIND" { … } }`` settings to a state store.

The settings use Terraform's names, so a backend block written for Terraform works unchanged. A
setting that is unknown (a typo) or that Terraform knows but ctl does not implement is refused with
the list of supported ones, rather than silently ignored: an ignored ``kms_key_id`` would store state
unencrypted. A few Terraform settings that only concern Terraform's own machinery are accepted and
have no effect (``dynamodb_table``: ctl locks with the ``.tflock`` object Terraform's ``use_lockfile``
uses; the ``skip_*`` validation switches).

Each backend's module, and with it its cloud SDK, is imported only when that backend is asked for:
``ctl --help`` and runs on the local backend never load boto3, google.cloud or azure.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from backends.base import BackendError, StateStore

KINDS = ("local", "s3", "gcs", "azurerm")

_S3_SETTINGS = {
    "bucket", "key", "region", "endpoint", "endpoints", "use_path_style", "force_path_style", "profile",
    "workspace_key_prefix", "encrypt", "kms_key_id", "access_key", "secret_key", "token", "max_retries",
}  # fmt: skip
_S3_IGNORED = {
    "dynamodb_table", "use_lockfile", "skip_credentials_validation", "skip_region_validation",
    "skip_metadata_api_check", "skip_requesting_account_id", "skip_s3_checksum",
}  # fmt: skip
_GCS_SETTINGS = {"bucket", "prefix", "credentials", "access_token", "project", "storage_custom_endpoint"}
_AZURE_SETTINGS = {
    "storage_account_name", "container_name", "key", "connection_string", "access_key", "sas_token",
}  # fmt: skip
_AZURE_IGNORED = {"resource_group_name", "subscription_id", "tenant_id", "environment"}
_LOCAL_SETTINGS = {"path"}


def make_store(kind: str, settings: Mapping[str, Any], root_dir: Path) -> StateStore:
    """The store for a backend block; ``BackendError`` for an unknown kind, setting or bad value.

    ``root_dir`` anchors a relative local ``path``; remote stores do not use it.
    """
    builders: dict[str, Callable[[dict[str, Any], Path], StateStore]] = {
        "local": _local,
        "s3": _s3,
        "gcs": _gcs,
        "azurerm": _azurerm,
    }
    builder = builders.get(kind)
    if builder is None:
        raise BackendError(
            f'backend type "{kind}" is not supported',
            hint=f"Use one of: {', '.join(KINDS)}.",
        )
    given = {k: v for k, v in settings.items() if v is not None}
    return builder(given, root_dir)


def _check(
    kind: str, settings: Mapping[str, Any], known: set[str], ignored: frozenset[str] | set[str] = frozenset()
) -> None:
    unknown = sorted(set(settings) - known - ignored)
    if unknown:
        raise BackendError(
            f"{kind}: unsupported backend setting{'s' if len(unknown) > 1 else ''} "
            + ", ".join(f'"{name}"' for name in unknown),
            hint=f"The {kind} backend supports: {', '.join(sorted(known))}.",
        )


def _required(kind: str, settings: Mapping[str, Any], *names: str) -> None:
    missing = [n for n in names if not settings.get(n)]
    if missing:
        raise BackendError(
            f"{kind}: the backend setting{'s' if len(missing) > 1 else ''} "
            + ", ".join(f'"{n}"' for n in missing)
            + (" are" if len(missing) > 1 else " is")
            + " required",
            hint="Set it in the backend block or with `ctl init --backend-config NAME=VALUE`.",
        )


def _flag(kind: str, settings: Mapping[str, Any], name: str, default: bool = False) -> bool:
    """A boolean setting; ``--backend-config encrypt=true`` arrives as text."""
    value = settings.get(name, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise BackendError(f'{kind}: the backend setting "{name}" must be true or false (got "{value}")')


def _text(settings: Mapping[str, Any], name: str) -> str | None:
    value = settings.get(name)
    return None if value is None else str(value)


def _load(module: str) -> Any:
    return importlib.import_module(module)


def _local(settings: dict[str, Any], root_dir: Path) -> StateStore:
    _check("local", settings, _LOCAL_SETTINGS)
    from backends.local.store import DEFAULT_FILENAME, LocalStore

    path = Path(str(settings.get("path") or DEFAULT_FILENAME))
    full = path if path.is_absolute() else root_dir / path
    if not full.name or full.name in (".", "..") or full.is_dir():
        raise BackendError(f'local: the backend setting "path" must name a state file, not a directory '
                           f'(got "{settings.get("path")}")', hint='For example: path = "ctl.tfstate".')
    return LocalStore(full)


def _s3(settings: dict[str, Any], root_dir: Path) -> StateStore:
    _check("s3", settings, _S3_SETTINGS, _S3_IGNORED)
    _required("s3", settings, "bucket", "key")
    endpoints = settings.get("endpoints")
    if isinstance(endpoints, list) and len(endpoints) == 1:  # a block decoded as a one-element list
        endpoints = endpoints[0]
    if endpoints is not None and not isinstance(endpoints, Mapping):
        raise BackendError('s3: the backend setting "endpoints" must be a block such as { s3 = "https://…" }')
    endpoint = (endpoints or {}).get("s3") or settings.get("endpoint")
    max_retries = settings.get("max_retries")
    try:
        retries = int(max_retries) if max_retries is not None else None
    except ValueError:
        raise BackendError(
            f's3: the backend setting "max_retries" must be a number (got "{max_retries}")'
        ) from None
    s3 = _load("backends.s3")
    store: StateStore = s3.S3Store(
        str(settings["bucket"]),
        str(settings["key"]),
        region=_text(settings, "region"),
        endpoint=str(endpoint) if endpoint else None,
        use_path_style=_flag("s3", settings, "use_path_style", _flag("s3", settings, "force_path_style")),
        profile=_text(settings, "profile"),
        workspace_key_prefix=str(settings.get("workspace_key_prefix", s3.DEFAULT_WORKSPACE_KEY_PREFIX)),
        encrypt=_flag("s3", settings, "encrypt"),
        kms_key_id=_text(settings, "kms_key_id"),
        access_key=_text(settings, "access_key"),
        secret_key=_text(settings, "secret_key"),
        token=_text(settings, "token"),
        max_retries=retries,
    )
    return store


def _gcs(settings: dict[str, Any], root_dir: Path) -> StateStore:
    _check("gcs", settings, _GCS_SETTINGS)
    _required("gcs", settings, "bucket")
    gcs = _load("backends.gcs")
    store: StateStore = gcs.GCSStore(
        str(settings["bucket"]),
        str(settings.get("prefix") or ""),
        credentials=_text(settings, "credentials"),
        access_token=_text(settings, "access_token"),
        project=_text(settings, "project"),
        endpoint=_text(settings, "storage_custom_endpoint"),
    )
    return store


def _azurerm(settings: dict[str, Any], root_dir: Path) -> StateStore:
    _check("azurerm", settings, _AZURE_SETTINGS, _AZURE_IGNORED)
    _required("azurerm", settings, "container_name", "key")
    azurerm = _load("backends.azurerm")
    store: StateStore = azurerm.AzureStore(
        str(settings["container_name"]),
        str(settings["key"]),
        storage_account_name=_text(settings, "storage_account_name"),
        connection_string=_text(settings, "connection_string"),
        access_key=_text(settings, "access_key"),
        sas_token=_text(settings, "sas_token"),
    )
    return store


__all__ = ["KINDS", "make_store"]
