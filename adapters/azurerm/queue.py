"""``azurerm_storage_queue``: a storage queue, with Terraform's attribute names.

``name`` and ``storage_account_name`` force replacement; ``metadata`` is updated in place. Create
refuses a queue that already exists (the service itself would accept it silently when the metadata
matches), so ctl never adopts an object without ``ctl import``. The ID and import ID is the queue
URL: ``https://ACCOUNT.queue.core.windows.net/NAME``, or with an emulator
``http://HOST:PORT/ACCOUNT/NAME``.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, known, stored_map
from adapters._recovery import known_strings
from adapters.azurerm.client import client_of, parse_url, sdk_errors
from adapters.azurerm.schemas import QUEUE_SCHEMA
from adapters.base import AdapterContext, AdapterError, ResourceType


class StorageQueue(ResourceType):
    """A queue; its URL is its ID."""

    name = "azurerm_storage_queue"
    schema = QUEUE_SCHEMA
    computed = frozenset({"id"})
    replace_on = frozenset({"name", "storage_account_name"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = _normalized(planned)
        client_of(ctx, out["storage_account_name"])
        return super().plan(ctx, prior, out)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        from azure.core.exceptions import ResourceNotFoundError

        queue = client_of(ctx, attrs.get("storage_account_name")).queues().get_queue_client(attrs["name"])
        with sdk_errors(ctx, f'reading queue "{attrs["name"]}"'):
            try:
                props = queue.get_queue_properties()
            except ResourceNotFoundError:
                return None
        return _attributes(attrs, queue, props)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        from azure.core.exceptions import ResourceExistsError, ResourceNotFoundError

        attrs = _normalized(known(planned))
        queue = client_of(ctx, attrs["storage_account_name"]).queues().get_queue_client(attrs["name"])
        exists = AdapterError(f'queue "{attrs["name"]}" already exists',
                              hint=f"Adopt it with: ctl import {ctx.address} {queue.url}", address=ctx.address)
        with sdk_errors(ctx, f'creating queue "{attrs["name"]}"'):
            try:
                queue.get_queue_properties()
                raise exists
            except ResourceNotFoundError:
                pass
            try:
                queue.create_queue(metadata=attrs["metadata"])
            except ResourceExistsError:
                raise exists from None
            props = queue.get_queue_properties()
        return _attributes(attrs, queue, props)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        attrs = _normalized(known(planned))
        queue = client_of(ctx, attrs["storage_account_name"]).queues().get_queue_client(attrs["name"])
        with sdk_errors(ctx, f'updating queue "{attrs["name"]}"'):
            if attrs["metadata"] != stored_map(prior.get("metadata")):
                queue.set_queue_metadata(metadata=attrs["metadata"] or {})
            props = queue.get_queue_properties()
        return _attributes(attrs, queue, props)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from azure.core.exceptions import ResourceNotFoundError

        queue = client_of(ctx, prior.get("storage_account_name")).queues().get_queue_client(prior["name"])
        with sdk_errors(ctx, f'deleting queue "{prior["name"]}"'):
            try:
                queue.delete_queue()
            except ResourceNotFoundError:
                return

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the queue URL, ``https://ACCOUNT.queue.core.windows.net/NAME``."""
        account, (name,) = parse_url(ctx, resource_id, "queue", 1)
        client_of(ctx, account)
        return complete(self.schema, {"name": name, "storage_account_name": account})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The queue URL, as the configured client spells it (path-style with an emulator)."""
        names = known_strings(identity, "storage_account_name", "name")
        if names is None:
            return None
        return str(client_of(ctx, names[0]).queues().get_queue_client(names[1]).url).rstrip("/")


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    out = complete(QUEUE_SCHEMA, attrs)
    if isinstance(out["metadata"], dict):
        out["metadata"] = stored_map(out["metadata"])
    return out


def _attributes(base: dict[str, Any], queue: Any, props: Any) -> dict[str, Any]:
    out = _normalized(base)
    out.update(
        name=queue.queue_name,
        storage_account_name=queue.account_name,
        metadata=stored_map(props.metadata),
        id=queue.url.rstrip("/"),
    )
    return out
