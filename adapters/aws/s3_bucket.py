"""``aws_s3_bucket`` and the ``aws_s3_bucket`` data source.

Since version 4 of Terraform's AWS provider a bucket's versioning, encryption, public-access block
and policy are separate resource types (``s3_bucket_config``), so this one owns only the bucket,
its name and its tags. ``force_destroy`` lives only in state: it decides whether deleting a bucket
that still holds objects (any version, any delete marker) empties it first or is refused.

The state is the one HashiCorp's provider writes, so a stack moves between the two with no planned
change, and a configuration may refer to any attribute the provider records. Those ctl reads back
on every refresh: the names and ``hosted_zone_id`` (the region's S3 website zone), ``grant`` (the
bucket's ACL), ``versioning`` and ``policy`` (``""`` when it has none). The others (``cors_rule``,
``lifecycle_rule``, ``logging``, ``website`` … and ``acceleration_status``, ``request_payer``,
``object_lock_enabled``) are configured by resource types of their own or not natively at all; a
new bucket has none, recorded as the provider records none (``[]``, ``""``, ``false``), and a
refresh keeps what the state holds.
"""

from __future__ import annotations

from typing import Any

from adapters._recovery import known_strings
from adapters.aws import policy as policy_json
from adapters.aws import schema as s
from adapters.aws.base import AwsResource, exclusive, unique_name
from adapters.aws.errors import call, pages
from adapters.aws.session import AwsClients
from adapters.base import AdapterContext, AdapterError

BUCKET_GONE = frozenset({"404", "NoSuchBucket", "NotFound"})

# The Route 53 zone of S3's website endpoints in each region, as the provider records it.
HOSTED_ZONES = {
    "af-south-1": "Z83WF9RJE8B12", "ap-east-1": "ZNB98KWMFR0R6", "ap-northeast-1": "Z2M4EHUR26P7ZW",
    "ap-northeast-2": "Z3W03O7B5YMIYP", "ap-northeast-3": "Z2YQB5RD63NC85", "ap-south-1": "Z11RGJOFQNVJUP",
    "ap-southeast-1": "Z3O0J2DXBE1FTB", "ap-southeast-2": "Z1WCIGYICN2BYD", "ca-central-1": "Z1QDHH18159H29",
    "cn-north-1": "Z5CN8UMXT92WN", "cn-northwest-1": "Z282HJ1KT0DH03", "eu-central-1": "Z21DNDUVLTQW6Q",
    "eu-north-1": "Z3BAZG2TWCNX0D", "eu-south-1": "Z30OZKI7KPW7MI", "eu-west-1": "Z1BKCTXD74EZPE",
    "eu-west-2": "Z3GKZC51ZF0DB4", "eu-west-3": "Z3R1K369G5AVDG", "me-south-1": "Z1MPMWCPA7YB62",
    "sa-east-1": "Z7KQH4QJS55SO", "us-east-1": "Z3AQBSTGFYJSTF", "us-east-2": "Z2O1EMRO9K5GLX",
    "us-gov-east-1": "Z2NIFVYYW2VKV1", "us-gov-west-1": "Z31GFT0UA1I2HV", "us-west-1": "Z2F56UZL2M1ACD",
    "us-west-2": "Z3BJ6K6RIION7M",
}

_LOCATION = {
    "id": s.computed("The bucket name."),
    "hosted_zone_id": s.computed("Route 53 zone of the region's S3 website endpoint."),
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
        "hosted_zone_id": HOSTED_ZONES.get(region),
    }


# What the provider records and ctl reads back on refresh (``_read_settings``).
_READ_BACK = {
    "grant": s.computed("The bucket's ACL grants: id, type, uri and permissions of each grantee.", "array"),
    "versioning": s.computed("Versioning: enabled and mfa_delete (set with aws_s3_bucket_versioning).", "array"),
    "policy": s.computed("The bucket policy (JSON; set with aws_s3_bucket_policy); empty when none."),
}
# What the provider records and a new bucket holds none of: kept as recorded.
_AS_CREATED: dict[str, Any] = {
    "acceleration_status": "", "request_payer": "", "object_lock_enabled": False,
    "cors_rule": [], "lifecycle_rule": [], "logging": [], "object_lock_configuration": [],
    "replication_configuration": [], "server_side_encryption_configuration": [], "website": [],
    "website_domain": None, "website_endpoint": None, "acl": None, "timeouts": None,
}


def _as_created_schema(name: str, value: Any) -> dict[str, Any]:
    kind = "array" if isinstance(value, list) else "boolean" if isinstance(value, bool) else "string"
    if name == "timeouts":
        return {"type": ["object", "null"], "readOnly": True, "description": "The provider's operation timeouts."}
    return s.computed(f"As the provider records it; a new bucket has none ({value!r}).", kind)


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
        **_READ_BACK,
        **{name: _as_created_schema(name, value) for name, value in _AS_CREATED.items()},
    })
    computed = frozenset({"id", "bucket", "arn", "bucket_domain_name", "bucket_regional_domain_name", "region",
                          "hosted_zone_id", "tags_all", *_READ_BACK, *_AS_CREATED})
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
        out["bucket_prefix"] = out.get("bucket_prefix") or ""
        self._put_tags(ctx, name, out["tags_all"] or {})
        out.update(_AS_CREATED)
        out.update(self._read_settings(ctx, name, out))
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
        out.update(self._read_settings(ctx, name, out))
        for attr, blank in _AS_CREATED.items():
            if out.get(attr) is None:
                out[attr] = blank
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

    def _read_settings(self, ctx: AdapterContext, name: str, out: dict[str, Any]) -> dict[str, Any]:
        """``grant``, ``versioning`` and ``policy`` as the bucket has them, spelled as the provider
        records them."""
        s3 = self.api(ctx)
        acl = call(ctx, what(name), s3.get_bucket_acl, missing=BUCKET_GONE, Bucket=name) or {}
        versioning = call(ctx, what(name), s3.get_bucket_versioning, missing=BUCKET_GONE, Bucket=name) or {}
        policy = call(ctx, what(name), s3.get_bucket_policy, missing=BUCKET_GONE | {"NoSuchBucketPolicy"},
                      Bucket=name) or {}
        return {
            "grant": _grants(acl.get("Grants") or []),
            "versioning": [{"enabled": versioning.get("Status") == "Enabled",
                            "mfa_delete": versioning.get("MFADelete") == "Enabled"}],
            "policy": policy_json.provider_text(out.get("policy"), policy.get("Policy")),
        }

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


def _grants(grants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An ACL's grants as the provider records them: one entry per grantee, its permissions together."""
    by_grantee: dict[tuple[str, str, str], set[str]] = {}
    for grant in grants:
        grantee = grant.get("Grantee") or {}
        key = (str(grantee.get("ID") or ""), str(grantee.get("Type") or ""), str(grantee.get("URI") or ""))
        by_grantee.setdefault(key, set()).add(str(grant.get("Permission") or ""))
    return [{"id": ident, "permissions": sorted(permissions), "type": kind, "uri": uri}
            for (ident, kind, uri), permissions in sorted(by_grantee.items())]


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
