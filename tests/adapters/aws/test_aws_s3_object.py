"""``aws_s3_object`` through ``ctl`` against moto: bodies, metadata, tags, drift, import.

moto returns the MD5 of the body as the ETag, like S3 without SSE-KMS, so ``etag = filemd5(...)``
works as it does against AWS.
"""

from __future__ import annotations

import base64
import hashlib

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject


def config(body: str = "hello", *, key: str = "greeting.txt", team: str = "a", etag: bool = False) -> str:
    etag_line = '\n  etag   = filemd5("${path.module}/logo.bin")' if etag else ""
    return f"""
resource "aws_s3_bucket" "b" {{
  bucket        = "ctl-objects"
  force_destroy = true
}}

resource "aws_s3_object" "text" {{
  bucket       = aws_s3_bucket.b.id
  key          = "{key}"
  content      = "{body}"
  content_type = "text/plain"
  metadata     = {{ purpose = "test" }}
  tags         = {{ team = "{team}" }}
}}

resource "aws_s3_object" "file" {{
  bucket = aws_s3_bucket.b.id
  key    = "logo.bin"
  source = "logo.bin"{etag_line}
}}

resource "aws_s3_object" "b64" {{
  bucket         = aws_s3_bucket.b.id
  key            = "raw.bin"
  content_base64 = "{base64.b64encode(bytes([0, 255, 1])).decode()}"
}}
"""


def body(aws: AwsProject, key: str) -> bytes:
    return bytes(aws.client("s3").get_object(Bucket="ctl-objects", Key=key)["Body"].read())


def test_object_lifecycle(aws: AwsProject) -> None:
    aws.path("logo.bin").write_bytes(b"\x89PNG-ish")
    aws.setup(config())
    assert "4 added" in aws.apply().stdout
    s3 = aws.client("s3")
    head = s3.head_object(Bucket="ctl-objects", Key="greeting.txt")
    assert body(aws, "greeting.txt") == b"hello"
    assert head["ContentType"] == "text/plain" and head["Metadata"] == {"purpose": "test"}
    tagging = s3.get_object_tagging(Bucket="ctl-objects", Key="greeting.txt")["TagSet"]
    assert tagging == [{"Key": "team", "Value": "a"}]
    assert body(aws, "logo.bin") == b"\x89PNG-ish" and body(aws, "raw.bin") == bytes([0, 255, 1])
    state = aws.attrs("aws_s3_object.text")
    assert state["etag"] == hashlib.md5(b"hello").hexdigest() and state["id"] == "greeting.txt"
    assert aws.attrs("aws_s3_object.file")["content_type"] == "application/octet-stream"  # as the provider sends it
    aws.assert_noop()

    # in place: a new body is uploaded again, a tag change only retags
    aws.setup(config("hello again"))
    res = aws.apply()
    assert "0 added, 1 changed, 0 destroyed" in res.stdout
    assert body(aws, "greeting.txt") == b"hello again"
    assert aws.attrs("aws_s3_object.text")["etag"] == hashlib.md5(b"hello again").hexdigest()
    aws.setup(config("hello again", team="b"))
    assert "1 changed" in aws.apply().stdout
    assert s3.get_object_tagging(Bucket="ctl-objects", Key="greeting.txt")["TagSet"] == [
        {"Key": "team", "Value": "b"}]

    # etag = filemd5(source): a changed file is uploaded again
    aws.setup(config("hello again", team="b", etag=True))
    aws.assert_noop()
    aws.path("logo.bin").write_bytes(b"new logo")
    assert "1 changed" in aws.apply().stdout
    assert body(aws, "logo.bin") == b"new logo"

    # drift: bodies overwritten and an object deleted behind ctl's back
    s3.put_object(Bucket="ctl-objects", Key="greeting.txt", Body=b"tampered")
    s3.put_object(Bucket="ctl-objects", Key="raw.bin", Body=b"\x02")
    s3.delete_object(Bucket="ctl-objects", Key="logo.bin")
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and '"tampered"' in out
    assert "1 to add, 2 to change, 0 to destroy" in out
    aws.apply()
    assert body(aws, "greeting.txt") == b"hello again" and body(aws, "raw.bin") == bytes([0, 255, 1])
    assert body(aws, "logo.bin") == b"new logo"
    aws.assert_noop()

    # import by BUCKET/KEY reads the body back, so the same configuration is a no-op
    aws.reimport("aws_s3_object.text", "ctl-objects/greeting.txt")
    aws.reimport("aws_s3_object.b64", "s3://ctl-objects/raw.bin")
    aws.assert_noop()

    # replace: a new key is a new object; the old key is gone
    aws.setup(config("hello again", key="renamed.txt", team="b", etag=True))
    res = aws.apply()
    assert "must be replaced" in res.stdout and "1 added, 0 changed, 1 destroyed" in res.stdout
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket="ctl-objects")["Contents"]}
    assert keys == {"renamed.txt", "logo.bin", "raw.bin"}

    aws.ok("destroy", "--auto-approve")
    assert "ctl-objects" not in {b["Name"] for b in s3.list_buckets()["Buckets"]}


def test_versioned_object_is_destroyed_with_all_its_versions(aws: AwsProject) -> None:
    """Terraform deletes every version of the key, so the (not force_destroy) bucket can go too."""
    aws.setup("""
resource "aws_s3_bucket" "b" {
  bucket = "ctl-versioned"
}

resource "aws_s3_bucket_versioning" "v" {
  bucket = aws_s3_bucket.b.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_object" "o" {
  bucket     = aws_s3_bucket.b.id
  key        = "doc.txt"
  content    = "v1"
  depends_on = [aws_s3_bucket_versioning.v]
}
""")
    aws.apply()
    first = aws.attrs("aws_s3_object.o")["version_id"]
    assert first
    aws.write(aws.path("main.tf").read_text().replace('"v1"', '"v2"'))
    aws.apply()
    second = aws.attrs("aws_s3_object.o")["version_id"]
    assert second and second != first
    versions = aws.client("s3").list_object_versions(Bucket="ctl-versioned")["Versions"]
    assert {v["VersionId"] for v in versions} == {first, second}
    aws.ok("destroy", "--auto-approve")
    assert aws.client("s3").list_buckets()["Buckets"] == []
