"""A bucket's versioning, default encryption, public-access block and policy, through ``ctl``.

The four types are exercised together (one apply changes all of them), each checked on the server
with boto3 after every step. moto limits found: a new bucket has no default encryption in moto
(real AWS reports SSE-S3/AES256 for every bucket since 2023), so after the encryption resource is
destroyed moto reports "not found" where AWS would report AES256 again; moto accepts any
``kms_master_key_id`` without checking that the key exists.
"""

from __future__ import annotations

import json

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject


def policy(bucket: str, action: str = "s3:GetObject", *, pretty: bool = False) -> str:
    document = {
        "Version": "2012-10-17",
        "Statement": [{"Sid": "Read", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
                       "Action": action, "Resource": f"arn:aws:s3:::{bucket}/*"}],
    }
    if pretty:  # the same document, other whitespace and key order
        return json.dumps(dict(reversed(list(document.items()))), indent=4)
    return json.dumps(document)


def config(bucket: str, *, status: str = "Enabled", sse: str = "AES256", kms: str | None = None,
           acls: bool = True, action: str = "s3:GetObject", pretty: bool = False) -> str:
    kms_line = f'\n        kms_master_key_id = "{kms}"' if kms else ""
    text = policy(bucket, action, pretty=pretty)
    return f"""
resource "aws_s3_bucket" "b" {{
  bucket = "{bucket}"
}}

resource "aws_s3_bucket_versioning" "v" {{
  bucket = aws_s3_bucket.b.id
  versioning_configuration {{
    status = "{status}"
  }}
}}

resource "aws_s3_bucket_server_side_encryption_configuration" "e" {{
  bucket = aws_s3_bucket.b.id
  rule {{
    apply_server_side_encryption_by_default {{
      sse_algorithm = "{sse}"{kms_line}
    }}
  }}
}}

resource "aws_s3_bucket_public_access_block" "p" {{
  bucket                  = aws_s3_bucket.b.id
  block_public_acls       = {str(acls).lower()}
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}}

resource "aws_s3_bucket_policy" "pol" {{
  bucket = aws_s3_bucket.b.id
  policy = <<-EOT
{text}
EOT
}}
"""


def server_view(aws: AwsProject, bucket: str) -> dict[str, object]:
    s3 = aws.client("s3")
    rule = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    return {
        "versioning": s3.get_bucket_versioning(Bucket=bucket).get("Status"),
        "sse": rule["ApplyServerSideEncryptionByDefault"],
        "pab": s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"],
        "policy": json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"]),
    }


ALL_BLOCKED = {"BlockPublicAcls": True, "BlockPublicPolicy": True, "IgnorePublicAcls": True,
               "RestrictPublicBuckets": True}


def test_bucket_settings_lifecycle(aws: AwsProject) -> None:
    aws.setup(config("ctl-settings"))
    assert "5 added" in aws.apply().stdout
    view = server_view(aws, "ctl-settings")
    assert view["versioning"] == "Enabled"
    assert view["sse"] == {"SSEAlgorithm": "AES256"}
    assert view["pab"] == ALL_BLOCKED
    assert view["policy"]["Statement"][0]["Action"] in ("s3:GetObject", ["s3:GetObject"])
    assert aws.attrs("aws_s3_bucket_versioning.v")["versioning_configuration"] == [
        {"status": "Enabled", "mfa_delete": ""}]  # unset, spelled as the provider records it
    aws.assert_noop()

    # the policy re-indented with its keys reordered is the same policy: no change, text kept
    before = aws.attrs("aws_s3_bucket_policy.pol")["policy"]
    aws.write(aws.path("main.tf").read_text().replace(policy("ctl-settings"), policy("ctl-settings", pretty=True)))
    aws.assert_noop()
    assert aws.attrs("aws_s3_bucket_policy.pol")["policy"] == before

    # every one of the four changes in place
    aws.setup(config("ctl-settings", status="Suspended", sse="aws:kms", kms="alias/ctl", acls=False,
                     action="s3:ListBucket"))
    res = aws.apply()
    assert "0 added, 4 changed, 0 destroyed" in res.stdout
    view = server_view(aws, "ctl-settings")
    assert view["versioning"] == "Suspended"
    assert view["sse"] == {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "alias/ctl"}
    assert view["pab"] == {**ALL_BLOCKED, "BlockPublicAcls": False}
    assert view["policy"]["Statement"][0]["Action"] in ("s3:ListBucket", ["s3:ListBucket"])
    aws.assert_noop()

    # drift behind ctl's back: versioning and encryption changed, block and policy removed
    s3 = aws.client("s3")
    s3.put_bucket_versioning(Bucket="ctl-settings", VersioningConfiguration={"Status": "Enabled"})
    s3.put_bucket_encryption(Bucket="ctl-settings", ServerSideEncryptionConfiguration={
        "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]})
    s3.delete_public_access_block(Bucket="ctl-settings")
    s3.delete_bucket_policy(Bucket="ctl-settings")
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out
    assert "2 to add, 2 to change, 0 to destroy" in out
    aws.apply()
    view = server_view(aws, "ctl-settings")
    assert view["versioning"] == "Suspended" and view["sse"]["SSEAlgorithm"] == "aws:kms"
    assert view["pab"]["BlockPublicPolicy"] is True and view["policy"]["Statement"]

    # import each of the four by the bucket name
    for address in ("aws_s3_bucket_versioning.v", "aws_s3_bucket_server_side_encryption_configuration.e",
                    "aws_s3_bucket_public_access_block.p", "aws_s3_bucket_policy.pol"):
        aws.reimport(address, "ctl-settings")
    aws.assert_noop()

    # replace: a new bucket name replaces the bucket and everything attached to it
    aws.setup(config("ctl-settings-2"))
    res = aws.apply()
    assert "5 added, 0 changed, 5 destroyed" in res.stdout
    assert server_view(aws, "ctl-settings-2")["versioning"] == "Enabled"
    assert "ctl-settings" not in {b["Name"] for b in s3.list_buckets()["Buckets"]}

    aws.ok("destroy", "--auto-approve")
    assert s3.list_buckets()["Buckets"] == []
