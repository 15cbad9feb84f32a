"""Hostile inputs to the decoding and parsing functions end in one clear error, never a crash.

``jsondecode`` of ten thousand nested arrays, ``yamldecode`` of a billion-laughs document (eight
levels of ten aliases) and ``parseint`` of a hundred thousand hex digits each used to end in a
traceback, or in minutes and gigabytes; what is within the limits still decodes. Through ``ctl
plan`` each is one error at the call's line and column, all three reported in one run.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from tests.e2e.helpers import Project
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


def test_yamldecode_at_the_limit_decodes_lists_and_block_mappings() -> None:
    value = call("yamldecode", "[" * MAX_DECODED_NESTING + "]" * MAX_DECODED_NESTING)
    for _ in range(MAX_DECODED_NESTING - 1):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == []
    block = "".join("  " * level + "k:\n" for level in range(MAX_DECODED_NESTING - 1))
    value = call("yamldecode", block + "  " * (MAX_DECODED_NESTING - 1) + "k: 1\n")
    for _ in range(MAX_DECODED_NESTING):
        assert isinstance(value, dict)
        value = value["k"]
    assert value == 1
    with pytest.raises(FunctionError, match="MAX_DECODED_NESTING"):
        call("yamldecode", block + "  " * (MAX_DECODED_NESTING - 1) + "k:\n" + "  " * MAX_DECODED_NESTING + "k: 1\n")


def test_parseint_of_a_hundred_thousand_hex_digits_is_refused() -> None:
    with pytest.raises(FunctionError, match="MAX_NUMBER_DIGITS"):
        call("parseint", "f" * 100_000, 16)


def test_parseint_of_long_numbers_within_the_limit_and_leading_zeros() -> None:
    assert call("parseint", "0" * 100_000 + "ff", 16) == 255
    assert call("parseint", "f" * 3000, 16) == 16 ** 3000 - 1


def test_a_plan_reports_each_hostile_decoding_at_its_call(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.path("deep.json").write_text("[" * 10_000 + "]" * 10_000)
    project.path("hex.txt").write_text("f" * 100_000)
    project.path("laughs.yaml").write_text(_laughs(8))
    project.write(
        'output "j" {\n  value = jsondecode(file("deep.json"))\n}\n'
        'output "p" {\n  value = parseint(file("hex.txt"), 16)\n}\n'
        'output "y" {\n  value = yamldecode(file("laughs.yaml"))\n}\n')
    started = time.monotonic()
    result = project.ctl("plan", "-no-color", timeout=60)
    assert time.monotonic() - started < 30
    assert result.code == 1, str(result)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, str(result)
    for where, limit in (("main.tf:2:", "MAX_DECODED_NESTING"), ("main.tf:5:", "MAX_NUMBER_DIGITS"),
                         ("main.tf:8:", "MAX_ALIAS_EXPANSION")):
        assert f"Error: {where}" in result.stderr and limit in result.stderr, str(result)
