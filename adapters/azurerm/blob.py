"""``azurerm_storage_blob``: a Block, Append or Page blob, with Terraform's attribute names.

New bytes mean a new blob (replacement, as in Terraform): plan puts the MD5 of the bytes to upload
into ``content_md5`` and refresh puts the blob's stored Content-MD5 there, so content changed in
the configuration *or* behind ctl's back forces a replacement. ctl sets Content-MD5 on every blob it
uploads, Append and Page blobs included; appends or page writes made later outside ctl do not change
it, so for those types such drift goes unseen. ``content_type`` and ``metadata`` are updated in place.
Blobs are created only if absent. The ID and import ID is the blob URL,
``https://ACCOUNT.blob.core.windows.net/CONTAINER/NAME`` (emulators: ``http://HOST:PORT/ACCOUNT/…``);
after an import the state holds no ``source``/``source_content``, and a configuration whose bytes
match the stored MD5 plans no change.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, known, stored_map
from adapters._recovery import known_strings
from adapters.azurerm import _payload
from adapters.azurerm.client import client_of, parse_url, sdk_errors
from adapters.azurerm.schemas import BLOB_SCHEMA
from adapters.base import AdapterContext, AdapterError, ResourceType

_SDK_TYPES = {"Block": "BlockBlob", "Append": "AppendBlob", "Page": "PageBlob"}
_PAGE = 512


class StorageBlob(ResourceType):
    """A blob; its URL is its ID."""

    name = "azurerm_storage_blob"
    schema = BLOB_SCHEMA
    computed = frozenset({"id", "url", "content_md5"})
    replace_on = frozenset({"name", "storage_account_name", "storage_container_name", "type", "size",
                            "source_content", "source", "content_md5"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = _normalized(planned)
        client_of(ctx, out["storage_account_name"])
        digest = _payload.md5_digest(ctx, out)
        if digest is not None:
            want = digest.hex()
            if isinstance(out["content_md5"], str) and out["content_md5"] != want:
                raise AdapterError(f"content_md5 {out['content_md5']} does not match the content (MD5 {want})",
                                   hint="Leave content_md5 out: ctl computes it.", address=ctx.address)
            out["content_md5"] = want
            if prior is not None and want == prior.get("content_md5"):
                # Same bytes as stored: which argument holds them is no reason to re-upload.
                out["source_content"], out["source"] = prior.get("source_content"), prior.get("source")
        return super().plan(ctx, prior, out)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        from azure.core.exceptions import ResourceNotFoundError

        blob = _blob_client(ctx, attrs)
        with sdk_errors(ctx, f'reading blob "{attrs["name"]}" in container "{attrs["storage_container_name"]}"'):
            try:
                props = blob.get_blob_properties()
            except ResourceNotFoundError:
                return None
        return _attributes(attrs, blob, props)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        import hashlib

        from azure.core import MatchConditions
        from azure.core.exceptions import ResourceExistsError, ResourceNotFoundError
        from azure.storage.blob import ContentSettings

        attrs = _normalized(known(planned))
        blob = _blob_client(ctx, attrs)
        data = _payload.read_bytes(ctx, attrs)
        kind = attrs["type"]
        if kind == "Page" and len(data) % _PAGE:
            raise AdapterError(f"a Page blob's content must be a multiple of 512 bytes; it is {len(data)}",
                               address=ctx.address)
        settings = ContentSettings(content_type=attrs["content_type"],
                                   content_md5=bytearray(hashlib.md5(data, usedforsecurity=False).digest()))
        container = attrs["storage_container_name"]
        with sdk_errors(ctx, f'uploading blob "{attrs["name"]}" to container "{container}"'):
            try:
                if kind == "Page" and not data:
                    blob.create_page_blob(size=attrs["size"] or 0, content_settings=settings,
                                          metadata=attrs["metadata"], match_condition=MatchConditions.IfMissing)
                else:
                    blob.upload_blob(data, blob_type=_SDK_TYPES[kind], content_settings=settings,
                                     metadata=attrs["metadata"], overwrite=False)
            except ResourceExistsError:
                raise AdapterError(f'blob "{attrs["name"]}" already exists in container "{container}"',
                                   hint=f"Adopt it with: ctl import {ctx.address} {blob.url}",
                                   address=ctx.address) from None
            except ResourceNotFoundError:
                raise AdapterError(f'container "{container}" does not exist', address=ctx.address) from None
            props = blob.get_blob_properties()
        return _attributes(attrs, blob, props)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        attrs = _normalized(known(planned))
        blob = _blob_client(ctx, attrs)
        with sdk_errors(ctx, f'updating blob "{attrs["name"]}" in container "{attrs["storage_container_name"]}"'):
            props = blob.get_blob_properties()
            if attrs["content_type"] != props.content_settings.content_type:
                settings = props.content_settings  # every header is rewritten: keep the others
                settings.content_type = attrs["content_type"]
                blob.set_http_headers(content_settings=settings)
            if attrs["metadata"] != stored_map(props.metadata):
                blob.set_blob_metadata(metadata=attrs["metadata"] or {})
            props = blob.get_blob_properties()
        return _attributes(attrs, blob, props)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from azure.core.exceptions import ResourceNotFoundError

        blob = _blob_client(ctx, prior)
        with sdk_errors(ctx, f'deleting blob "{prior["name"]}" from container "{prior["storage_container_name"]}"'):
            try:
                blob.delete_blob(delete_snapshots="include")
            except ResourceNotFoundError:
                return

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the blob URL, ``https://ACCOUNT.blob.core.windows.net/CONTAINER/NAME``."""
        account, (container, name) = parse_url(ctx, resource_id, "blob", 2)
        client_of(ctx, account)
        return complete(self.schema, {"name": name, "storage_account_name": account,
                                      "storage_container_name": container})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The blob URL, as the configured client spells it (the name URL-quoted)."""
        names = known_strings(identity, "storage_account_name", "storage_container_name", "name")
        if names is None:
            return None
        account, container, name = names
        return str(client_of(ctx, account).blobs.get_blob_client(container, name).url)


def _blob_client(ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
    client = client_of(ctx, attrs.get("storage_account_name"))
    return client.blobs.get_blob_client(attrs["storage_container_name"], attrs["name"])


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    out = complete(BLOB_SCHEMA, attrs)
    if isinstance(out["metadata"], dict):
        out["metadata"] = stored_map(out["metadata"])
    if isinstance(out["content_md5"], str):
        out["content_md5"] = out["content_md5"].lower()
    return out


def _attributes(base: dict[str, Any], blob: Any, props: Any) -> dict[str, Any]:
    """The state of a blob: what the service reports, the content arguments from ``base``."""
    out = _normalized(base)
    md5 = props.content_settings.content_md5
    kind = str(getattr(props.blob_type, "value", props.blob_type)).removesuffix("Blob")
    out.update(
        name=blob.blob_name,
        storage_account_name=blob.account_name,
        storage_container_name=blob.container_name,
        type=kind,
        content_type=props.content_settings.content_type,
        content_md5=bytes(md5).hex() if md5 else None,
        metadata=stored_map(props.metadata),
        url=blob.url,
        id=blob.url,
    )
    return out
