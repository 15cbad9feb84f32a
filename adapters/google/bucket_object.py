"""``google_storage_bucket_object``: one object in a bucket, uploaded from ``content`` or ``source``.

New bytes mean a new object (replacement, as in Terraform): plan puts the MD5 of the bytes to upload
into ``detect_md5hash`` and refresh puts the stored object's MD5 there, so content changed in the
configuration *or* behind ctl's back forces a replacement. ``content_type`` and ``metadata`` are
patched in place without re-uploading. ``content`` is sensitive. Objects are created only if absent
(``ifGenerationMatch=0``), so ctl never silently overwrites an object it does not manage. The import
ID is ``BUCKET/NAME`` (``gs://BUCKET/NAME`` too); after an import the state holds no ``content``
or ``source`` (the service does not know which produced the bytes), and a configuration whose bytes
match the stored MD5 plans no change.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, known, stored_map
from adapters._recovery import joined
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.google import _payload
from adapters.google.client import client_of, sdk_errors
from adapters.google.schemas import OBJECT_SCHEMA

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"  # Terraform's default for `content`


class StorageBucketObject(ResourceType):
    """An object; ``BUCKET/NAME`` is its ID."""

    name = "google_storage_bucket_object"
    schema = OBJECT_SCHEMA
    computed = frozenset({"id", "md5hash", "generation", "media_link", "content_type", "detect_md5hash"})
    replace_on = frozenset({"name", "bucket", "content", "source", "detect_md5hash"})
    sensitive = frozenset({"content"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = _normalized(planned)
        want = _payload.md5_base64(ctx, out)
        out["detect_md5hash"] = want
        if prior is not None and want is not None and want == prior.get("md5hash"):
            # Same bytes as stored: which argument holds them is no reason to re-upload.
            out["content"], out["source"] = prior.get("content"), prior.get("source")
        return super().plan(ctx, prior, out)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        client = client_of(ctx)
        bucket, name = attrs["bucket"], attrs["name"]
        with sdk_errors(ctx, f'reading object "{name}" in bucket "{bucket}"'):
            blob = client.storage.bucket(bucket).get_blob(name, retry=client.retry)
        return None if blob is None else _attributes(attrs, blob)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        from google.api_core.exceptions import NotFound, PreconditionFailed

        client = client_of(ctx)
        attrs = _normalized(known(planned))
        bucket, name = attrs["bucket"], attrs["name"]
        path = _payload.require_readable(ctx, attrs)
        blob = client.storage.bucket(bucket).blob(name)
        if attrs["metadata"]:
            blob.metadata = attrs["metadata"]
        options: dict[str, Any] = {"if_generation_match": 0, "retry": client.retry}
        with sdk_errors(ctx, f'uploading object "{name}" to bucket "{bucket}"'):
            try:
                if path is None:
                    content_type = attrs["content_type"] or TEXT_CONTENT_TYPE
                    blob.upload_from_string(attrs["content"].encode("utf-8"), content_type=content_type, **options)
                else:
                    blob.upload_from_filename(str(path), content_type=attrs["content_type"], **options)
            except PreconditionFailed:
                raise AdapterError(
                    f'object "{name}" already exists in bucket "{bucket}"',
                    hint=f"Adopt it with: ctl import {ctx.address} {bucket}/{name}",
                    address=ctx.address,
                ) from None
            except NotFound:
                raise AdapterError(f'bucket "{bucket}" does not exist', address=ctx.address) from None
        return _attributes(attrs, blob)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        client = client_of(ctx)
        attrs = _normalized(known(planned))
        bucket, name = attrs["bucket"], attrs["name"]
        with sdk_errors(ctx, f'updating object "{name}" in bucket "{bucket}"'):
            blob = client.storage.bucket(bucket).get_blob(name, retry=client.retry)
            if blob is None:
                raise AdapterError(f'object "{name}" in bucket "{bucket}" no longer exists',
                                   hint="Run ctl plan again: it will plan to create it.", address=ctx.address)
            changed = False
            if attrs["content_type"] is not None and attrs["content_type"] != blob.content_type:
                blob.content_type = attrs["content_type"]
                changed = True
            current = stored_map(blob.metadata) or {}
            wanted = attrs["metadata"] or {}
            if wanted != current:
                # Patch merges keys: a removed key is sent as null.
                blob.metadata = {**dict.fromkeys(set(current) - set(wanted)), **wanted}
                changed = True
            if changed:
                blob.patch(retry=client.retry)
        return _attributes(attrs, blob)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from google.api_core.exceptions import NotFound

        client = client_of(ctx)
        bucket, name = prior["bucket"], prior["name"]
        with sdk_errors(ctx, f'deleting object "{name}" from bucket "{bucket}"'):
            try:
                client.storage.bucket(bucket).delete_blob(name, retry=client.retry)
            except NotFound:
                return

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: ``BUCKET/NAME`` (or ``gs://BUCKET/NAME``); the name may contain ``/``."""
        bucket, _, name = resource_id.strip().removeprefix("gs://").partition("/")
        if not bucket or not name:
            raise AdapterError(f"import ID {resource_id!r} is not BUCKET/NAME", address=ctx.address,
                               hint="For example: my-bucket/path/to/object.txt")
        return complete(self.schema, {"bucket": bucket, "name": name})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """``BUCKET/NAME``."""
        return joined(identity, "/", "bucket", "name")


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    out = complete(OBJECT_SCHEMA, attrs)
    if isinstance(out["metadata"], dict):
        out["metadata"] = stored_map(out["metadata"])
    return out


def _attributes(base: dict[str, Any], blob: Any) -> dict[str, Any]:
    """The state of an object: what the server reports, ``content``/``source`` from ``base``."""
    out = _normalized(base)
    generation = blob.generation
    out.update(
        name=blob.name,
        bucket=blob.bucket.name,
        content_type=blob.content_type,
        metadata=stored_map(blob.metadata),
        md5hash=blob.md5_hash,
        detect_md5hash=blob.md5_hash,
        generation=int(generation) if generation is not None else None,
        media_link=blob.media_link,
        id=f"{blob.bucket.name}/{blob.name}",
    )
    return out
