"""``aws_sqs_queue``, ``aws_sns_topic`` and ``aws_sns_topic_subscription`` through ``ctl`` against moto.

moto limits found: SQS queue URLs carry the host the request went to (``http://127.0.0.1:PORT/…``),
and moto's default ``MaximumMessageSize`` is 1 MiB (AWS raised its default from 256 KiB in 2025),
which is why ``max_message_size`` is read back rather than defaulted. moto forgets a queue's
policy on any ``SetQueueAttributes`` that does not repeat it (the adapter always sends it along),
and does not keep a policy without statements. SQS subscriptions are confirmed at once, as with
AWS.
"""

from __future__ import annotations

import json

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject


def config(*, queue: str = "events", timeout: int = 30, raw: bool = False, display: str = "Events",
           team: str = "a", retention: int = 345600) -> str:
    return f"""
resource "aws_sns_topic" "t" {{
  name         = "events"
  display_name = "{display}"
  tags         = {{ team = "{team}" }}
}}

resource "aws_sqs_queue" "q" {{
  name                       = "{queue}"
  visibility_timeout_seconds = {timeout}
  message_retention_seconds  = {retention}
  tags                       = {{ team = "{team}" }}
  policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [{{
      Effect    = "Allow"
      Principal = {{ Service = "sns.amazonaws.com" }}
      Action    = "sqs:SendMessage"
      Resource  = "arn:aws:sqs:us-east-1:123456789012:{queue}"
      Condition = {{ ArnEquals = {{ "aws:SourceArn" = aws_sns_topic.t.arn }} }}
    }}]
  }})
}}

resource "aws_sqs_queue" "fifo" {{
  name                        = "orders.fifo"
  fifo_queue                  = true
  content_based_deduplication = true
}}

resource "aws_sns_topic_subscription" "s" {{
  topic_arn            = aws_sns_topic.t.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.q.arn
  raw_message_delivery = {str(raw).lower()}
}}
"""


def queue_attrs(aws: AwsProject, url: str) -> dict[str, str]:
    return dict(aws.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"])


def test_queue_topic_subscription_lifecycle(aws: AwsProject) -> None:
    aws.setup(config())
    assert "4 added" in aws.apply().stdout
    sqs, sns = aws.client("sqs"), aws.client("sns")
    queue = aws.attrs("aws_sqs_queue.q")
    assert queue["id"] == queue["url"] == sqs.get_queue_url(QueueName="events")["QueueUrl"]
    attrs = queue_attrs(aws, queue["url"])
    assert attrs["VisibilityTimeout"] == "30" and attrs["QueueArn"] == queue["arn"]
    assert json.loads(attrs["Policy"])["Statement"][0]["Action"] in ("sqs:SendMessage", ["sqs:SendMessage"])
    assert sqs.list_queue_tags(QueueUrl=queue["url"])["Tags"] == {"team": "a"}
    fifo = queue_attrs(aws, aws.attrs("aws_sqs_queue.fifo")["url"])
    assert fifo["FifoQueue"] == "true" and fifo["ContentBasedDeduplication"] == "true"
    topic_arn = aws.attrs("aws_sns_topic.t")["arn"]
    assert sns.get_topic_attributes(TopicArn=topic_arn)["Attributes"]["DisplayName"] == "Events"
    sub_arn = aws.attrs("aws_sns_topic_subscription.s")["arn"]
    sub = sns.get_subscription_attributes(SubscriptionArn=sub_arn)["Attributes"]
    assert sub["Endpoint"] == queue["arn"] and sub["Protocol"] == "sqs" and sub["RawMessageDelivery"] == "false"
    # the subscription delivers: a message published to the topic arrives in the queue
    sns.publish(TopicArn=topic_arn, Message="ping")
    received = sqs.receive_message(QueueUrl=queue["url"], WaitTimeSeconds=1)["Messages"]
    assert "ping" in received[0]["Body"]
    aws.assert_noop()

    # in place: queue attributes and tags, the topic's display name and tags, raw delivery
    aws.setup(config(timeout=60, raw=True, display="All events", team="b"))
    res = aws.apply()
    assert "0 added, 3 changed, 0 destroyed" in res.stdout
    attrs = queue_attrs(aws, queue["url"])
    assert attrs["VisibilityTimeout"] == "60"
    assert sqs.list_queue_tags(QueueUrl=queue["url"])["Tags"] == {"team": "b"}
    assert sns.get_topic_attributes(TopicArn=topic_arn)["Attributes"]["DisplayName"] == "All events"
    assert {t["Key"]: t["Value"] for t in sns.list_tags_for_resource(ResourceArn=topic_arn)["Tags"]} == {
        "team": "b"}
    assert sns.get_subscription_attributes(SubscriptionArn=sub_arn)["Attributes"]["RawMessageDelivery"] == "true"
    aws.assert_noop()

    # drift: an attribute changed and the subscription removed behind ctl's back
    sqs.set_queue_attributes(QueueUrl=queue["url"], Attributes={"VisibilityTimeout": "99"})
    sns.unsubscribe(SubscriptionArn=sub_arn)
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "99" in out
    assert "1 to add, 1 to change, 0 to destroy" in out
    aws.apply()
    assert queue_attrs(aws, queue["url"])["VisibilityTimeout"] == "60"
    subs = sns.list_subscriptions_by_topic(TopicArn=topic_arn)["Subscriptions"]
    assert [s["Endpoint"] for s in subs] == [queue["arn"]]

    # import: queue by URL, topic by ARN, subscription by ARN
    aws.reimport("aws_sqs_queue.q", queue["url"])
    aws.reimport("aws_sns_topic.t", topic_arn)
    aws.reimport("aws_sns_topic_subscription.s", aws.attrs("aws_sns_topic_subscription.s")["arn"])
    aws.assert_noop()

    # replace: a new queue name is a new queue, and the subscription follows its endpoint
    aws.setup(config(queue="events-v2", timeout=60, raw=True, display="All events", team="b"))
    res = aws.apply()
    assert "2 added, 0 changed, 2 destroyed" in res.stdout
    urls = sqs.list_queues().get("QueueUrls", [])
    assert any(u.endswith("/events-v2") for u in urls) and not any(u.endswith("/events") for u in urls)
    subs = sns.list_subscriptions_by_topic(TopicArn=topic_arn)["Subscriptions"]
    assert [s["Endpoint"] for s in subs] == ["arn:aws:sqs:us-east-1:123456789012:events-v2"]

    aws.ok("destroy", "--auto-approve")
    assert sqs.list_queues().get("QueueUrls", []) == []
    assert sns.list_topics()["Topics"] == [] and sns.list_subscriptions()["Subscriptions"] == []


def test_deleted_topic_is_created_again(aws: AwsProject) -> None:
    aws.setup('resource "aws_sns_topic" "t" {\n  name_prefix = "ctl-"\n}\n'
              'resource "aws_sqs_queue" "q" {\n  name_prefix = "ctl-"\n  fifo_queue = true\n}\n')
    aws.apply()
    topic = aws.attrs("aws_sns_topic.t")
    queue = aws.attrs("aws_sqs_queue.q")
    assert topic["name"].startswith("ctl-") and queue["name"].startswith("ctl-")
    assert queue["name"].endswith(".fifo")
    aws.client("sns").delete_topic(TopicArn=topic["arn"])
    res = aws.apply()
    assert DRIFT in res.stdout and "will be created" in res.stdout
    assert [t["TopicArn"] for t in aws.client("sns").list_topics()["Topics"]] == [aws.attrs("aws_sns_topic.t")["arn"]]
    aws.assert_noop()


def test_a_queue_encrypted_with_a_kms_key_and_a_data_key_reuse_period(aws: AwsProject) -> None:
    def queue(period: int) -> str:
        return ('resource "aws_sqs_queue" "k" {\n  name = "sealed"\n  kms_master_key_id = "alias/aws/sqs"\n'
                f"  kms_data_key_reuse_period_seconds = {period}\n}}\n")

    aws.setup(queue(600))
    aws.apply()
    url = aws.attrs("aws_sqs_queue.k")["url"]
    api = queue_attrs(aws, url)
    assert api["KmsMasterKeyId"] == "alias/aws/sqs" and api["KmsDataKeyReusePeriodSeconds"] == "600"
    aws.assert_noop()
    aws.setup(queue(900))
    assert "1 changed" in aws.apply().stdout
    assert queue_attrs(aws, url)["KmsDataKeyReusePeriodSeconds"] == "900"
    aws.assert_noop()
