"""Hostile inputs to the decoding and parsing functions end in one clear error, never a crash.

``jsondecode`` of ten thousand nested arrays, ``yamldecode`` of a billion-laughs document (eight
levels of ten aliases) and ``parseint`` of a hundred thousand hex digits each used to end in a
traceback, or in minutes and gigabytes; what is within the limits still decodes.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from vocab.limits import MAX_DECODED_NESTING, raise_recursion_limit

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    raise_recursion_limit()  # as the CLI does at start-up
    return call_function(name, list(args), CTX)


def _laughs(levels: int, width: int = 10) -> str:
    lines = ["a0: &a0 [" + ",".join(["lol"] * width) + "]"]
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_jsondecode_of_ten_thousand_nested_arrays_is_refused() -> None:
    with pytest.raises(FunctionError, match="MAX_DECODED_NESTING"):
        call("jsondecode", "[" * 10_000 + "]" * 10_000)


def test_jsondecode_at_the_limit_decodes_and_brackets_in_strings_do_not_count() -> None:
    deep = "[" * MAX_DECODED_NESTING + '"[[[["' + "]" * MAX_DECODED_NESTING
    value = call("jsondecode", deep)
    for _ in range(MAX_DECODED_NESTING):
        assert isinstance(value, list)
        value = value[0]
    assert value == "[[[["


def test_yamldecode_of_a_billion_laughs_stops_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(FunctionError, match="MAX_ALIAS_EXPANSION"):
        call("yamldecode", _laughs(8))
    assert time.monotonic() - started < 10


def test_yamldecode_with_aliases_within_the_budget_expands_them() -> None:
    value = call("yamldecode", _laughs(3))
    assert isinstance(value, dict)
    assert len(value["a3"]) == 10 and value["a3"][0] == value["a2"] and len(value["a2"][0]) == 10


def test_yamldecode_nested_too_deeply_is_refused() -> None:
    for depth in (MAX_DECODED_NESTING + 1, 100_000):
        with pytest.raises(FunctionError, match="MAX_DECODED_NESTING"):
            call("yamldecode", "[" * depth + "]" * depth)


def test_parseint_of_a_hundred_thousand_hex_digits_is_refused() -> None:
    with pytest.raises(FunctionError, match="MAX_NUMBER_DIGITS"):
        call("parseint", "f" * 100_000, 16)


def test_parseint_of_long_numbers_within_the_limit_and_leading_zeros() -> None:
    assert call("parseint", "0" * 100_000 + "ff", 16) == 255
    assert call("parseint", "f" * 3000, 16) == 16 ** 3000 - 1
