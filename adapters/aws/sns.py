"""``aws_sns_topic`` and ``aws_sns_topic_subscription``.

Both are identified by ARN (their ``id`` and import ID). A subscription's topic, protocol and
endpoint cannot change (a new subscription is made); its delivery attributes change in place.

The state is the one HashiCorp's provider writes: every topic and subscription attribute it records
(``policy``, ``delivery_policy``, the delivery-status feedback roles and sample rates …) is read from
SNS, ``""`` (or 0) where SNS reports none. Those ctl does not set are computed-only here: a
configuration that sets one is refused, and ``ctl init`` then selects the provider's plugin.
"""

from __future__ import annotations

from typing import Any

from adapters._recovery import known_strings
from adapters.aws import policy as policy_json
from adapters.aws import schema as s
from adapters.aws.base import AwsResource, FoundByName, exclusive, keep_unset, unique_name
from adapters.aws.errors import call, pages
from adapters.base import AdapterContext, AdapterError

GONE = frozenset({"NotFound", "NotFoundException", "InvalidParameter"})

# attribute -> (SNS attribute, kind): what the provider records of a topic and ctl only reads.
_TOPIC_READ: dict[str, tuple[str, str]] = {
    **{f"{p}_{outcome}_feedback_role_arn": (f"{api}{outcome.title()}FeedbackRoleArn", "str")
       for p, api in (("application", "Application"), ("firehose", "Firehose"), ("http", "HTTP"),
                      ("lambda", "Lambda"), ("sqs", "SQS"))
       for outcome in ("success", "failure")},
    **{f"{p}_success_feedback_sample_rate": (f"{api}SuccessFeedbackSampleRate", "int")
       for p, api in (("application", "Application"), ("firehose", "Firehose"), ("http", "HTTP"),
                      ("lambda", "Lambda"), ("sqs", "SQS"))},
    "archive_policy": ("ArchivePolicy", "json"),
    "beginning_archive_time": ("BeginningArchiveTime", "str"),
    "delivery_policy": ("DeliveryPolicy", "json"),
    "kms_master_key_id": ("KmsMasterKeyId", "str"),
    "policy": ("Policy", "json"),
    "signature_version": ("SignatureVersion", "int"),
    "tracing_config": ("TracingConfig", "str"),
}
# The same for a subscription.
_SUBSCRIPTION_READ: dict[str, tuple[str, str]] = {
    "confirmation_was_authenticated": ("ConfirmationWasAuthenticated", "bool"),
    "pending_confirmation": ("PendingConfirmation", "bool"),
    "delivery_policy": ("DeliveryPolicy", "json"),
    "filter_policy_scope": ("FilterPolicyScope", "str"),
    "redrive_policy": ("RedrivePolicy", "json"),
    "replay_policy": ("ReplayPolicy", "json"),
    "subscription_role_arn": ("SubscriptionRoleArn", "str"),
}
_KINDS = {"str": "string", "json": "string", "int": "integer", "bool": "boolean"}


def _read_schema(read: dict[str, tuple[str, str]]) -> dict[str, Any]:
    return {name: s.computed(f"{api} as SNS reports it.", _KINDS[kind]) for name, (api, kind) in read.items()}


def _read_values(read: dict[str, tuple[str, str]], api: dict[str, str], prior: dict[str, Any]) -> dict[str, Any]:
    """The provider's values of ``read`` from SNS's attributes: ``""``, 0 or false when SNS has none;
    a JSON document kept in the prior's text while it means the same."""
    out: dict[str, Any] = {}
    for name, (key, kind) in read.items():
        value = api.get(key)
        if kind == "int":
            out[name] = int(value) if value and value.strip().isdigit() else 0
        elif kind == "bool":
            out[name] = str(value).lower() == "true"
        elif kind == "json":
            out[name] = policy_json.provider_text(prior.get(name), value)
        else:
            out[name] = value or ""
    return out


class SnsTopic(FoundByName):
    """An SNS topic (standard or FIFO) with a display name and tags."""

    name = "aws_sns_topic"
    service = "sns"
    taggable = True
    schema = s.resource_schema({
        "name": s.string("Topic name (FIFO topics end in .fifo); generated when unset.", maxLength=256),
        "name_prefix": s.string("Prefix of a generated topic name."),
        "fifo_topic": s.boolean("A FIFO topic.", False),
        "content_based_deduplication": s.boolean("FIFO: deduplicate by a hash of the body.", False),
        "display_name": s.string("Display name (SMS sender)."),
        **s.tags_properties(),
        "id": s.computed("ARN of the topic."),
        "arn": s.computed("ARN of the topic."),
        "owner": s.computed("Account ID of the topic's owner."),
        **_read_schema(_TOPIC_READ),
    })
    computed = frozenset({"id", "name", "arn", "owner", "tags_all", *_TOPIC_READ})
    replace_on = frozenset({"name", "name_prefix", "fifo_topic"})
    blank_strings = frozenset({"display_name", "name_prefix"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        exclusive(ctx, out, "name", "name_prefix")
        name = out.get("name")
        if isinstance(name, str) and out.get("fifo_topic") is True and not name.endswith(".fifo"):
            raise AdapterError(f'the name of a FIFO topic must end in ".fifo"; got "{name}"',
                               address=ctx.address or None)
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        fifo = bool(out.get("fifo_topic"))
        name = out.get("name") or unique_name(out.get("name_prefix") or "ctl-", ".fifo" if fifo else "", 256)
        attributes: dict[str, str] = {}
        if fifo:
            attributes["FifoTopic"] = "true"
            attributes["ContentBasedDeduplication"] = "true" if out.get("content_based_deduplication") else "false"
        if out.get("display_name"):
            attributes["DisplayName"] = out["display_name"]
        kwargs: dict[str, Any] = {"Name": name, "Attributes": attributes}
        if out.get("tags_all"):
            kwargs["Tags"] = [{"Key": k, "Value": v} for k, v in sorted(out["tags_all"].items())]
        created = call(ctx, f'SNS topic "{name}"', self.api(ctx).create_topic, **kwargs)
        out.update({"id": created["TopicArn"], "arn": created["TopicArn"]})
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        sns, arn = self.api(ctx), out["arn"]
        what = f'SNS topic "{arn}"'
        if (out.get("display_name") or "") != (prior.get("display_name") or ""):
            call(ctx, what, sns.set_topic_attributes, TopicArn=arn, AttributeName="DisplayName",
                 AttributeValue=out.get("display_name") or "")
        if out.get("fifo_topic") and out.get("content_based_deduplication") != prior.get("content_based_deduplication"):
            call(ctx, what, sns.set_topic_attributes, TopicArn=arn, AttributeName="ContentBasedDeduplication",
                 AttributeValue="true" if out.get("content_based_deduplication") else "false")
        to_set, to_remove = self.tag_changes(prior, out)
        if to_remove:
            call(ctx, what, sns.untag_resource, ResourceArn=arn, TagKeys=to_remove)
        if to_set:
            call(ctx, what, sns.tag_resource, ResourceArn=arn,
                 Tags=[{"Key": k, "Value": v} for k, v in sorted(to_set.items())])
        return self._refresh(ctx, out) or out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        arn = prior.get("arn") or prior.get("id")
        if arn:
            call(ctx, f'SNS topic "{arn}"', self.api(ctx).delete_topic, missing=GONE, TopicArn=arn)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the topic ARN."""
        return self.complete({"id": resource_id, "arn": resource_id})

    def id_for_name(self, ctx: AdapterContext, name: str) -> str | None:
        """The ARN of the topic of that name in the provider's region (ARNs end in ``:NAME``)."""
        for page in pages(ctx, f'SNS topic "{name}"', self.api(ctx), "list_topics"):
            for topic in page.get("Topics", []):
                arn = str(topic.get("TopicArn", ""))
                if arn.rsplit(":", 1)[-1] == name:
                    return arn
        return None

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        sns = self.api(ctx)
        arn = str(out.get("arn") or out.get("id"))
        what = f'SNS topic "{arn}"'
        found = call(ctx, what, sns.get_topic_attributes, missing=GONE, TopicArn=arn)
        if found is None:
            return None
        api = found.get("Attributes", {})
        fifo = api.get("FifoTopic") == "true"
        out.update({
            "id": arn, "arn": arn, "name": arn.rsplit(":", 1)[-1], "owner": api.get("Owner"), "fifo_topic": fifo,
            "content_based_deduplication": fifo and api.get("ContentBasedDeduplication") == "true",
            "display_name": keep_unset(out.get("display_name"), api.get("DisplayName") or "", ""),
            **_read_values(_TOPIC_READ, api, out),
        })
        tags = call(ctx, what, sns.list_tags_for_resource, missing=GONE, ResourceArn=arn) or {}
        actual = {t["Key"]: t["Value"] for t in tags.get("Tags", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        return out


class SnsTopicSubscription(AwsResource):
    """A subscription of an endpoint (SQS queue ARN, URL, e-mail …) to a topic."""

    name = "aws_sns_topic_subscription"
    service = "sns"
    schema = s.resource_schema({
        "topic_arn": s.required_string("ARN of the topic."),
        "protocol": s.required_string("sqs, sns, lambda, http, https, email, email-json, sms, application or "
                                      "firehose."),
        "endpoint": s.required_string("Where messages go: a queue ARN, a URL, an address …"),
        "raw_message_delivery": s.boolean("Deliver the raw message, without the SNS envelope.", False),
        "filter_policy": s.string("Filter policy (JSON)."),
        "id": s.computed("ARN of the subscription."),
        "arn": s.computed("ARN of the subscription."),
        "owner_id": s.computed("Account ID of the subscription's owner."),
        "confirmation_timeout_in_minutes": s.integer("How long the provider waits for a confirmation; "
                                                     "SQS, SNS and Lambda endpoints confirm at once.", 1),
        "endpoint_auto_confirms": s.boolean("Whether an http(s) endpoint confirms by itself.", False),
        **_read_schema(_SUBSCRIPTION_READ),
    }, required=("topic_arn", "protocol", "endpoint"))
    computed = frozenset({"id", "arn", "owner_id", *_SUBSCRIPTION_READ})
    replace_on = frozenset({"topic_arn", "protocol", "endpoint"})
    blank_strings = frozenset({"filter_policy"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        if prior is not None:
            out["filter_policy"] = policy_json.plan_text(prior.get("filter_policy"), out.get("filter_policy"))
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        attributes = {"RawMessageDelivery": "true" if out.get("raw_message_delivery") else "false"}
        if out.get("filter_policy"):
            attributes["FilterPolicy"] = out["filter_policy"]
        what = f'subscription of {out["endpoint"]} to SNS topic "{out["topic_arn"]}"'
        made = call(ctx, what, self.api(ctx).subscribe, TopicArn=out["topic_arn"], Protocol=out["protocol"],
                    Endpoint=out["endpoint"], Attributes=attributes, ReturnSubscriptionArn=True)
        out.update({"id": made["SubscriptionArn"], "arn": made["SubscriptionArn"]})
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        sns, arn = self.api(ctx), out["arn"]
        what = f'SNS subscription "{arn}"'
        if bool(out.get("raw_message_delivery")) != bool(prior.get("raw_message_delivery")):
            call(ctx, what, sns.set_subscription_attributes, SubscriptionArn=arn, AttributeName="RawMessageDelivery",
                 AttributeValue="true" if out.get("raw_message_delivery") else "false")
        if out.get("filter_policy") != prior.get("filter_policy"):
            call(ctx, what, sns.set_subscription_attributes, SubscriptionArn=arn, AttributeName="FilterPolicy",
                 AttributeValue=out.get("filter_policy") or "")
        return self._refresh(ctx, out) or out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        arn = prior.get("arn") or prior.get("id")
        if arn:
            call(ctx, f'SNS subscription "{arn}"', self.api(ctx).unsubscribe, missing=GONE, SubscriptionArn=arn)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the subscription ARN."""
        return self.complete({"id": resource_id, "arn": resource_id})

    # The import ID is an ARN SNS assigns; SNS keeps one subscription per topic, protocol and
    # endpoint, so find looks for those among the topic's subscriptions.

    def findable(self, ctx: AdapterContext, identity: dict[str, Any]) -> bool:
        return known_strings(identity, "topic_arn", "protocol", "endpoint") is not None

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        """The confirmed subscription of the planned endpoint to the planned topic.

        One still pending confirmation has no ARN yet and counts as not found: subscribing again
        makes no second one.
        """
        keys = known_strings(identity, "topic_arn", "protocol", "endpoint")
        if keys is None:
            return None
        topic_arn, protocol, endpoint = keys
        for page in pages(ctx, f'SNS topic "{topic_arn}"', self.api(ctx), "list_subscriptions_by_topic",
                          missing=GONE, TopicArn=topic_arn):
            for sub in page.get("Subscriptions", []):
                arn = str(sub.get("SubscriptionArn", ""))
                if sub.get("Protocol") == protocol and sub.get("Endpoint") == endpoint and arn.startswith("arn:"):
                    return self.read(ctx, self.import_(ctx, arn))
        return None

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        arn = out.get("arn") or out.get("id")
        found = call(ctx, f'SNS subscription "{arn}"', self.api(ctx).get_subscription_attributes, missing=GONE,
                     SubscriptionArn=arn)
        if found is None:
            return None
        api = found.get("Attributes", {})
        out.update({
            "id": arn, "arn": arn, "topic_arn": api.get("TopicArn"), "protocol": api.get("Protocol"),
            "endpoint": api.get("Endpoint"), "owner_id": api.get("Owner"),
            "raw_message_delivery": api.get("RawMessageDelivery") == "true",
            "filter_policy": policy_json.keep_text(out.get("filter_policy"), api.get("FilterPolicy")),
            **_read_values(_SUBSCRIPTION_READ, api, out),
        })
        return out
