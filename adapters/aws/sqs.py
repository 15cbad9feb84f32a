"""``aws_sqs_queue``: a standard or FIFO queue, its attributes, policy and tags.

The queue URL is its ``id`` (and import ID), as in Terraform. Queue attributes travel as strings
in the API; they are turned into the integers and booleans of the schema in one place
(``_ATTRS``), both ways, so refresh returns exactly what create stored.

``sqs_managed_sse_enabled`` is optional *and* computed, as in Terraform: SQS turns managed
encryption on for new queues by itself, and left out of the configuration the queue keeps its
current setting. ``redrive_policy`` is managed like ``policy``: unset means none, so removing it
from the configuration removes it from the queue (Terraform leaves it to a separate redrive-policy
resource, which ctl does not have). It is JSON compared by meaning (SQS gives it back re-serialised,
``maxReceiveCount`` as a number even when sent as a string), so the state keeps the configuration's
own text while it means what SQS holds.

The state is the one HashiCorp's provider writes, so a stack moves between the two with no planned
change: an unset string is ``""`` (``name_prefix``, ``policy``, ``kms_master_key_id`` …), a FIFO
queue's ``deduplication_scope`` and ``fifo_throughput_limit`` are recorded (``""`` on a standard
queue), and ``max_message_size`` defaults to 262,144 bytes, sent on create as the provider sends it
(SQS's own default, and moto's, is larger).
"""

from __future__ import annotations

import json
from typing import Any

from adapters.aws import policy as policy_json
from adapters.aws import schema as s
from adapters.aws.base import FoundByName, exclusive, unique_name
from adapters.aws.errors import call
from adapters.base import AdapterContext, AdapterError

_DEFAULT_KMS_REUSE_S = 300
QUEUE_GONE = frozenset({"AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", "NonExistentQueue"})

# schema attribute -> (API attribute, kind)
_ATTRS: dict[str, tuple[str, str]] = {
    "delay_seconds": ("DelaySeconds", "int"),
    "visibility_timeout_seconds": ("VisibilityTimeout", "int"),
    "message_retention_seconds": ("MessageRetentionPeriod", "int"),
    "receive_wait_time_seconds": ("ReceiveMessageWaitTimeSeconds", "int"),
    "max_message_size": ("MaximumMessageSize", "int"),
    "content_based_deduplication": ("ContentBasedDeduplication", "bool"),
    "sqs_managed_sse_enabled": ("SqsManagedSseEnabled", "bool"),
    "kms_master_key_id": ("KmsMasterKeyId", "str"),
    "kms_data_key_reuse_period_seconds": ("KmsDataKeyReusePeriodSeconds", "int"),
    "deduplication_scope": ("DeduplicationScope", "str"),
    "fifo_throughput_limit": ("FifoThroughputLimit", "str"),
    "redrive_allow_policy": ("RedriveAllowPolicy", "str"),
}
_FIFO_ONLY = frozenset({"content_based_deduplication", "deduplication_scope", "fifo_throughput_limit"})
# Strings the provider records as "" when the queue has none.
_BLANK_STRINGS = ("name_prefix", "policy", "redrive_policy", "redrive_allow_policy", "kms_master_key_id",
                  "deduplication_scope", "fifo_throughput_limit")
_MAX_MESSAGE_SIZE = 262144  # the provider's default, sent on create


def _what(attrs: dict[str, Any]) -> str:
    return f'SQS queue "{attrs.get("name") or attrs.get("url") or attrs.get("id")}"'


class SqsQueue(FoundByName):
    """An SQS queue; ``name``, ``name_prefix`` and ``fifo_queue`` force a new queue."""

    name = "aws_sqs_queue"
    service = "sqs"
    taggable = True
    schema = s.resource_schema({
        "name": s.string("Queue name (FIFO queues end in .fifo); generated when unset.", maxLength=80),
        "name_prefix": s.string("Prefix of a generated queue name."),
        "fifo_queue": s.boolean("A FIFO queue.", False),
        "content_based_deduplication": s.boolean("FIFO: deduplicate by a hash of the body.", False),
        "delay_seconds": s.integer("Delivery delay of every message.", 0, minimum=0, maximum=900),
        "visibility_timeout_seconds": s.integer("Visibility timeout.", 30, minimum=0, maximum=43200),
        "message_retention_seconds": s.integer("How long messages are kept.", 345600, minimum=60,
                                               maximum=1209600),
        "receive_wait_time_seconds": s.integer("Long-polling wait.", 0, minimum=0, maximum=20),
        "max_message_size": s.integer("Largest message in bytes.", _MAX_MESSAGE_SIZE, minimum=1024,
                                      maximum=1048576),
        "policy": s.string("Access policy (JSON)."),
        "redrive_policy": s.string("Dead-letter queue (JSON: deadLetterTargetArn, maxReceiveCount)."),
        "redrive_allow_policy": s.string("Which source queues may use this one as a dead-letter queue (JSON)."),
        "deduplication_scope": s.string("FIFO: messageGroup or queue; SQS's choice when unset.",
                                        enum=["messageGroup", "queue", "", None]),
        "fifo_throughput_limit": s.string("FIFO: perQueue or perMessageGroupId; SQS's choice when unset.",
                                          enum=["perQueue", "perMessageGroupId", "", None]),
        "sqs_managed_sse_enabled": s.boolean("Server-side encryption with SQS-owned keys; "
                                             "the queue's current setting when unset."),
        "kms_master_key_id": s.string("KMS key (ID, ARN or alias) for server-side encryption."),
        "kms_data_key_reuse_period_seconds": s.integer("How long SQS reuses a KMS data key; SQS's default "
                                                       "when unset.", minimum=60, maximum=86400),
        **s.tags_properties(),
        "id": s.computed("The queue URL."),
        "arn": s.computed("ARN of the queue."),
        "url": s.computed("The queue URL."),
    })
    computed = frozenset({"id", "name", "arn", "url", "tags_all", "sqs_managed_sse_enabled",
                          "kms_data_key_reuse_period_seconds", "deduplication_scope", "fifo_throughput_limit"})
    replace_on = frozenset({"name", "name_prefix", "fifo_queue"})
    blank_strings = frozenset(_BLANK_STRINGS)

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        exclusive(ctx, out, "name", "name_prefix")
        name = out.get("name")
        if isinstance(name, str) and out.get("fifo_queue") is True and not name.endswith(".fifo"):
            raise AdapterError(f'the name of a FIFO queue must end in ".fifo"; got "{name}"',
                               address=ctx.address or None)
        if prior is not None:
            out["policy"] = policy_json.plan_text(prior.get("policy"), out.get("policy"))
            redrive = out.get("redrive_policy")
            if isinstance(redrive, str) and _same_redrive(prior.get("redrive_policy"), redrive):
                out["redrive_policy"] = prior.get("redrive_policy")  # no diff that is only formatting
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        fifo = bool(out.get("fifo_queue"))
        name = out.get("name") or unique_name(out.get("name_prefix") or "ctl-", ".fifo" if fifo else "", 80)
        attributes = {api: _to_api(out.get(arg), kind) for arg, (api, kind) in _ATTRS.items()
                      if out.get(arg) not in (None, "") and (fifo or arg not in _FIFO_ONLY)}
        if fifo:
            attributes["FifoQueue"] = "true"
        if out.get("policy"):
            attributes["Policy"] = out["policy"]
        if out.get("redrive_policy"):
            attributes["RedrivePolicy"] = out["redrive_policy"]
        kwargs: dict[str, Any] = {"QueueName": name, "Attributes": attributes}
        if out.get("tags_all"):
            kwargs["tags"] = dict(out["tags_all"])
        created = call(ctx, f'SQS queue "{name}"', self.api(ctx).create_queue, **kwargs)
        out.update({"name": name, "url": created["QueueUrl"], "id": created["QueueUrl"]})
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        sqs, url = self.api(ctx), out["url"]
        fifo = bool(out.get("fifo_queue"))
        changed = {api: _to_api(out.get(arg), kind) for arg, (api, kind) in _ATTRS.items()
                   if out.get(arg) is not None and out.get(arg) != prior.get(arg)
                   and not (out.get(arg) == "" and not prior.get(arg)) and (fifo or arg not in _FIFO_ONLY)}
        if prior.get("redrive_allow_policy") and not out.get("redrive_allow_policy"):
            changed["RedriveAllowPolicy"] = ""  # removed from the configuration: removed from the queue
        if not _same_redrive(prior.get("redrive_policy"), out.get("redrive_policy")):
            changed["RedrivePolicy"] = out.get("redrive_policy") or ""  # "" removes it
        if out.get("policy") != prior.get("policy"):
            changed["Policy"] = out.get("policy") or ""
        elif changed and out.get("policy"):
            # Sent again unchanged: moto drops a queue's policy on any SetQueueAttributes without one.
            changed["Policy"] = out["policy"]
        if changed:
            call(ctx, _what(out), sqs.set_queue_attributes, QueueUrl=url, Attributes=changed)
        to_set, to_remove = self.tag_changes(prior, out)
        if to_remove:
            call(ctx, _what(out), sqs.untag_queue, QueueUrl=url, TagKeys=to_remove)
        if to_set:
            call(ctx, _what(out), sqs.tag_queue, QueueUrl=url, Tags=to_set)
        return self._refresh(ctx, out) or out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        url = prior.get("url") or prior.get("id")
        if url:
            call(ctx, _what(prior), self.api(ctx).delete_queue, missing=QUEUE_GONE, QueueUrl=url)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the queue URL."""
        return self.complete({"id": resource_id, "url": resource_id})

    def id_for_name(self, ctx: AdapterContext, name: str) -> str | None:
        """The queue URL, which only SQS knows (GetQueueUrl)."""
        found = call(ctx, f'SQS queue "{name}"', self.api(ctx).get_queue_url, missing=QUEUE_GONE, QueueName=name)
        return None if found is None else str(found["QueueUrl"])

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        sqs = self.api(ctx)
        url = str(out.get("url") or out.get("id"))
        found = call(ctx, _what(out), sqs.get_queue_attributes, missing=QUEUE_GONE, QueueUrl=url,
                     AttributeNames=["All"])
        if found is None:
            return None
        api = found.get("Attributes", {})
        out.update({"id": url, "url": url, "name": url.rstrip("/").rsplit("/", 1)[-1], "arn": api.get("QueueArn"),
                    "fifo_queue": api.get("FifoQueue") == "true"})
        for arg, (name, kind) in _ATTRS.items():
            if name in api:
                out[arg] = _from_api(api[name], kind)
        if "KmsDataKeyReusePeriodSeconds" not in api:  # SQS's default, reported only with a KMS key
            out["kms_data_key_reuse_period_seconds"] = _DEFAULT_KMS_REUSE_S
        if not out["fifo_queue"]:
            out["content_based_deduplication"] = False
            out["deduplication_scope"] = out["fifo_throughput_limit"] = ""
        out["policy"] = policy_json.keep_text(out.get("policy"), api.get("Policy"))
        out["redrive_policy"] = _redrive_text(out.get("redrive_policy"), api.get("RedrivePolicy"))
        out["redrive_allow_policy"] = policy_json.keep_text(out.get("redrive_allow_policy"),
                                                            api.get("RedriveAllowPolicy"))
        tags = call(ctx, _what(out), sqs.list_queue_tags, missing=QUEUE_GONE, QueueUrl=url) or {}
        out.update(self.split_tags(ctx, tags.get("Tags") or {}, out.get("tags")))
        return out


def _to_api(value: Any, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "str":
        return str(value)
    return str(int(value))


def _from_api(value: str, kind: str) -> Any:
    if kind == "bool":
        return value.lower() == "true"
    if kind == "str":
        return value
    return int(value)


def _redrive(document: Any) -> Any:
    """A redrive policy as comparable data: parsed, ``maxReceiveCount`` as a number."""
    parsed = policy_json.parse(document)
    if isinstance(parsed, dict) and isinstance(parsed.get("maxReceiveCount"), str):
        count = parsed["maxReceiveCount"].strip()
        if count.isdigit():
            parsed = {**parsed, "maxReceiveCount": int(count)}
    return parsed


def _same_redrive(a: Any, b: Any) -> bool:
    """Do two redrive policies (text) mean the same? Both unset counts as the same."""
    if not a or not b:
        return not a and not b
    return bool(_redrive(a) == _redrive(b))


def _redrive_text(prior: Any, actual: str | None) -> str | None:
    """What state keeps: the prior text while it means what SQS holds, else SQS's (compacted)."""
    if not actual:
        return "" if prior == "" else None  # `redrive_policy = ""` removes it, and stays as written
    if _same_redrive(prior, actual):
        return str(prior)
    parsed = _redrive(actual)
    return json.dumps(parsed, separators=(",", ":")) if isinstance(parsed, dict) else actual
