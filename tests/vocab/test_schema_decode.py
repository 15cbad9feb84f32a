"""The one schema checker: Terraform's decoder over the provider schema form.

What it refuses and accepts is what ``terraform validate`` refuses and accepts for a provider's
schema (the real providers' comparison is tests/real_providers/test_schema_check_vs_terraform.py);
these cases pin the rules one by one, unknown values at every depth among them.
"""

from __future__ import annotations

from typing import Any

from vocab.schema.decode import check_config, suggestion
from vocab.schema.form import LIST, SINGLE, Attribute, Block, NestedBlock
from vocab.types import NUMBER, STRING, Collection, ObjectType
from vocab.values import UNKNOWN, Marked

RULE = Block(attributes=(Attribute("port", NUMBER, required=True), Attribute("labels", Collection("map", STRING),
                                                                             optional=True)))
SCHEMA = Block(
    attributes=(
        Attribute("name", STRING, required=True),
        Attribute("triggers", Collection("map", STRING), optional=True),
        Attribute("settings", ObjectType({"size": NUMBER, "tags": Collection("list", STRING)}), optional=True),
        Attribute("id", STRING, computed=True),
    ),
    block_types=(NestedBlock("rule", RULE, LIST, max_items=2), NestedBlock("owner", RULE, SINGLE)),
)


def _said(config: dict[str, Any], *, refuse_read_only: bool = True) -> list[tuple[str, str]]:
    return [(p.title, p.detail) for p in check_config(SCHEMA, config, refuse_read_only=refuse_read_only)]


def test_a_value_not_known_yet_is_accepted_at_any_depth() -> None:
    assert _said({"name": UNKNOWN}) == []
    assert _said({"name": "a", "triggers": {"a": UNKNOWN, "b": "x", "c": 3}}) == []
    assert _said({"name": "a", "triggers": UNKNOWN}) == []
    assert _said({"name": "a", "settings": {"size": UNKNOWN, "tags": [UNKNOWN, "x"]}}) == []
    assert _said({"name": "a", "rule": [{"port": UNKNOWN, "labels": {"k": UNKNOWN}}, UNKNOWN]}) == []
    assert _said({"name": Marked(UNKNOWN), "triggers": Marked({"a": Marked(UNKNOWN)})}) == []


def test_a_known_mistake_beside_an_unknown_is_still_refused() -> None:
    assert _said({"name": "a", "triggers": {"a": UNKNOWN, "b": [1]}}) == [(
        "Incorrect attribute value type",
        'Inappropriate value for attribute "triggers": element "b": string required, but have tuple.')]
    assert _said({"name": "a", "settings": {"size": "big", "tags": [UNKNOWN]}}) == [(
        "Incorrect attribute value type", 'Inappropriate value for attribute "settings": attribute "size": '
                                          "a number is required.")]


def test_an_attribute_inside_a_block_is_named_alone_as_terraform_names_it() -> None:
    found = check_config(SCHEMA, {"name": "a", "rule": [{"port": 1}, {"port": "x"}]}, refuse_read_only=True)
    assert [(p.path, p.detail) for p in found] == [
        (("rule", 1, "port"), 'Inappropriate value for attribute "port": a number is required.')]


def test_names_blocks_and_counts() -> None:
    assert _said({"nmae": "a"}) == [
        ("Unsupported argument", 'An argument named "nmae" is not expected here. Did you mean "name"?'),
        ("Missing required argument", 'The argument "name" is required, but no definition was found.')]
    # A name already written is never suggested (HCL's rule): "nam" is just unexpected.
    assert _said({"name": "a", "nam": "b"}) == [("Unsupported argument", 'An argument named "nam" is not expected here.')]
    assert _said({"name": "a", "rule": [{"port": 1}] * 3}) == [
        ('Too many "rule" blocks', 'No more than 2 "rule" blocks are allowed.')]
    assert _said({"name": "a", "owner": [{"port": 1}, {"port": 2}]}) == [
        ('Too many "owner" blocks', 'No more than 1 "owner" block is allowed.')]


def test_a_computed_only_attribute_is_refused_only_when_asked() -> None:
    assert _said({"name": "a", "id": "x"}, refuse_read_only=False) == []
    [(summary, detail)] = _said({"name": "a", "id": "x"})
    assert summary == "Invalid Configuration for Read-Only Attribute"
    assert detail.startswith("Cannot set value for this attribute as the provider has marked it as read-only.")


def test_suggestions_are_within_two_edits() -> None:
    assert suggestion("trigers", ["name", "triggers"]) == "triggers"
    assert suggestion("colour", ["color", "column"]) == "color"
    assert suggestion("something", ["name", "triggers"]) is None
