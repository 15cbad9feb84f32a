"""Type conversion and the sensitivity functions, and the types of what they return."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function, function_names
from vocab.types import type_of_value, type_string
from vocab.values import UNKNOWN, Marked, Null, Unknown, is_marked

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def type_text(value: object) -> str:
    """The type of ``value`` on one line, as the language's type model gives it: ``tuple([string, number])``."""
    return type_string(type_of_value(value))


def type_of(value: object) -> str:
    """A null's type; the value itself must be null."""
    assert isinstance(value, Null)
    return type_text(value)


def test_a_conversion_of_null_is_a_null_of_that_type() -> None:
    assert type_of(call("tolist", None)) == "list(dynamic)"
    assert type_of(call("toset", None)) == "set(dynamic)"
    assert type_of(call("tomap", None)) == "map(dynamic)"
    assert type_of(call("tonumber", call("tostring", None))) == "number"
    assert type_of(call("tolist", call("toset", None))) == "list(dynamic)"
    assert type_text([call("tostring", None), None]) == "tuple([string, dynamic])"
    assert type_text(call("tolist", [None, call("tonumber", None)])) == "list(number)"


def test_functions_that_move_elements_keep_the_types_of_their_nulls() -> None:
    """As OpenTofu's: the corpus (tests/fixtures/expressions/types.tf) compares the same with it."""
    null_string = call("tostring", None)
    assert type_text(call("merge", {"a": null_string}, {"b": 1})) == "object({a: string, b: number})"
    assert type_text(call("merge", call("tomap", {"a": null_string}), call("tomap", {"b": "x"}))) == "map(string)"
    assert type_text(call("merge", call("tomap", {"a": 1}), call("tomap", {"b": "x"}))) == (
        "object({a: number, b: string})")
    assert type_text(call("zipmap", ["a", "b"], [null_string, 1])) == "object({a: string, b: number})"
    assert type_text(call("zipmap", ["a"], call("tolist", [null_string]))) == "map(string)"
    assert type_text(call("flatten", [[null_string], [call("tonumber", None)]])) == "tuple([string, number])"
    assert type_text(call("coalescelist", [], [null_string])) == "tuple([string])"
    assert call("coalescelist", call("tolist", None), ["a"]) == ["a"]
    with pytest.raises(FunctionError, match="null"):
        call("zipmap", [null_string], [1])


def test_a_typed_null_is_null_to_other_functions() -> None:
    assert call("coalesce", call("tostring", None), "a") == "a"
    assert call("compact", [call("tostring", None), "a"]) == ["a"]
    assert call("jsonencode", [call("tonumber", None)]) == "[null]"
    with pytest.raises(FunctionError, match="must not be null"):
        call("upper", call("tostring", None))


def test_tobool() -> None:
    assert call("tobool", True) is True
    assert call("tobool", "true") is True
    assert type_of(call("tobool", None)) == "bool"
    with pytest.raises(FunctionError, match='"true" or "false"'):
        call("tobool", "no")
    with pytest.raises(FunctionError):
        call("tobool", 1)


def test_tonumber() -> None:
    assert call("tonumber", 1) == 1
    assert call("tonumber", "1") == 1
    assert call("tonumber", "2.5") == 2.5
    assert type_of(call("tonumber", None)) == "number"
    with pytest.raises(FunctionError, match="cannot convert"):
        call("tonumber", "no")


def test_tostring() -> None:
    assert call("tostring", "hello") == "hello"
    assert call("tostring", 1) == "1"
    assert call("tostring", True) == "true"
    assert type_of(call("tostring", None)) == "string"
    with pytest.raises(FunctionError, match="cannot convert"):
        call("tostring", [])


def test_tolist() -> None:
    assert call("tolist", ["a", "b", "c"]) == ["a", "b", "c"]
    assert call("tolist", ["a", "b", 3]) == ["a", "b", "3"]
    with pytest.raises(FunctionError):
        call("tolist", {"a": 1})


def test_toset() -> None:
    assert call("toset", ["a", "b", "c"]) == ["a", "b", "c"]
    assert call("toset", ["a", "b", 3]) == ["3", "a", "b"]
    assert call("toset", ["c", "b", "b"]) == ["b", "c"]


def test_tomap() -> None:
    assert call("tomap", {"a": 1, "b": 2}) == {"a": 1, "b": 2}
    assert call("tomap", {"a": "foo", "b": True}) == {"a": "foo", "b": "true"}
    with pytest.raises(FunctionError):
        call("tomap", ["a"])


def test_type_is_no_function_of_the_library() -> None:
    """As in OpenTofu, ``type()`` is the console's own (tests/engine/console): a configuration cannot call it."""
    assert "type" not in function_names()
    with pytest.raises(FunctionError, match='unknown function "type"'):
        call("type", 1)


def test_types_of_values() -> None:
    assert type_text("x") == "string"
    assert type_text(1) == "number"
    assert type_text(True) == "bool"
    assert type_text(["a", 1]) == "tuple([string, number])"
    assert type_text([]) == "tuple([])"
    assert type_text({"b": "x", "a": {"c": True}}) == "object({a: object({c: bool}), b: string})"
    assert type_text([{"foo": "bar", "map": {"bleep": "bloop"}}, {"beep": "boop"}]) == (
        "tuple([object({foo: string, map: object({bleep: string})}), object({beep: string})])"
    )


def test_sensitive_marks_the_value() -> None:
    result = call("sensitive", "hello")
    assert isinstance(result, Marked)
    assert result.value == "hello"
    assert is_marked(call("sensitive", []))


def test_nonsensitive_removes_the_mark() -> None:
    assert call("nonsensitive", call("sensitive", "hello")) == "hello"
    assert call("nonsensitive", [Marked("a"), "b"]) == ["a", "b"]
    assert call("nonsensitive", "plain") == "plain"


def test_nonsensitive_of_a_derived_hash_is_plain() -> None:
    digest = call("sha256", call("sensitive", "secret"))
    assert is_marked(digest)
    assert not is_marked(call("nonsensitive", digest))


def test_issensitive() -> None:
    assert call("issensitive", call("sensitive", "secret")) is True
    assert call("issensitive", "hello") is False
    assert call("issensitive", UNKNOWN) is UNKNOWN


def test_sensitive_unknown_stays_unknown_and_sensitive() -> None:
    result = call("sensitive", UNKNOWN)
    assert isinstance(result, Marked)
    assert isinstance(result.value, Unknown)


def test_collections_without_a_common_element_type_are_refused() -> None:
    with pytest.raises(FunctionError, match="same type") as exc:
        call("tolist", ["a", ["b"]])
    assert exc.value.arg_index == 0


def test_toset_removes_duplicate_objects() -> None:
    assert call("toset", [{"a": 1}, {"a": 1}, {"b": 2}]) == [{"a": 1}, {"b": 2}]
