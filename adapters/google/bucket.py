"""``google_storage_bucket``: a Cloud Storage bucket, with Terraform's attribute names.

``name`` and ``location`` force replacement; ``storage_class``, ``labels``, ``versioning`` and
``uniform_bucket_level_access`` are patched in place; ``force_destroy`` lives only in state and
decides whether destroying a bucket that still holds objects deletes them (every version) or is
refused. ``versioning`` and ``uniform_bucket_level_access`` are optional *and* computed: left out of
the configuration, they take (and keep) the bucket's current setting, so an omitted block never
shows as a change. The import ID is the bucket name (``gs://NAME`` and ``PROJECT/NAME`` are
accepted too).
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.google.client import client_of, sdk_errors
from adapters.google.schemas import BUCKET_SCHEMA, complete, known, string_map


class StorageBucket(ResourceType):
    """A bucket; its name is also its ID."""

    name = "google_storage_bucket"
    schema = BUCKET_SCHEMA
    computed = frozenset({"id", "self_link", "url", "versioning", "uniform_bucket_level_access"})
    replace_on = frozenset({"name", "location"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        return super().plan(ctx, prior, _normalized(planned))

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        client = client_of(ctx)
        name = attrs["name"]
        with sdk_errors(ctx, f'reading bucket "{name}"'):
            bucket = client.storage.lookup_bucket(name, retry=client.retry)
        return None if bucket is None else _attributes(attrs, bucket)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        client = client_of(ctx)
        attrs = _normalized(known(planned))
        name = attrs["name"]
        bucket = client.storage.bucket(name)
        bucket.storage_class = attrs["storage_class"]
        if attrs["labels"]:
            bucket.labels = attrs["labels"]
        if attrs["versioning"]:
            bucket.versioning_enabled = attrs["versioning"][0]["enabled"]
        if attrs["uniform_bucket_level_access"] is not None:
            bucket.iam_configuration.uniform_bucket_level_access_enabled = attrs["uniform_bucket_level_access"]
        from google.api_core.exceptions import Conflict

        with sdk_errors(ctx, f'creating bucket "{name}"'):
            try:
                bucket = client.storage.create_bucket(
                    bucket, project=client.project, location=attrs["location"], retry=client.retry
                )
            except Conflict:
                raise AdapterError(
                    f'bucket "{name}" already exists (bucket names are global)',
                    hint=f"If it is yours, adopt it: ctl import {ctx.address} {name}; else choose another name.",
                    address=ctx.address,
                ) from None
        return _attributes(attrs, bucket)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        client = client_of(ctx)
        attrs = _normalized(known(planned))
        name = attrs["name"]
        with sdk_errors(ctx, f'updating bucket "{name}"'):
            bucket = client.storage.get_bucket(name, retry=client.retry)
            changed = False
            if attrs["storage_class"] != prior.get("storage_class"):
                bucket.storage_class = attrs["storage_class"]
                changed = True
            if attrs["labels"] != string_map(prior.get("labels")):
                bucket.labels = attrs["labels"] or {}  # the SDK sends removed keys as null
                changed = True
            if attrs["versioning"] is not None and attrs["versioning"] != prior.get("versioning"):
                bucket.versioning_enabled = attrs["versioning"][0]["enabled"]
                changed = True
            uba = attrs["uniform_bucket_level_access"]
            if uba is not None and uba != prior.get("uniform_bucket_level_access"):
                bucket.iam_configuration.uniform_bucket_level_access_enabled = uba
                changed = True
            if changed:  # a force_destroy change alone is state-only
                bucket.patch(retry=client.retry)
        return _attributes(attrs, bucket)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from google.api_core.exceptions import Conflict, NotFound, PreconditionFailed

        client = client_of(ctx)
        name = prior["name"]
        with sdk_errors(ctx, f'deleting bucket "{name}"'):
            bucket = client.storage.lookup_bucket(name, retry=client.retry)
            if bucket is None:
                return
            if prior.get("force_destroy"):
                _empty(client, bucket)
            try:
                bucket.delete(retry=client.retry)
            except NotFound:
                return
            except (Conflict, PreconditionFailed):  # GCS answers 409, fake-gcs-server 412
                raise AdapterError(
                    f'bucket "{name}" is not empty, and force_destroy is not set',
                    hint="Set force_destroy = true and apply before destroying, or empty the bucket.",
                    address=ctx.address,
                ) from None

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: ``NAME`` (also ``gs://NAME`` or ``PROJECT/NAME``)."""
        name = resource_id.strip().removeprefix("gs://").rstrip("/").rsplit("/", 1)[-1]
        if not name:
            raise AdapterError(f"import ID {resource_id!r} names no bucket", address=ctx.address,
                               hint="Use the bucket name, e.g. my-bucket.")
        return complete(self.schema, {"name": name})


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    """Defaults applied and values in the form the API reports them, so a re-plan is a no-op."""
    out = complete(BUCKET_SCHEMA, attrs)
    if isinstance(out["location"], str):
        out["location"] = out["location"].upper()
    if isinstance(out["storage_class"], str):
        out["storage_class"] = out["storage_class"].upper()
    if isinstance(out["labels"], dict):
        out["labels"] = string_map(out["labels"])
    if isinstance(out["versioning"], list):
        out["versioning"] = [{"enabled": bool(v.get("enabled"))} for v in out["versioning"] if isinstance(v, dict)]
        out["versioning"] = out["versioning"] or None
    return out


def _attributes(base: dict[str, Any], bucket: Any) -> dict[str, Any]:
    """The state of a bucket: what the server reports, state-only arguments from ``base``."""
    out = complete(BUCKET_SCHEMA, base)
    props = bucket._properties  # what the server reported, to tell "absent" from "false"
    name = bucket.name
    out.update(
        name=name,
        location=(bucket.location or out["location"] or "").upper() or None,
        storage_class=bucket.storage_class or out["storage_class"],
        labels=string_map(bucket.labels),
        versioning=[{"enabled": bool(bucket.versioning_enabled)}],
        force_destroy=bool(out["force_destroy"]),
        id=name,
        self_link=bucket.self_link,
        url=f"gs://{name}",
    )
    if "iamConfiguration" in props:
        out["uniform_bucket_level_access"] = bool(bucket.iam_configuration.uniform_bucket_level_access_enabled)
    else:  # not reported (emulators): keep what was configured or recorded
        out["uniform_bucket_level_access"] = bool(out["uniform_bucket_level_access"])
    return out


def _empty(client: Any, bucket: Any) -> None:
    """Delete every object of a bucket, every generation (for ``force_destroy``)."""
    from google.api_core.exceptions import NotFound

    for blob in client.storage.list_blobs(bucket, versions=True, retry=client.retry):
        try:
            bucket.delete_blob(blob.name, generation=blob.generation, retry=client.retry)
        except NotFound:
            continue
