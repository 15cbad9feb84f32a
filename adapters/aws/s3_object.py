"""``aws_s3_object``: one object in a bucket, its body from ``content``, ``content_base64`` or ``source``.

Changing the body, ``content_type`` or ``metadata`` uploads the object again (in place, as
Terraform does: a new version in a versioned bucket); changing only tags retags it. ``etag`` is
optional as in Terraform (``etag = filemd5("f")`` uploads again when the file changes).

Drift: S3 does not hand back what ctl wrote, only an ETag. When the ETag differs from the one in
state the object was overwritten outside ctl; refresh then reads the body back into the argument
the configuration uses (``content`` or ``content_base64``, for bodies up to 1 MiB), so the plan
shows what changed and uploads the configured body again. For a ``source`` file (or a larger body)
it records ``source``/``content`` as null — the object no longer holds those bytes — with the
same effect. Destroying the object deletes every version of its key, as Terraform does.

The state is the one HashiCorp's provider writes: the headers an object carries (``cache_control``,
``content_disposition``, ``content_encoding``, ``content_language``, ``website_redirect``,
``storage_class``) are arguments, sent on upload and read back from the object's head, ``""`` when
it has none; what the provider records and ctl does not manage (checksums, server-side encryption,
object lock) is recorded as the object has it (the object's head), ``""`` when it has none; ``arn``
is ``arn:PARTITION:s3:::BUCKET/KEY``, and ``version_id`` is ``""`` in a bucket without versioning.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from adapters._recovery import joined
from adapters.aws import schema as s
from adapters.aws.base import AwsResource
from adapters.aws.errors import call, pages
from adapters.aws.s3_bucket import BUCKET_GONE
from adapters.base import AdapterContext, AdapterError
from vocab.values import UNKNOWN

# argument -> the header of put_object and head_object that carries it
HEADERS = {
    "cache_control": "CacheControl",
    "content_disposition": "ContentDisposition",
    "content_encoding": "ContentEncoding",
    "content_language": "ContentLanguage",
    "website_redirect": "WebsiteRedirectLocation",
}
BODY_ARGS = ("content", "content_base64", "source", "source_hash", "content_type", "metadata", *HEADERS)
# computed-only attribute -> the header of head_object that carries it ("" when absent)
RECORDED = {
    "checksum_crc32": "ChecksumCRC32",
    "checksum_crc32c": "ChecksumCRC32C",
    "checksum_sha1": "ChecksumSHA1",
    "checksum_sha256": "ChecksumSHA256",
    "server_side_encryption": "ServerSideEncryption",
    "object_lock_legal_hold_status": "ObjectLockLegalHoldStatus",
    "object_lock_mode": "ObjectLockMode",
}
OBJECT_GONE = BUCKET_GONE | {"NoSuchKey"}
READ_BACK_LIMIT = 1024 * 1024


def _what(attrs: dict[str, Any]) -> str:
    return f's3://{attrs.get("bucket")}/{attrs.get("key")}'


class S3Object(AwsResource):
    """An S3 object whose body, content type, metadata and tags ctl owns."""

    name = "aws_s3_object"
    service = "s3"
    taggable = True
    schema = s.resource_schema({
        "bucket": s.required_string("Name of the bucket."),
        "key": s.required_string("Name of the object in the bucket."),
        "content": s.string("UTF-8 text to upload."),
        "content_base64": s.string("Binary content to upload, base64-encoded."),
        "source": s.string("Path of a file to upload (relative to the configuration directory)."),
        "source_hash": s.string("Any value; changing it uploads the object again (e.g. filemd5(source))."),
        "content_type": s.string("MIME type; application/octet-stream when unset."),
        "metadata": s.string_map("User metadata (x-amz-meta-*); S3 lowercases the keys."),
        "etag": s.string("ETag of the object (the MD5 of the body unless SSE-KMS); set by S3 when unset."),
        "cache_control": s.string("Cache-Control header."),
        "content_disposition": s.string("Content-Disposition header."),
        "content_encoding": s.string("Content-Encoding header."),
        "content_language": s.string("Content-Language header."),
        "website_redirect": s.string("Where a website bucket redirects requests for this object."),
        "storage_class": s.string("Storage class; STANDARD when unset."),
        "force_destroy": s.boolean("Delete the object even under an object lock's governance mode.", False),
        **s.tags_properties(),
        "id": s.computed("The key."),
        "version_id": s.computed("Version ID of the object; empty when the bucket is not versioned."),
        "arn": s.computed("ARN of the object: arn:aws:s3:::BUCKET/KEY."),
        **{name: s.computed(f"{header} of the object, as S3 reports it.") for name, header in RECORDED.items()},
        "object_lock_retain_until_date": s.computed("Object lock: retained until (RFC 3339)."),
        "bucket_key_enabled": s.computed("Whether S3 uses a bucket key for SSE-KMS.", "boolean"),
        "kms_key_id": s.computed("KMS key of SSE-KMS."),
        "acl": s.computed("Canned ACL; not managed natively."),
        "checksum_algorithm": s.computed("Checksum algorithm of uploads; not managed natively."),
        "override_provider": s.computed("Provider settings overridden for this object.", "array"),
    }, required=("bucket", "key"))
    computed = frozenset({"id", "etag", "version_id", "content_type", "tags_all", "storage_class", "arn",
                          *RECORDED, "object_lock_retain_until_date", "bucket_key_enabled", "kms_key_id", "acl",
                          "checksum_algorithm", "override_provider"})
    replace_on = frozenset({"bucket", "key"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        given = [n for n in ("content", "content_base64", "source") if out.get(n) is not None]
        if len(given) > 1:
            raise AdapterError(f"only one of content, content_base64 and source may be set; got {', '.join(given)}",
                               address=ctx.address or None)
        if prior is not None and self._uploads(prior, out):
            out["version_id"] = UNKNOWN
            if out.get("etag") is None:
                out["etag"] = UNKNOWN
        return out

    def _uploads(self, prior: dict[str, Any], planned: dict[str, Any]) -> bool:
        """Does going from ``prior`` to ``planned`` need the body uploaded again?"""
        for name in BODY_ARGS:
            if name == "content_type" and planned.get(name) is None:
                continue  # unset: S3 keeps choosing it
            if name in HEADERS and not planned.get(name) and not prior.get(name):
                continue  # none either way: null and "" (the provider's spelling) are one value
            if planned.get(name) != prior.get(name):
                return True
        if planned.get("storage_class") not in (None, prior.get("storage_class")):
            return True  # unset: the object keeps its class
        return planned.get("etag") is not None and planned.get("etag") != prior.get("etag")

    # ---- operations ------------------------------------------------------------------------

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        self._upload(ctx, out)
        return self._refresh(ctx, out, after_write=True) or out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        if self._uploads(prior, out) or out.get("etag") is None:
            self._upload(ctx, out)
        elif (prior.get("tags_all") or {}) != (out.get("tags_all") or {}):
            s3 = self.api(ctx)
            tags = out.get("tags_all") or {}
            if tags:
                call(ctx, _what(out), s3.put_object_tagging, Bucket=out["bucket"], Key=out["key"],
                     Tagging={"TagSet": [{"Key": k, "Value": v} for k, v in sorted(tags.items())]})
            else:
                call(ctx, _what(out), s3.delete_object_tagging, Bucket=out["bucket"], Key=out["key"])
        return self._refresh(ctx, out, after_write=True) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs), after_write=False)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        s3 = self.api(ctx)
        bucket, key = prior.get("bucket"), prior.get("key")
        versions = []
        for page in pages(ctx, _what(prior), s3, "list_object_versions", missing=OBJECT_GONE, Bucket=bucket,
                          Prefix=key):
            versions += [{"Key": v["Key"], "VersionId": v["VersionId"]}
                         for v in [*page.get("Versions", []), *page.get("DeleteMarkers", [])] if v["Key"] == key]
        for start in range(0, len(versions), 1000):
            call(ctx, _what(prior), s3.delete_objects, missing=OBJECT_GONE, Bucket=bucket,
                 Delete={"Objects": versions[start:start + 1000], "Quiet": True})
        if not versions:
            call(ctx, _what(prior), s3.delete_object, missing=OBJECT_GONE, Bucket=bucket, Key=key)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: ``BUCKET/KEY`` (or ``s3://BUCKET/KEY``)."""
        bucket, _, key = resource_id.removeprefix("s3://").partition("/")
        if not bucket or not key:
            raise AdapterError(f'import ID "{resource_id}" is not BUCKET/KEY', address=ctx.address or None)
        out = self.complete({"bucket": bucket, "key": key, "id": key})
        found = self._refresh(ctx, out, after_write=True)
        if found is None:
            return out  # the engine's read reports the missing object
        self._read_back(ctx, found)  # the body into content (or content_base64), as create stores it
        return found

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """``BUCKET/KEY``."""
        return joined(identity, "/", "bucket", "key")

    # ---- helpers ---------------------------------------------------------------------------

    def _body(self, ctx: AdapterContext, attrs: dict[str, Any]) -> bytes:
        if attrs.get("content_base64") is not None:
            try:
                return base64.b64decode(attrs["content_base64"], validate=True)
            except (binascii.Error, ValueError):
                raise AdapterError("content_base64 is not valid base64", address=ctx.address or None) from None
        if attrs.get("source") is not None:
            path = Path(attrs["source"])
            path = path if path.is_absolute() else Path(ctx.workdir) / path
            try:
                return path.read_bytes()
            except OSError as exc:
                raise AdapterError(f"cannot read source file {path}: {exc.strerror or exc}",
                                   address=ctx.address or None) from None
        return str(attrs.get("content") or "").encode("utf-8")

    def _upload(self, ctx: AdapterContext, attrs: dict[str, Any]) -> None:
        kwargs: dict[str, Any] = {"Bucket": attrs["bucket"], "Key": attrs["key"], "Body": self._body(ctx, attrs)}
        # Unset, the provider's SDK sends application/octet-stream (S3's own choice would differ).
        kwargs["ContentType"] = attrs.get("content_type") or "application/octet-stream"
        for name, header in HEADERS.items():
            if attrs.get(name):
                kwargs[header] = attrs[name]
        if attrs.get("storage_class"):
            kwargs["StorageClass"] = attrs["storage_class"]
        if attrs.get("metadata"):
            kwargs["Metadata"] = dict(attrs["metadata"])
        if attrs.get("tags_all"):
            kwargs["Tagging"] = urlencode(sorted(attrs["tags_all"].items()))
        call(ctx, _what(attrs), self.api(ctx).put_object, **kwargs)

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any], *, after_write: bool) -> dict[str, Any] | None:
        """The object as S3 holds it, shaped like state; None when it is gone."""
        s3 = self.api(ctx)
        head = call(ctx, _what(out), s3.head_object, missing=OBJECT_GONE, Bucket=out["bucket"], Key=out["key"])
        if head is None:
            return None
        etag = str(head.get("ETag", "")).strip('"')
        if not after_write and out.get("etag") and etag != out["etag"]:
            self._read_back(ctx, out)
        version = head.get("VersionId")
        out.update({"id": out["key"], "etag": etag, "version_id": "" if version in (None, "null") else version,
                    "content_type": head.get("ContentType"), "storage_class": head.get("StorageClass") or "STANDARD",
                    "arn": f"arn:{self.clients(ctx).partition}:s3:::{out['bucket']}/{out['key']}",
                    "bucket_key_enabled": bool(head.get("BucketKeyEnabled")),
                    "kms_key_id": head.get("SSEKMSKeyId")})
        for name, header in [*HEADERS.items(), *RECORDED.items()]:
            out[name] = str(head.get(header) or "")
        until = head.get("ObjectLockRetainUntilDate")
        out["object_lock_retain_until_date"] = until.strftime("%Y-%m-%dT%H:%M:%SZ") if until else ""
        out["override_provider"] = out.get("override_provider") or []
        out["metadata"] = _metadata(out.get("metadata"), head.get("Metadata") or {})
        tagging = call(ctx, _what(out), s3.get_object_tagging, missing=OBJECT_GONE, Bucket=out["bucket"],
                       Key=out["key"]) or {}
        actual = {t["Key"]: t["Value"] for t in tagging.get("TagSet", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        return out

    def _read_back(self, ctx: AdapterContext, out: dict[str, Any]) -> None:
        """Put what the object holds into the body argument (after an outside change, or on import)."""
        got = None
        if out.get("source") is None:
            got = call(ctx, _what(out), self.api(ctx).get_object, missing=OBJECT_GONE, Bucket=out["bucket"],
                       Key=out["key"])
        if got is None or int(got.get("ContentLength") or 0) > READ_BACK_LIMIT:
            if got is not None:
                got["Body"].close()
            for name in ("content", "content_base64", "source"):
                out[name] = None
            return
        data = got["Body"].read()
        if out.get("content_base64") is not None:
            out["content_base64"] = base64.b64encode(data).decode("ascii")
            return
        try:
            out["content"] = data.decode("utf-8")
        except UnicodeDecodeError:
            out["content"], out["content_base64"] = None, base64.b64encode(data).decode("ascii")


def _metadata(prior: Any, actual: dict[str, str]) -> dict[str, str] | None:
    """S3's metadata under the key spelling of the configuration (S3 lowercases keys)."""
    spelled = {k.lower(): k for k in (prior or {})}
    out = {spelled.get(k.lower(), k): v for k, v in actual.items()}
    return None if not out and prior is None else out
