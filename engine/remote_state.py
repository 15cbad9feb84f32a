"""The ``terraform_remote_state`` data source: another configuration's root outputs, from any backend.

Teams split infrastructure into stacks that read each other's outputs, as with Terraform::

    data "terraform_remote_state" "net" {
      backend   = "s3"
      config    = { bucket = "team-state", key = "network/ctl.tfstate", region = "eu-west-1" }
      workspace = "prod"            # optional, default "default"
      defaults  = { vpc_id = null } # optional: values for outputs the state does not (yet) have
    }
    # data.terraform_remote_state.net.outputs.vpc_id

It lives in the engine, not in an adapter, because it needs the state stores: adapters and backends
never import each other. ``install`` adds it to the registry's built-in ``terraform`` provider
wherever the engine discovers adapters.

The state is read without taking its lock — reading must never block or be blocked by the stack
that owns it — and the snapshot read is one consistent document, since every state write replaces
the whole object. Outputs that stack marked sensitive stay sensitive here.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.registry import Registry
from backends.base import DEFAULT_WORKSPACE
from vocab.errors import CtlError
from vocab.values import mark

NAME = "terraform_remote_state"
_KINDS = ("local", "s3", "gcs", "azurerm")

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "backend": {"type": "string", "enum": list(_KINDS),
                    "description": "The backend type the other state is kept in."},
        "config": {"type": ["object", "null"],
                   "description": "The settings of that backend, as in its backend block."},
        "workspace": {"type": ["string", "null"], "description": 'The workspace to read (default "default").'},
        "defaults": {"type": ["object", "null"],
                     "description": "Values for outputs the state does not have."},
        "outputs": {"readOnly": True, "description": "The state's root module outputs, as an object."},
    },
    "required": ["backend"],
    "additionalProperties": False,
}


class RemoteStateData(ResourceType):
    """Reads the root outputs of a state in a local, s3, gcs or azurerm backend."""

    name = NAME
    mode = "data"
    schema = SCHEMA
    computed = frozenset({"outputs"})

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        from backends.factory import make_store

        backend = str(attrs.get("backend") or "")
        config = dict(attrs.get("config") or {})
        workspace = str(attrs.get("workspace") or DEFAULT_WORKSPACE)
        defaults = attrs.get("defaults") or {}
        from engine.encryption.lookup import target_in
        from engine.encryption.store import encrypting_store

        store = make_store(backend, config, ctx.workdir)
        target = target_in(ctx.workdir, "state")  # the reading configuration's keys open the other state
        if target is not None:
            store = encrypting_store(store, target)
        try:
            snap = store.read(workspace)
        except CtlError as exc:
            exc.address = exc.address or ctx.address
            raise
        where = store.describe() + ("" if workspace == DEFAULT_WORKSPACE else f' (workspace "{workspace}")')
        if snap is None and workspace != DEFAULT_WORKSPACE:
            raise AdapterError(
                f'no state found for workspace "{workspace}" in the {backend} backend at {store.describe()}',
                hint="Check the workspace name and the backend settings; `ctl workspace list` in that "
                     "configuration shows its workspaces.",
                address=ctx.address,
            )
        outputs: dict[str, Any] = dict(defaults)
        if snap is not None:
            outputs.update(_outputs(snap.data, where, backend, ctx.address))
        return {**attrs, "outputs": outputs}


def _outputs(data: bytes, where: str, backend: str, address: str) -> dict[str, Any]:
    """The root outputs of a state document, sensitive ones marked; a corrupt one names its object."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise AdapterError(f"the state at {where} ({backend} backend) is not valid JSON: {exc}",
                           address=address) from None
    raw = doc.get("outputs") if isinstance(doc, dict) else None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise AdapterError(f'the state at {where} ({backend} backend) has no readable "outputs" object',
                           address=address)
    out: dict[str, Any] = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict) or "value" not in entry:
            raise AdapterError(f'the state at {where} ({backend} backend): output "{name}" has no value',
                               address=address)
        out[name] = mark(entry["value"]) if entry.get("sensitive") else entry["value"]
    return out


_TYPE = RemoteStateData()


def install(registry: Registry) -> Registry:
    """Add ``terraform_remote_state`` to the registry's ``terraform`` provider (idempotent); returns it.

    The provider is replaced by a copy, so the cached provider other registries share is untouched.
    """
    provider = registry.provider("terraform")
    if provider is None or provider.data_sources.get(NAME) is _TYPE:
        return registry
    registry.register(dataclasses.replace(provider, data_sources={**provider.data_sources, NAME: _TYPE}))
    return registry


__all__ = ["NAME", "RemoteStateData", "install"]
