"""``azurerm_storage_container``: a blob container, with Terraform's attribute names.

``name`` and ``storage_account_name`` force replacement; ``container_access_type`` and ``metadata``
are updated in place (the container's stored access policies are kept). As in Terraform, which has
no ``force_destroy`` for containers, destroying a container deletes the blobs still in it. The ID
and import ID is the container URL: ``https://ACCOUNT.blob.core.windows.net/NAME``, or with an
emulator ``http://HOST:PORT/ACCOUNT/NAME``.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, known, stored_map
from adapters._recovery import known_strings
from adapters.azurerm.client import client_of, parse_url, sdk_errors
from adapters.azurerm.schemas import CONTAINER_SCHEMA
from adapters.base import AdapterContext, AdapterError, ResourceType


class StorageContainer(ResourceType):
    """A container; its URL is its ID."""

    name = "azurerm_storage_container"
    schema = CONTAINER_SCHEMA
    computed = frozenset({"id", "has_immutability_policy", "has_legal_hold"})
    replace_on = frozenset({"name", "storage_account_name"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = _normalized(planned)
        client_of(ctx, out["storage_account_name"])  # a wrong account is a plan-time error
        return super().plan(ctx, prior, out)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        from azure.core.exceptions import ResourceNotFoundError

        client = client_of(ctx, attrs.get("storage_account_name"))
        container = client.blobs.get_container_client(attrs["name"])
        with sdk_errors(ctx, f'reading container "{attrs["name"]}"'):
            try:
                props = container.get_container_properties()
            except ResourceNotFoundError:
                return None
        return _attributes(attrs, container, props)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        from azure.core.exceptions import ResourceExistsError

        attrs = _normalized(known(planned))
        client = client_of(ctx, attrs["storage_account_name"])
        container = client.blobs.get_container_client(attrs["name"])
        with sdk_errors(ctx, f'creating container "{attrs["name"]}"'):
            try:
                container.create_container(metadata=attrs["metadata"], public_access=_public(attrs))
            except ResourceExistsError as exc:
                if getattr(exc, "error_code", None) == "ContainerBeingDeleted":
                    raise AdapterError(f'container "{attrs["name"]}" is still being deleted',
                                       hint="Azure takes a while to free a deleted container's name; "
                                       "apply again in a minute.", address=ctx.address) from None
                raise AdapterError(f'container "{attrs["name"]}" already exists',
                                   hint=f"Adopt it with: ctl import {ctx.address} {container.url}",
                                   address=ctx.address) from None
            props = container.get_container_properties()
        return _attributes(attrs, container, props)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        attrs = _normalized(known(planned))
        client = client_of(ctx, attrs["storage_account_name"])
        container = client.blobs.get_container_client(attrs["name"])
        with sdk_errors(ctx, f'updating container "{attrs["name"]}"'):
            if attrs["metadata"] != stored_map(prior.get("metadata")):
                container.set_container_metadata(metadata=attrs["metadata"] or {})
            if attrs["container_access_type"] != prior.get("container_access_type"):
                policy = container.get_container_access_policy()
                kept = {si.id: si.access_policy for si in policy.get("signed_identifiers") or []}
                container.set_container_access_policy(signed_identifiers=kept, public_access=_public(attrs))
            props = container.get_container_properties()
        return _attributes(attrs, container, props)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from azure.core.exceptions import ResourceNotFoundError

        client = client_of(ctx, prior.get("storage_account_name"))
        with sdk_errors(ctx, f'deleting container "{prior["name"]}"'):
            try:
                client.blobs.get_container_client(prior["name"]).delete_container()
            except ResourceNotFoundError:
                return

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the container URL, ``https://ACCOUNT.blob.core.windows.net/NAME``."""
        account, (name,) = parse_url(ctx, resource_id, "blob", 1)
        client_of(ctx, account)
        return complete(self.schema, {"name": name, "storage_account_name": account})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The container URL, as the configured client spells it (path-style with an emulator)."""
        names = known_strings(identity, "storage_account_name", "name")
        if names is None:
            return None
        return str(client_of(ctx, names[0]).blobs.get_container_client(names[1]).url).rstrip("/")


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    out = complete(CONTAINER_SCHEMA, attrs)
    if isinstance(out["metadata"], dict):
        out["metadata"] = stored_map(out["metadata"])
    return out


def _public(attrs: dict[str, Any]) -> str | None:
    """The SDK's public access level: None for private."""
    access = attrs["container_access_type"]
    return None if access in (None, "private") else access


def _attributes(base: dict[str, Any], container: Any, props: Any) -> dict[str, Any]:
    """The state of a container: what the service reports."""
    out = _normalized(base)
    out.update(
        name=container.container_name,
        storage_account_name=container.account_name,
        container_access_type=props.public_access or "private",
        metadata=stored_map(props.metadata),
        id=container.url.rstrip("/"),
        has_immutability_policy=bool(props.has_immutability_policy),
        has_legal_hold=bool(props.has_legal_hold),
    )
    return out
