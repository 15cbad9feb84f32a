"""``examples/aws`` applied, re-planned and destroyed against moto, as ``make demo-aws`` does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.adapters.aws.aws_helpers import AwsProject

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "aws" / "main.tf"


def test_example_applies_delivers_and_destroys(aws: AwsProject) -> None:
    shutil.copy(EXAMPLE, aws.path("main.tf"))
    res = aws.ctl("apply", "--auto-approve", policies=True)  # the example passes the built-in policy pack
    assert res.code == 0 and "11 added" in res.stdout, str(res)
    aws.assert_noop()
    s3, sqs, sns = aws.client("s3"), aws.client("sqs"), aws.client("sns")
    outputs = {k: v["value"] for k, v in json.loads(aws.ok("output", "--json").stdout).items()}
    body = s3.get_object(Bucket=outputs["bucket"], Key="index.html")["Body"].read()
    assert body == b"<h1>Hello from ctl</h1>\n"
    sns.publish(TopicArn=outputs["topic_arn"], Message="hello")
    url = outputs["queue_url"]
    messages = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
    assert messages[0]["Body"] == "hello"  # raw_message_delivery: no SNS envelope
    aws.ok("destroy", "--auto-approve")
    assert s3.list_buckets()["Buckets"] == [] and sqs.list_queues().get("QueueUrls", []) == []
    assert aws.client("iam").list_roles()["Roles"] == []
