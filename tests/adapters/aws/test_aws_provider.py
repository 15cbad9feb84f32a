"""``provider "aws"``: lazy SDK import, arguments, endpoints, aliases, default tags, and its errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adapters.aws import policy
from adapters.aws.provider import settings_from
from adapters.aws.session import AwsClients, Settings
from adapters.base import AdapterError
from tests.adapters.aws.aws_helpers import AwsProject
from tests.servers import free_port

REPO = Path(__file__).resolve().parents[3]

# ---- no server needed ----------------------------------------------------------------------------


def test_help_and_discovery_do_not_import_boto3() -> None:
    script = (
        "import sys\n"
        "from cli.main import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "from adapters.registry import Registry\n"
        "assert Registry.discover().resource_type('aws_s3_bucket') is not None\n"
        "print('SDK:', sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "SDK: []" in proc.stdout


def test_settings_from_blocks_and_refusals() -> None:
    settings = settings_from({
        "region": "eu-west-1", "endpoints": [{"s3": "http://s3.local", "sqs": None}],
        "default_tags": [{"tags": {"a": "b"}}], "max_retries": 2, "s3_use_path_style": True,
    })
    assert settings.region == "eu-west-1" and settings.endpoints == {"s3": "http://s3.local"}
    assert settings.default_tags == {"a": "b"} and settings.max_retries == 2 and settings.s3_use_path_style
    with pytest.raises(AdapterError, match="assume_role"):
        settings_from({"assume_role": [{"role_arn": "arn:aws:iam::1:role/x"}]})
    with pytest.raises(AdapterError, match="endpoints"):
        settings_from({"endpoints": [{"lambda": "http://x"}]})


def test_endpoint_precedence_and_path_style() -> None:
    env = {"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_ENDPOINT_URL_SQS": "http://sqs.local:2"}
    clients = AwsClients(Settings(region="us-east-1", endpoints={"s3": "http://localhost:3"}), env=env)
    assert clients.endpoint("s3") == "http://localhost:3"  # the endpoints block first
    assert clients.endpoint("sqs") == "http://sqs.local:2"  # then AWS_ENDPOINT_URL_<SERVICE>
    assert clients.endpoint("iam") == "http://127.0.0.1:1"  # then AWS_ENDPOINT_URL
    assert clients.path_style()  # localhost cannot take bucket names as subdomains
    assert not AwsClients(Settings(region="us-east-1"), env={}).path_style()
    assert AwsClients(Settings(region="us-east-1"), env={}).endpoint("s3") is None
    forced = AwsClients(Settings(region="us-east-1", s3_use_path_style=False), env=env)
    assert not forced.path_style()


def test_policies_compare_by_meaning() -> None:
    a = '{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}'
    b = """{"Statement": [{"Resource": ["*"], "Action": ["s3:GetObject"], "Effect": "Allow"}],
            "Version": "2012-10-17"}"""
    assert policy.equivalent(a, b)
    assert policy.equivalent(a, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]})
    assert not policy.equivalent(a, a.replace("GetObject", "PutObject"))
    assert policy.keep_text(b, a) == b and policy.plan_text(a, b) == a
    assert policy.keep_text(None, {"Version": "1"}) == '{"Version":"1"}'


# ---- through ctl, against moto ---------------------------------------------------------------------


def test_endpoints_block_aliases_and_default_tags(aws: AwsProject) -> None:
    url = aws.server.url
    endpoints = f'endpoints {{\n    s3  = "{url}"\n    sts = "{url}"\n  }}'
    aws.setup("""
resource "aws_s3_bucket" "east" {
  bucket = "ctl-east"
}

resource "aws_s3_bucket" "west" {
  provider = aws.west
  bucket   = "ctl-west"
}
""", provider=f"""
provider "aws" {{
  region = "us-east-1"
  {endpoints}
}}

provider "aws" {{
  alias  = "west"
  region = "us-west-2"
  {endpoints}
  default_tags {{
    tags = {{ side = "west" }}
  }}
}}
""")
    res = aws.ctl("apply", "--auto-approve", without=("AWS_ENDPOINT_URL",))
    assert res.code == 0, str(res)
    s3 = aws.client("s3")
    assert s3.get_bucket_location(Bucket="ctl-west")["LocationConstraint"] == "us-west-2"
    assert s3.get_bucket_location(Bucket="ctl-east")["LocationConstraint"] in (None, "us-east-1")
    assert s3.get_bucket_tagging(Bucket="ctl-west")["TagSet"] == [{"Key": "side", "Value": "west"}]
    state = aws.state()
    providers = {r["name"]: r["provider"] for r in state["resources"]}
    assert providers == {"east": 'provider["registry.terraform.io/hashicorp/aws"]',
                         "west": 'provider["registry.terraform.io/hashicorp/aws"].west'}
    assert aws.attrs("aws_s3_bucket.west")["region"] == "us-west-2"
    assert aws.attrs("aws_s3_bucket.west")["tags"] is None
    res = aws.ctl("plan", "--detailed-exitcode", without=("AWS_ENDPOINT_URL",))
    assert res.code == 0, str(res)


def test_unreachable_endpoint_is_an_error_naming_resource_and_object(aws: AwsProject) -> None:
    aws.setup('resource "aws_s3_bucket" "b" {\n  bucket = "ctl-here"\n}\n', provider="""
provider "aws" {
  region                      = "us-east-1"
  max_retries                 = 1
  skip_credentials_validation = true
}
""")
    aws.apply()
    dead = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    res = aws.ctl("plan", env=dead)
    assert res.code == 1 and "Traceback" not in res.output
    assert "aws_s3_bucket.b" in res.output and 'S3 bucket "ctl-here"' in res.output
    assert "endpoint" in res.output

    aws.write(aws.path("main.tf").read_text().replace("skip_credentials_validation = true", ""))
    res = aws.ctl("plan", env=dead)
    assert res.code == 1 and "Traceback" not in res.output
    assert 'Cannot configure provider "aws"' in res.output and "credentials" in res.output


def test_provider_argument_and_region_errors(aws: AwsProject) -> None:
    aws.setup('resource "aws_sns_topic" "t" {\n  name = "x"\n}\n', provider="""
provider "aws" {
  region = "us-east-1"
  assume_role {
    role_arn = "arn:aws:iam::123456789012:role/admin"
  }
}
""")
    res = aws.ctl("plan")
    assert res.code == 1 and "Traceback" not in res.output
    assert "main.tf:3:3: Unsupported block type" in res.output  # refused before configuring
    assert 'Blocks of type "assume_role" are not expected here.' in res.output

    aws.setup('resource "aws_sns_topic" "t" {\n  name = "x"\n}\n', provider='provider "aws" {}\n')
    res = aws.ctl("plan", without=("AWS_DEFAULT_REGION",))
    assert res.code == 1 and "no region is set" in res.output and "Traceback" not in res.output
