"""The parts of a bucket Terraform manages as resources of their own.

``aws_s3_bucket_versioning``, ``aws_s3_bucket_server_side_encryption_configuration``,
``aws_s3_bucket_public_access_block`` and ``aws_s3_bucket_policy`` each hold one sub-resource of
a bucket, identified (and imported) by the bucket name. Each reads back as None when its bucket is
gone or the setting was removed outside ctl, so the next plan puts it back.

Real AWS encrypts every new bucket with SSE-S3 by default, so after the encryption resource is
destroyed AWS still reports AES256; moto reports no configuration at all (the tests say so).
"""

from __future__ import annotations

from typing import Any, ClassVar

from adapters._recovery import known_strings
from adapters.aws import policy as policy_json
from adapters.aws import schema as s
from adapters.aws.base import AwsResource, keep_unset
from adapters.aws.errors import call
from adapters.aws.s3_bucket import BUCKET_GONE, what
from adapters.base import AdapterContext, AdapterError

_PART_PROPS: dict[str, Any] = {
    "bucket": s.required_string("Name of the bucket."),
    "expected_bucket_owner": s.string("Account ID expected to own the bucket (requests fail otherwise)."),
    "id": s.computed("The bucket name."),
}


class _BucketPart(AwsResource):
    """A sub-resource of one bucket: ``id`` is the bucket name; ``bucket`` forces replacement."""

    service = "s3"
    gone_codes: ClassVar[frozenset[str]] = BUCKET_GONE

    def kwargs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"Bucket": attrs["bucket"]}
        if attrs.get("expected_bucket_owner"):
            out["ExpectedBucketOwner"] = attrs["expected_bucket_owner"]
        return out

    def fetch(self, ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
        """The API's view of the setting, or None when it (or the bucket) is gone."""
        raise NotImplementedError

    def put(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        raise NotImplementedError

    def shape(self, out: dict[str, Any], found: Any) -> dict[str, Any] | None:
        """The attributes for what ``fetch`` found (``out`` holds the prior ones)."""
        raise NotImplementedError

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        self.put(ctx, out)
        out["id"] = out["bucket"]
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self.create(ctx, planned)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        out = self.complete(attrs)
        out["bucket"] = out.get("bucket") or out.get("id")
        found = self.fetch(ctx, out)
        if found is None:
            return None
        shaped = self.shape(out, found)
        if shaped is not None:
            shaped["id"] = shaped["bucket"]
        return shaped

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the bucket name (``BUCKET,OWNER`` with an expected bucket owner)."""
        bucket, _, owner = resource_id.partition(",")
        return self.complete({"id": bucket, "bucket": bucket, "expected_bucket_owner": owner or None})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The bucket name, with ``,OWNER`` when an expected bucket owner is set (as ``import_`` reads it)."""
        names = known_strings(identity, "bucket")
        if names is None:
            return None
        owner = known_strings(identity, "expected_bucket_owner")
        return f"{names[0]},{owner[0]}" if owner else names[0]


class S3BucketVersioning(_BucketPart):
    """``versioning_configuration { status = "Enabled" | "Suspended" | "Disabled" }``."""

    name = "aws_s3_bucket_versioning"
    schema = s.resource_schema({
        **_PART_PROPS,
        "mfa": s.string("Serial number and current code of the MFA device, for mfa_delete changes."),
        "versioning_configuration": s.block(
            "The versioning state.",
            {"status": s.required_string("Enabled, Suspended or Disabled (only when creating).",
                                         enum=["Enabled", "Suspended", "Disabled"]),
             "mfa_delete": s.string("Enabled or Disabled.", enum=["Enabled", "Disabled", "", None])},
            required=("status",), min_items=1, max_items=1),
    }, required=("bucket", "versioning_configuration"))
    computed = frozenset({"id"})
    replace_on = frozenset({"bucket", "expected_bucket_owner"})
    blank_strings = frozenset({"expected_bucket_owner", "versioning_configuration.mfa_delete"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        before = ((prior or {}).get("versioning_configuration") or [{}])[0] or {}
        after = (out.get("versioning_configuration") or [{}])[0]
        if isinstance(after, dict) and after.get("status") == "Disabled" and before.get("status") in (
                "Enabled", "Suspended"):
            raise AdapterError('versioning cannot go back to "Disabled" once enabled', hint='Use "Suspended".',
                               address=ctx.address or None)
        return out

    def put(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        conf = attrs["versioning_configuration"][0]
        if conf["status"] == "Disabled":
            return  # "Disabled" only records that versioning was never turned on
        body: dict[str, Any] = {"Status": conf["status"]}
        if conf.get("mfa_delete"):
            body["MFADelete"] = conf["mfa_delete"]
        extra = {"MFA": attrs["mfa"]} if attrs.get("mfa") else {}
        call(ctx, what(attrs["bucket"]), self.api(ctx).put_bucket_versioning, **self.kwargs(attrs),
             VersioningConfiguration=body, **extra)

    def fetch(self, ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
        return call(ctx, what(attrs["bucket"]), self.api(ctx).get_bucket_versioning, missing=self.gone_codes,
                    **self.kwargs(attrs))

    def shape(self, out: dict[str, Any], found: Any) -> dict[str, Any] | None:
        prior = (out.get("versioning_configuration") or [{}])[0] or {}
        status = found.get("Status")
        if not status:  # never enabled: only "Disabled" describes that
            if prior.get("status") != "Disabled":
                return None
            status = "Disabled"
        mfa = found.get("MFADelete")
        mfa = prior.get("mfa_delete") if mfa is None else keep_unset(prior.get("mfa_delete"), mfa, "Disabled")
        out["versioning_configuration"] = [{"status": status, "mfa_delete": mfa}]
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        """Terraform suspends versioning on destroy (a bucket can never go back to unversioned)."""
        attrs = self.complete(prior)
        conf = (attrs.get("versioning_configuration") or [{}])[0] or {}
        if conf.get("status") in (None, "Disabled"):
            return
        call(ctx, what(attrs["bucket"]), self.api(ctx).put_bucket_versioning, missing=self.gone_codes,
             **self.kwargs(attrs), VersioningConfiguration={"Status": "Suspended"})


class S3BucketEncryption(_BucketPart):
    """Default encryption: ``rule { apply_server_side_encryption_by_default { sse_algorithm } }``."""

    name = "aws_s3_bucket_server_side_encryption_configuration"
    schema = s.resource_schema({
        **_PART_PROPS,
        "rule": s.block("Encryption rules.", {
            "apply_server_side_encryption_by_default": s.block("The default encryption.", {
                "sse_algorithm": s.required_string("AES256, aws:kms or aws:kms:dsse.",
                                                   enum=["AES256", "aws:kms", "aws:kms:dsse"]),
                "kms_master_key_id": s.string("KMS key for aws:kms."),
            }, required=("sse_algorithm",), max_items=1),
            "bucket_key_enabled": s.boolean("Use an S3 Bucket Key for SSE-KMS."),
        }, min_items=1),
    }, required=("bucket", "rule"))
    computed = frozenset({"id"})
    replace_on = frozenset({"bucket", "expected_bucket_owner"})
    blank_strings = frozenset({"expected_bucket_owner", "rule.apply_server_side_encryption_by_default.kms_master_key_id"})

    def put(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        rules = []
        for rule in attrs["rule"]:
            body: dict[str, Any] = {}
            for default in rule.get("apply_server_side_encryption_by_default") or []:
                entry = {"SSEAlgorithm": default["sse_algorithm"]}
                if default.get("kms_master_key_id"):
                    entry["KMSMasterKeyID"] = default["kms_master_key_id"]
                body["ApplyServerSideEncryptionByDefault"] = entry
            if rule.get("bucket_key_enabled") is not None:
                body["BucketKeyEnabled"] = rule["bucket_key_enabled"]
            rules.append(body)
        call(ctx, what(attrs["bucket"]), self.api(ctx).put_bucket_encryption, **self.kwargs(attrs),
             ServerSideEncryptionConfiguration={"Rules": rules})

    def fetch(self, ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
        found = call(ctx, what(attrs["bucket"]), self.api(ctx).get_bucket_encryption,
                     missing=self.gone_codes | {"ServerSideEncryptionConfigurationNotFoundError"},
                     **self.kwargs(attrs))
        return None if found is None else found.get("ServerSideEncryptionConfiguration", {}).get("Rules") or None

    def shape(self, out: dict[str, Any], found: Any) -> dict[str, Any] | None:
        priors = out.get("rule") or []
        rules = []
        for i, rule in enumerate(found):
            prior = priors[i] if i < len(priors) and isinstance(priors[i], dict) else {}
            defaults = []
            given = rule.get("ApplyServerSideEncryptionByDefault")
            if given:
                defaults.append({"sse_algorithm": given.get("SSEAlgorithm"),
                                 "kms_master_key_id": given.get("KMSMasterKeyID")})
            rules.append({"apply_server_side_encryption_by_default": defaults or None,
                          "bucket_key_enabled": keep_unset(prior.get("bucket_key_enabled"),
                                                           rule.get("BucketKeyEnabled", False), False)})
        out["rule"] = rules
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        attrs = self.complete(prior)
        call(ctx, what(attrs["bucket"]), self.api(ctx).delete_bucket_encryption, missing=self.gone_codes,
             **self.kwargs(attrs))


_BLOCKS = ("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets")
_API_NAMES = {"block_public_acls": "BlockPublicAcls", "block_public_policy": "BlockPublicPolicy",
              "ignore_public_acls": "IgnorePublicAcls", "restrict_public_buckets": "RestrictPublicBuckets"}


class S3BucketPublicAccessBlock(_BucketPart):
    """The four public-access switches of a bucket (each false unless set)."""

    name = "aws_s3_bucket_public_access_block"
    schema = s.resource_schema({
        "bucket": s.required_string("Name of the bucket."),
        "id": s.computed("The bucket name."),
        **{flag: s.boolean(flag.replace("_", " ").capitalize() + ".", False) for flag in _BLOCKS},
    }, required=("bucket",))
    computed = frozenset({"id"})
    replace_on = frozenset({"bucket"})

    def put(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        body = {_API_NAMES[flag]: bool(attrs.get(flag)) for flag in _BLOCKS}
        call(ctx, what(attrs["bucket"]), self.api(ctx).put_public_access_block, Bucket=attrs["bucket"],
             PublicAccessBlockConfiguration=body)

    def fetch(self, ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
        found = call(ctx, what(attrs["bucket"]), self.api(ctx).get_public_access_block,
                     missing=self.gone_codes | {"NoSuchPublicAccessBlockConfiguration"}, Bucket=attrs["bucket"])
        return None if found is None else found.get("PublicAccessBlockConfiguration", {})

    def shape(self, out: dict[str, Any], found: Any) -> dict[str, Any] | None:
        out.update({flag: bool(found.get(_API_NAMES[flag], False)) for flag in _BLOCKS})
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        bucket = str(prior.get("bucket") or prior.get("id"))
        call(ctx, what(bucket), self.api(ctx).delete_public_access_block, missing=self.gone_codes,
             Bucket=bucket)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the bucket name."""
        return self.complete({"id": resource_id, "bucket": resource_id})


class S3BucketPolicy(_BucketPart):
    """A bucket policy; the JSON is compared by meaning, and the user's text kept when equivalent."""

    name = "aws_s3_bucket_policy"
    schema = s.resource_schema({
        "bucket": s.required_string("Name of the bucket."),
        "policy": s.required_string("The policy document (JSON)."),
        "id": s.computed("The bucket name."),
    }, required=("bucket", "policy"))
    computed = frozenset({"id"})
    replace_on = frozenset({"bucket"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        if prior is not None:
            out["policy"] = policy_json.plan_text(prior.get("policy"), out.get("policy"))
        return out

    def put(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        call(ctx, what(attrs["bucket"]), self.api(ctx).put_bucket_policy, Bucket=attrs["bucket"],
             Policy=attrs["policy"])

    def fetch(self, ctx: AdapterContext, attrs: dict[str, Any]) -> Any:
        found = call(ctx, what(attrs["bucket"]), self.api(ctx).get_bucket_policy,
                     missing=self.gone_codes | {"NoSuchBucketPolicy"}, Bucket=attrs["bucket"])
        return None if found is None else found.get("Policy")

    def shape(self, out: dict[str, Any], found: Any) -> dict[str, Any] | None:
        out["policy"] = policy_json.keep_text(out.get("policy"), found)
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        bucket = str(prior.get("bucket") or prior.get("id"))
        call(ctx, what(bucket), self.api(ctx).delete_bucket_policy, missing=self.gone_codes, Bucket=bucket)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the bucket name."""
        return self.complete({"id": resource_id, "bucket": resource_id})
