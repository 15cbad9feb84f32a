"""Throttling on the way to AWS: the refresh of many objects retries and converges, in both retry modes.

A fault-injecting proxy stands between ctl and the moto server and answers a burst of requests
with 503 SlowDown, as S3 does under load; ``retry_mode = "adaptive"`` (or ``AWS_RETRY_MODE``)
adds botocore's client-side rate limiter on top of the standard retries.
"""

from __future__ import annotations

import pytest

from tests.adapters.aws.aws_helpers import NOOP, AwsProject
from tests.fault_proxy import FaultProxy

OBJECTS = 40

CONFIG = f"""
resource "aws_s3_bucket" "b" {{
  bucket = "ctl-throttled"
}}

resource "aws_s3_object" "o" {{
  count   = {OBJECTS}
  bucket  = aws_s3_bucket.b.bucket
  key     = "k/${{count.index}}"
  content = "object ${{count.index}}"
}}
"""


@pytest.mark.parametrize("mode", ["standard", "adaptive"])
def test_a_throttled_refresh_of_many_objects_converges(aws: AwsProject, mode: str) -> None:
    with FaultProxy(aws.server.url) as proxy:
        aws.setup(CONFIG, provider=f"""
provider "aws" {{
  region                      = "us-east-1"
  skip_credentials_validation = true
  s3_use_path_style           = true
  retry_mode                  = "{mode}"
  endpoints {{
    s3 = "{proxy.url}"
  }}
}}
""")
        aws.ok("apply", "--auto-approve")
        proxy.arm("status", times=OBJECTS // 2, method="GET|HEAD", path=r"/ctl-throttled/k/", status=503)
        res = aws.ok("plan", "-parallelism=16")
        assert NOOP in res.stdout, res.output
        assert len(proxy.faulted("status")) == OBJECTS // 2, "the throttled requests were not all retried"
    keys = aws.client("s3").list_objects_v2(Bucket="ctl-throttled")["KeyCount"]
    assert keys == OBJECTS


def test_an_unknown_retry_mode_is_refused_with_the_choices(aws: AwsProject) -> None:
    aws.setup(CONFIG.split("resource \"aws_s3_object\"")[0])
    res = aws.ctl("plan", env={"AWS_RETRY_MODE": "legacy-ish"})
    assert res.code == 1 and "Traceback" not in res.output
    assert "AWS_RETRY_MODE='legacy-ish'" in res.output and "standard or adaptive" in res.output


def test_the_retry_mode_reaches_every_service_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.aws.provider import settings_from
    from adapters.aws.session import AwsClients

    monkeypatch.setenv("AWS_RETRY_MODE", "adaptive")
    settings = settings_from({"region": "us-east-1", "max_retries": 7})
    assert settings.retry_mode == "adaptive"
    assert settings_from({"region": "us-east-1", "retry_mode": "standard"}).retry_mode == "standard"  # block wins
    clients = AwsClients(settings, env={})
    for service in ("s3", "sqs", "dynamodb"):
        config = clients.client(service).meta.config
        assert config.retries == {"mode": "adaptive", "total_max_attempts": 8}
        assert config.max_pool_connections >= 32  # room for the walker's threads
