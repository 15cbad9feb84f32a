"""The rule by which a native adapter reads a prior object the provider wrote (adapters/equivalence.py),
on the schemas of the native aws types it serves."""

from __future__ import annotations

from adapters.aws.dynamodb import DynamoDbTable
from adapters.aws.sqs import SqsQueue
from adapters.equivalence import keep_prior, same_for_plan
from vocab.values import UNKNOWN

QUEUE = SqsQueue().schema
TABLE = DynamoDbTable().schema


def test_blank_and_null_are_one_value_and_the_prior_spelling_is_planned() -> None:
    prior = {"name": "q", "name_prefix": "", "policy": "", "tags": {}, "hosted_zone_id": "Z3"}
    planned = {"name": "q", "name_prefix": None, "policy": None, "tags": None}
    assert keep_prior(QUEUE, prior, planned) == prior


def test_a_default_and_null_are_one_value() -> None:
    assert same_for_plan(QUEUE["properties"]["delay_seconds"], 0, None)
    assert same_for_plan(QUEUE["properties"]["fifo_queue"], None, False)
    assert not same_for_plan(QUEUE["properties"]["fifo_queue"], True, None)
    assert not same_for_plan(QUEUE["properties"]["delay_seconds"], 0, 5)


def test_a_real_change_is_planned_as_the_adapter_planned_it() -> None:
    prior = {"name": "q", "name_prefix": "", "tags": {"team": "core"}}
    planned = {"name": "q2", "name_prefix": None, "tags": {"team": "platform"}}
    assert keep_prior(QUEUE, prior, planned) == {"name": "q2", "name_prefix": "", "tags": {"team": "platform"}}


def test_unknown_is_never_the_same() -> None:
    assert not same_for_plan(QUEUE["properties"]["name"], "", UNKNOWN)


def test_nested_blocks_compare_member_by_member() -> None:
    ttl = TABLE["properties"]["ttl"]
    assert same_for_plan(ttl, [{"attribute_name": "", "enabled": False}], [{"attribute_name": None, "enabled": None}])
    assert not same_for_plan(ttl, [{"attribute_name": "", "enabled": False}], [{"attribute_name": "x", "enabled": True}])
    assert same_for_plan(ttl, [{"attribute_name": "", "enabled": False}], [])  # one block of unset members
    assert not same_for_plan(ttl, [{"attribute_name": "at", "enabled": True}], [])


def test_no_prior_plans_as_planned() -> None:
    planned = {"name": None}
    assert keep_prior(QUEUE, None, planned) is planned
