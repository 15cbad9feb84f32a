"""``aws_s3_bucket`` and the ``aws_s3_bucket`` data source.

Since version 4 of Terraform's AWS provider a bucket's versioning, encryption, public-access block
and policy are separate resource types (``s3_bucket_config``), so this one owns only the bucket,
its name and its tags. ``force_destroy`` lives only in state: it decides whether deleting a bucket
that still holds objects (any version, any delete marker) empties it first or is refused.
"""

from __future__ import annotations

from typing import Any

from adapters._recovery import known_strings
from adapters.aws import schema as s
from adapters.aws.base import AwsResource, exclusive, unique_name
from adapters.aws.errors import call, pages
from adapters.aws.session import AwsClients
from adapters.base import AdapterContext, AdapterError

BUCKET_GONE = frozenset({"404", "NoSuchBucket", "NotFound"})

_LOCATION = {
    "id": s.computed("The bucket name."),
    "arn": s.computed("ARN of the bucket: arn:aws:s3:::NAME."),
    "bucket_domain_name": s.computed("NAME.s3.amazonaws.com."),
    "bucket_regional_domain_name": s.computed("NAME.s3.REGION.amazonaws.com."),
    "region": s.computed("The region the bucket lives in."),
}


def what(name: str) -> str:
    return f'S3 bucket "{name}"'


def bucket_region(ctx: AdapterContext, clients: AwsClients, name: str) -> str | None:
    """The bucket's region, or None when the bucket does not exist."""
    s3 = clients.client("s3")
    head = call(ctx, what(name), s3.head_bucket, missing=BUCKET_GONE, Bucket=name)
    if head is None:
        return None
    region = head.get("BucketRegion")
    if not region:
        location = call(ctx, what(name), s3.get_bucket_location, Bucket=name) or {}
        region = location.get("LocationConstraint") or "us-east-1"
    return str(region)


def location_attributes(clients: AwsClients, name: str, region: str) -> dict[str, Any]:
    """The computed names of a bucket, as Terraform derives them."""
    suffix = clients.dns_suffix
    return {
        "id": name,
        "bucket": name,
        "arn": f"arn:{clients.partition}:s3:::{name}",
        "bucket_domain_name": f"{name}.s3.{suffix}",
        "bucket_regional_domain_name": f"{name}.s3.{region}.{suffix}",
        "region": region,
    }


class S3Bucket(AwsResource):
    """An S3 bucket: created in the provider's region, tagged, emptied only with ``force_destroy``."""

    name = "aws_s3_bucket"
    service = "s3"
    taggable = True
    schema = s.resource_schema({
        "bucket": s.string("Bucket name; generated from bucket_prefix (or ctl-…) when unset.",
                           minLength=3, maxLength=63),
        "bucket_prefix": s.string("Prefix of a generated bucket name.", maxLength=37),
        "force_destroy": s.boolean("Delete every object (all versions) when the bucket is destroyed.", False),
        **s.tags_properties(),
        **_LOCATION,
    })
    computed = frozenset({"id", "bucket", "arn", "bucket_domain_name", "bucket_regional_domain_name", "region",
                          "tags_all"})
    replace_on = frozenset({"bucket", "bucket_prefix"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        exclusive(ctx, out, "bucket", "bucket_prefix")
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        clients = self.clients(ctx)
        s3 = self.api(ctx)
        out = self.prepared(planned)
        name = out.get("bucket") or unique_name(out.get("bucket_prefix") or "ctl-", limit=63)
        kwargs: dict[str, Any] = {"Bucket": name}
        if clients.region != "us-east-1":
            kwargs["CreateBucketConfiguration"] = {"LocationConstraint": clients.region}
        call(ctx, what(name), s3.create_bucket, **kwargs)
        out.update(location_attributes(clients, name, clients.region))
        self._put_tags(ctx, name, out["tags_all"] or {})
        return out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        clients = self.clients(ctx)
        out = self.complete(attrs)
        name = str(out.get("bucket") or out.get("id"))
        region = bucket_region(ctx, clients, name)
        if region is None:
            return None
        out.update(location_attributes(clients, name, region))
        tagging = call(ctx, what(name), self.api(ctx).get_bucket_tagging, missing={"NoSuchTagSet"}, Bucket=name)
        actual = {t["Key"]: t["Value"] for t in (tagging or {}).get("TagSet", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        if (prior.get("tags_all") or {}) != (out.get("tags_all") or {}):
            self._put_tags(ctx, out["bucket"], out["tags_all"] or {}, replace=True)
        return out  # force_destroy lives only in state

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        name = prior.get("bucket") or prior.get("id")
        if not name:
            return
        s3 = self.api(ctx)
        if prior.get("force_destroy"):
            self._empty(ctx, name)
        elif self._holds_objects(ctx, name):
            raise AdapterError(
                f"{what(name)} is not empty, so it was not deleted",
                hint="Set force_destroy = true and apply before destroying, or empty the bucket first.",
                address=ctx.address or None,
            )
        call(ctx, what(name), s3.delete_bucket, missing=BUCKET_GONE, Bucket=name)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the bucket name."""
        return self.complete({"id": resource_id, "bucket": resource_id})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The bucket name; a name still to be generated from ``bucket_prefix`` names nothing."""
        names = known_strings(identity, "bucket")
        return names[0] if names else None

    # ---- helpers ---------------------------------------------------------------------------

    def _put_tags(self, ctx: AdapterContext, name: str, tags: dict[str, str], *, replace: bool = False) -> None:
        s3 = self.api(ctx)
        if tags:
            tag_set = [{"Key": k, "Value": v} for k, v in sorted(tags.items())]
            call(ctx, what(name), s3.put_bucket_tagging, Bucket=name, Tagging={"TagSet": tag_set})
        elif replace:
            call(ctx, what(name), s3.delete_bucket_tagging, missing=BUCKET_GONE, Bucket=name)

    def _holds_objects(self, ctx: AdapterContext, name: str) -> bool:
        found = call(ctx, what(name), self.api(ctx).list_object_versions, missing=BUCKET_GONE, Bucket=name,
                     MaxKeys=1)
        return bool(found and (found.get("Versions") or found.get("DeleteMarkers")))

    def _empty(self, ctx: AdapterContext, name: str) -> None:
        """Delete every object version and delete marker, 1,000 per request."""
        s3 = self.api(ctx)
        for page in pages(ctx, what(name), s3, "list_object_versions", missing=BUCKET_GONE, Bucket=name):
            keys = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                    for v in [*page.get("Versions", []), *page.get("DeleteMarkers", [])]]
            for start in range(0, len(keys), 1000):
                result = call(ctx, what(name), s3.delete_objects, Bucket=name,
                              Delete={"Objects": keys[start:start + 1000], "Quiet": True})
                errors = (result or {}).get("Errors") or []
                if errors:
                    first = errors[0]
                    raise AdapterError(
                        f"emptying {what(name)} failed for {first.get('Key')!r}: "
                        f"{first.get('Code')}: {first.get('Message')}",
                        address=ctx.address or None,
                    )


class S3BucketData(AwsResource):
    """Data source ``aws_s3_bucket``: an existing bucket's region and names."""

    name = "aws_s3_bucket"
    mode = "data"
    service = "s3"
    schema = s.resource_schema({"bucket": s.required_string("Name of the bucket."), **_LOCATION},
                               required=("bucket",))
    computed = frozenset(_LOCATION)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        clients = self.clients(ctx)
        name = attrs["bucket"]
        region = bucket_region(ctx, clients, name)
        if region is None:
            return None
        return {**self.complete(attrs), **location_attributes(clients, name, region)}
