"""Set functions. Sets are lists without duplicates, strings in lexical order."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_setintersection() -> None:
    assert call("setintersection", ["a", "b"], ["b", "c"], ["b", "d"]) == ["b"]


def test_setproduct_documented_example() -> None:
    assert call("setproduct", ["development", "staging", "production"], ["app1", "app2"]) == [
        ["development", "app1"],
        ["development", "app2"],
        ["staging", "app1"],
        ["staging", "app2"],
        ["production", "app1"],
        ["production", "app2"],
    ]


def test_setproduct_with_an_empty_argument_is_empty() -> None:
    assert call("setproduct", ["development", "staging", "production"], []) == []


def test_setproduct_of_single_elements() -> None:
    assert call("setproduct", ["a"], ["b"]) == [["a", "b"]]


def test_setproduct_converts_mixed_elements_to_strings() -> None:
    assert call("setproduct", ["staging", "production"], ["a", 2]) == [
        ["staging", "a"],
        ["staging", "2"],
        ["production", "a"],
        ["production", "2"],
    ]


def test_setproduct_needs_two_arguments() -> None:
    with pytest.raises(FunctionError, match="at least two arguments are required"):
        call("setproduct", ["a"])


def test_setsubtract() -> None:
    assert call("setsubtract", ["a", "b", "c"], ["a", "c"]) == ["b"]


def test_symmetric_difference() -> None:
    result = call(
        "setunion",
        call("setsubtract", ["a", "b", "c"], ["a", "c", "d"]),
        call("setsubtract", ["a", "c", "d"], ["a", "b", "c"]),
    )
    assert result == ["b", "d"]


def test_setunion_has_each_element_once_in_lexical_order() -> None:
    assert call("setunion", ["a", "b"], ["b", "c"], ["d"]) == ["a", "b", "c", "d"]


def test_sets_keep_numbers_and_strings_apart_until_unified() -> None:
    assert call("setunion", [1, 2], [2, 10]) == [1, 2, 10]
    assert call("setunion", ["a"], [1]) == ["1", "a"]
