"""The schema check of one resource's arguments: what it reports, with annotation-only
subschemas (a description, ``readOnly``) taken as accepting anything, which they do."""

from __future__ import annotations

from typing import Any

import pytest

import engine.schema as schema_module
from adapters.base import ResourceType
from engine.lang.syntax import Body
from engine.schema import check
from vocab.errors import Pos, SourceRange
from vocab.values import UNKNOWN, Marked

WHERE = SourceRange("main.tf", Pos(1, 1, 0), Pos(1, 2, 1))


class Thing(ResourceType):
    name = "test_thing"
    schema = {
        "type": "object",
        "properties": {
            "anything": {"description": "Any value at all.", "readOnly": False},
            "size": {"type": "integer", "description": "How big."},
            "nested": {"type": "object", "properties": {"note": {"title": "A note"}, "n": {"type": "integer"}},
                       "additionalProperties": False},
        },
        "required": ["size"],
        "additionalProperties": False,
    }


def _summaries(config: dict[str, Any]) -> list[str]:
    """What each problem says: its summary, then its detail."""
    return [f"{d.summary}: {d.detail}" for d in check(Thing(), config, "test_thing.a", Body({}, [], WHERE), WHERE)]


def test_an_annotation_only_argument_takes_any_value() -> None:
    for value in ({"deep": [1, {"x": None}]}, [1, "two"], "text", 3.5, True):
        assert _summaries({"anything": value, "size": 1}) == []


def test_constrained_arguments_are_still_checked_beside_it() -> None:
    assert _summaries({"anything": {"a": 1}, "size": "big"}) == [_summaries({"size": "big"})[0]]
    assert len(_summaries({"size": "big"})) == 1
    assert any('"colour"' in s for s in _summaries({"size": 1, "colour": "red"}))
    assert any('"size"' in s for s in _summaries({"anything": 1}))  # still required


def test_inside_a_nested_object_too() -> None:
    assert _summaries({"size": 1, "nested": {"note": {"any": ["thing"]}, "n": 2}}) == []
    assert len(_summaries({"size": 1, "nested": {"note": "x", "n": "two"}})) == 1
    assert len(_summaries({"size": 1, "nested": {"note": "x", "other": 1}})) == 1


def test_unknown_values_are_taken_as_valid_wherever_they_are() -> None:
    """An unknown counts as set (``required``) and as right (its type is not known yet), whether
    it sits under an annotation-only argument, a typed one, or inside a nested object."""
    assert _summaries({"size": UNKNOWN}) == []
    assert _summaries({"size": 1, "anything": {"deep": [UNKNOWN, {"x": UNKNOWN}]}}) == []
    assert _summaries({"size": 1, "anything": UNKNOWN}) == []
    assert _summaries({"size": 1, "nested": {"note": {"any": UNKNOWN}, "n": UNKNOWN}}) == []
    assert _summaries({"size": 1, "nested": UNKNOWN}) == []


def test_known_mistakes_beside_unknown_values_are_still_reported() -> None:
    assert len(_summaries({"size": 1, "nested": {"note": UNKNOWN, "n": "two"}})) == 1
    assert len(_summaries({"size": "big", "anything": {"deep": UNKNOWN}})) == 1
    assert len(_summaries({"size": UNKNOWN, "nested": {"other": UNKNOWN}})) == 1  # not a nested argument
    assert any('"size"' in s for s in _summaries({"anything": UNKNOWN}))  # still required


class Holder(ResourceType):
    """An argument that takes any value, and must be set."""

    name = "test_holder"
    schema = {"type": "object", "properties": {"payload": {"description": "Anything."}}, "required": ["payload"],
              "additionalProperties": False}


class Guarded(Holder):
    """The same argument, constrained from the root instead of from its own subschema."""

    name = "test_guarded"
    schema = {**Holder.schema,
              "allOf": [{"properties": {"payload": {"type": "object", "properties": {"key": {"type": "string"}}}}}]}


def _problems(rt: ResourceType, config: dict[str, Any]) -> list[str]:
    return [d.summary for d in check(rt, config, f"{rt.name}.a", Body({}, [], WHERE), WHERE)]


def _details(rt: ResourceType, config: dict[str, Any]) -> list[str]:
    return [d.detail for d in check(rt, config, f"{rt.name}.a", Body({}, [], WHERE), WHERE)]


def test_a_secret_argument_is_checked_as_its_value() -> None:
    """Sensitive values are checked as what they hold: a secret of the right type passes, one of
    the wrong type fails, and a secret null is no more set than a plain one."""
    assert _summaries({"size": Marked(2), "anything": Marked({"deep": [Marked("s")]})}) == []
    assert len(_summaries({"size": Marked("big")})) == 1
    assert _problems(Holder(), {"payload": Marked({"key": Marked("value")})}) == []
    assert _problems(Holder(), {"payload": Marked(None)}) == ["Missing required argument"]
    assert _details(Holder(), {"payload": Marked(None)}) == [
        'test_holder.a: The argument "payload" is required, but no definition was found.']


def test_an_argument_constrained_from_the_root_is_checked_through_its_secrets() -> None:
    """``payload``'s own subschema accepts anything, but the root's ``allOf`` wants its ``key`` to
    be a string: the check must look through the marks inside it to see whether it is."""
    assert _problems(Guarded(), {"payload": {"key": Marked("text")}}) == []
    assert len(_problems(Guarded(), {"payload": {"key": Marked(3)}})) == 1
    assert len(_problems(Guarded(), {"payload": {"key": 3}})) == 1


class Counted(Holder):
    """The same argument under a root that also counts the arguments set."""

    name = "test_counted"
    schema = {**Holder.schema, "properties": {"payload": True, "note": True}, "minProperties": 2}


HOLDER_CONFIGS: list[dict[str, Any]] = [
    {"payload": {"deep": [1, {"x": None}]}}, {"payload": Marked("s")}, {"payload": UNKNOWN}, {},
    {"payload": None}, {"payload": 1, "other": 2}, {"other": "x"}, {"payload": Marked(None)},
]


@pytest.mark.parametrize("config", HOLDER_CONFIGS, ids=repr)
def test_the_check_that_cannot_reject_finds_what_the_validator_finds(config, monkeypatch) -> None:
    """A type whose set arguments all take any value is not run through jsonschema; the problems
    are the same as when it is: a missing required argument and an unknown one still reported."""
    shortcut = _problems(Holder(), config)
    monkeypatch.setattr(schema_module, "_cannot_reject", lambda rt, args: False)
    assert shortcut == _problems(Holder(), config)


class Wanting(ResourceType):
    """Nothing required, but at least one argument set."""

    name = "test_wanting"
    schema = {"type": "object", "properties": {"note": True}, "minProperties": 1}


def test_a_root_that_checks_more_than_names_is_still_run() -> None:
    """``minProperties`` at the root reads more than which arguments are set: the validator runs,
    with no argument set too."""
    assert _problems(Wanting(), {}) != []
    assert _problems(Wanting(), {"note": "n"}) == []
    assert _problems(Counted(), {"payload": 1}) != []
    assert _problems(Counted(), {"payload": 1, "note": "n"}) == []
    assert _details(Holder(), {"payload": 1, "other": 2}) == [
        'test_holder.a: An argument named "other" is not expected here.']
    assert _problems(Holder(), {}) == ["Missing required argument"]


class Computing(ResourceType):
    name = "test_computing"
    schema = {
        "type": "object",
        "properties": {
            "size": {"type": ["integer", "null"], "description": "How big."},
            "arn": {"type": ["string", "null"], "readOnly": True, "description": "Set by the adapter."},
        },
        "additionalProperties": False,
    }
    computed = frozenset({"arn"})


def test_a_computed_only_attribute_given_a_value_is_refused_not_dropped() -> None:
    """The adapter would drop it without a word; the user is told, and how to get the provider's plugin."""
    def found(config: dict[str, Any]) -> list[Any]:
        return check(Computing(), config, "test_computing.a", Body({}, [], WHERE), WHERE)

    refused = found({"size": 1, "arn": "arn:made:up"})
    assert [d.summary for d in refused] == ["Invalid Configuration for Read-Only Attribute"]
    assert "marked it as read-only" in refused[0].detail and "ctl init" in (refused[0].hint or "")
    assert "native adapter for test_computing does not have it as an argument" in (refused[0].hint or "")
    assert found({"size": 1, "arn": None}) == []
