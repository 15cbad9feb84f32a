"""``aws_s3_bucket`` and the ``aws_s3_bucket`` data source, through ``ctl`` against moto.

Each step is checked against the server with boto3. moto accepts any credentials and keeps every
bucket in one account, so "bucket name taken by another account" cannot be exercised here.
"""

from __future__ import annotations

import pytest

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject
from tests.adapters.aws.aws_helpers import PROVIDER as PROVIDER_ONLY

PROVIDER = """
provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { owner = "ctl", env = "default" }
  }
}
"""


def bucket_config(name: str, env: str = "dev", force_destroy: bool = False) -> str:
    return f"""
resource "aws_s3_bucket" "b" {{
  bucket        = "{name}"
  force_destroy = {str(force_destroy).lower()}
  tags          = {{ env = "{env}" }}
}}
"""


def tags(aws: AwsProject, bucket: str) -> dict[str, str]:
    tag_set = aws.client("s3").get_bucket_tagging(Bucket=bucket)["TagSet"]
    return {t["Key"]: t["Value"] for t in tag_set}


def exists(aws: AwsProject, bucket: str) -> bool:
    return bucket in {b["Name"] for b in aws.client("s3").list_buckets()["Buckets"]}


def test_bucket_create_update_drift_replace_destroy(aws: AwsProject) -> None:
    aws.setup(bucket_config("ctl-bucket-a"), provider=PROVIDER)
    res = aws.apply()
    assert "1 added" in res.stdout
    assert exists(aws, "ctl-bucket-a")
    # default_tags sit under the resource's own tags (env = "dev" wins), as Terraform's tags_all
    assert tags(aws, "ctl-bucket-a") == {"owner": "ctl", "env": "dev"}
    state = aws.attrs("aws_s3_bucket.b")
    assert state["tags"] == {"env": "dev"}
    assert state["tags_all"] == {"owner": "ctl", "env": "dev"}
    assert state["arn"] == "arn:aws:s3:::ctl-bucket-a"
    assert state["region"] == "us-east-1"
    assert state["bucket_regional_domain_name"] == "ctl-bucket-a.s3.us-east-1.amazonaws.com"
    aws.assert_noop()

    # in-place update of the tags
    aws.write(PROVIDER + bucket_config("ctl-bucket-a", env="prod"))
    res = aws.apply()
    assert "updated in-place" in res.stdout and "0 added, 1 changed, 0 destroyed" in res.stdout
    assert tags(aws, "ctl-bucket-a") == {"owner": "ctl", "env": "prod"}
    aws.assert_noop()

    # drift: a tag added behind ctl's back is reported, then removed by apply
    aws.client("s3").put_bucket_tagging(Bucket="ctl-bucket-a", Tagging={"TagSet": [
        {"Key": "owner", "Value": "ctl"}, {"Key": "env", "Value": "prod"}, {"Key": "rogue", "Value": "x"}]})
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "rogue" in out
    assert "1 changed" in aws.apply().stdout
    assert tags(aws, "ctl-bucket-a") == {"owner": "ctl", "env": "prod"}

    # drift: deleted behind ctl's back -> planned for re-creation
    aws.client("s3").delete_bucket(Bucket="ctl-bucket-a")
    res = aws.apply()
    assert DRIFT in res.stdout and "will be created" in res.stdout and "1 added" in res.stdout
    assert exists(aws, "ctl-bucket-a")

    # replace: a new name is a new bucket
    aws.write(PROVIDER + bucket_config("ctl-bucket-b", env="prod"))
    res = aws.apply()
    assert "must be replaced" in res.stdout and "forces replacement" in res.stdout
    assert exists(aws, "ctl-bucket-b") and not exists(aws, "ctl-bucket-a")

    # a bucket holding objects is not destroyed without force_destroy ...
    aws.client("s3").put_object(Bucket="ctl-bucket-b", Key="keep.txt", Body=b"data")
    res = aws.ctl("destroy", "--auto-approve")
    assert res.code == 1, str(res)
    assert "Traceback" not in res.output
    assert 'S3 bucket "ctl-bucket-b" is not empty' in res.output and "force_destroy" in res.output
    assert exists(aws, "ctl-bucket-b")

    # ... and is emptied and destroyed with it (force_destroy changes only the state)
    aws.write(PROVIDER + bucket_config("ctl-bucket-b", env="prod", force_destroy=True))
    aws.apply()
    assert aws.client("s3").list_objects_v2(Bucket="ctl-bucket-b")["KeyCount"] == 1
    aws.ok("destroy", "--auto-approve")
    assert not exists(aws, "ctl-bucket-b")
    assert aws.instances() == {}


def test_bucket_import(aws: AwsProject) -> None:
    aws.setup(bucket_config("ctl-imported"), provider=PROVIDER)
    res = aws.ctl("import", "aws_s3_bucket.b", "ctl-imported")
    assert res.code == 1 and "non-existent" in res.output and "Traceback" not in res.output

    s3 = aws.client("s3")
    s3.create_bucket(Bucket="ctl-imported")
    s3.put_bucket_tagging(Bucket="ctl-imported", Tagging={"TagSet": [
        {"Key": "env", "Value": "dev"}, {"Key": "owner", "Value": "ctl"}]})
    res = aws.ok("import", "aws_s3_bucket.b", "ctl-imported")
    assert "Import successful" in res.stdout
    state = aws.attrs("aws_s3_bucket.b")
    assert state["bucket"] == "ctl-imported" and state["force_destroy"] is False
    assert state["tags"] == {"env": "dev"}  # owner = "ctl" is the provider's default tag
    aws.assert_noop()

    res = aws.ctl("import", "aws_s3_bucket.b", "ctl-imported")
    assert res.code == 1 and "already managed" in res.output


def test_bucket_prefix_and_data_source(aws: AwsProject) -> None:
    aws.setup("""
resource "aws_s3_bucket" "gen" {
  bucket_prefix = "ctl-gen-"
}

data "aws_s3_bucket" "found" {
  bucket = aws_s3_bucket.gen.bucket
}

output "name"   { value = aws_s3_bucket.gen.bucket }
output "region" { value = data.aws_s3_bucket.found.region }
output "arn"    { value = data.aws_s3_bucket.found.arn }
""")
    aws.apply()
    name = aws.ok("output", "--raw", "name").stdout.strip()
    assert name.startswith("ctl-gen-") and len(name) <= 63
    assert exists(aws, name)
    assert aws.ok("output", "--raw", "region").stdout.strip() == "us-east-1"
    assert aws.ok("output", "--raw", "arn").stdout.strip() == f"arn:aws:s3:::{name}"
    state = aws.attrs("aws_s3_bucket.gen")
    assert state["tags"] is None and state["tags_all"] == {}
    aws.assert_noop()  # the generated name is kept, not generated again
    # (A destroy plan currently reads data sources that depend on destroyed resources, and fails:
    # an engine issue, so the data source goes before destroying.)
    aws.write(PROVIDER_ONLY + 'resource "aws_s3_bucket" "gen" {\n  bucket_prefix = "ctl-gen-"\n}\n')
    aws.ok("destroy", "--auto-approve")
    assert not exists(aws, name)


@pytest.mark.parametrize("config", ['bucket = "ctl-x"\n  bucket_prefix = "ctl-"'])
def test_bucket_and_prefix_exclude_each_other(aws: AwsProject, config: str) -> None:
    aws.setup(f'resource "aws_s3_bucket" "b" {{\n  {config}\n}}\n')
    res = aws.ctl("plan")
    assert res.code == 1 and '"bucket" and "bucket_prefix" cannot both be set' in res.output
    assert "aws_s3_bucket.b" in res.output


def test_data_source_for_a_missing_bucket_is_an_error(aws: AwsProject) -> None:
    aws.setup('data "aws_s3_bucket" "none" {\n  bucket = "ctl-absent"\n}\n')
    res = aws.ctl("plan")
    assert res.code == 1 and "data.aws_s3_bucket.none" in res.output and "Traceback" not in res.output
