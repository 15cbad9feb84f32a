"""A function call that fails, as Terraform 1.0.3 and OpenTofu 1.12.6 report it.

``zipmap`` given a null key says "keys list has null value at index N", after checking that there
are as many keys as values; ctl said the first argument's element N was null. Such an error is
"Error in function call", its detail a sentence ending in a full stop, and its range the function's
name through the opening parenthesis, in both references; ``validate -json`` now gives the same
diagnostics from ctl.

A bad argument is "Invalid function argument", 'Invalid value for "PARAMETER" parameter: ….', at
where the argument starts (a bracket, the text inside quotes, a condition); too few arguments are
"Not enough function arguments" at the closing parenthesis, too many "Too many function arguments"
at the first one past the end. ``NEWEST`` holds calls whose words changed in cty after Terraform
1.0.3 ("string required, but have tuple" where 1.0.3 says "string required"): they follow the
newest language, OpenTofu 1.12.6, as ``docs/language-versions.md`` lists.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import validate_diagnostics
from tests.plugin.terraform_cli import opentofu_executable

CASES = {
    "null_key": 'zipmap(["a", null], [1, 2])',
    "typed_null_key_first": 'zipmap([tostring(null), "b", "c"], [1, 2, 3])',
    "null_key_in_a_list": 'zipmap(tolist(["a", "b", null]), [1, 2, 3])',
    "counts_before_nulls": 'zipmap(["a", null], ["x"])',
    "index_not_found": 'index(["a"], "b")',
    # range as cty has it: one variadic parameter, a zero step let through (cty compares it the wrong way)
    "range_zero_step": "range(1, 2, 0)",
    "range_zero_step_down": "range(2, 1, 0)",
    "range_negative_step_up": "range(0, 1, -1)",
    "range_positive_step_down": "range(2, 1, 1)",
    "range_nothing": "range()",
    "range_too_many": "range(1, 2, 3, 4)",
    "range_too_long": "range(5000)",
    "range_text_end": 'range(1.5, "a")',
    "lookup_missing_attribute": 'lookup({ a = 1 }, "b")',
    "one_of_two": "one([1, 2])",
    "one_of_a_set_of_two": "one(toset([1, 2]))",
    "one_of_text": 'one("a")',
    "one_of_an_object": "one({ a = 1 })",
    "one_of_a_number": "one(1)",
    "coalescelist_all_empty": "coalescelist([], [])",
    "sum_text_element": 'sum([1, "a"])',
    "can_nothing": "can()",
    "can_two": "can(1, 2)",
    "try_nothing": "try()",
}

# Calls both references refuse in the same words as OpenTofu 1.12.6, or where only it is followed.
NEWEST = {
    "null_string": "upper(null)",
    "tuple_for_string": "upper([1])",
    "object_for_string": "upper({a = 1})",
    "conditional_argument": "lower(true ? [1] : [2])",
    "text_for_number": 'abs("x")',
    "bool_for_number": "abs(true)",
    "tuple_for_number": "abs([1])",
    "number_text_with_a_tail": 'ceil("1.5x")',
    "variadic_text_for_number": 'max("a", 1)',
    "no_numbers": "max()",
    "length_of_a_number": "length(1)",
    "length_of_null": "length(null)",
    "keys_of_a_number": "keys(1)",
    "keys_of_null": "keys(null)",
    "values_of_text": 'values("a")',
    "join_text": 'join(",", "a")',
    "join_nested": 'join(",", [[1]])',
    "join_no_list": 'join(",")',
    "split_a_list": 'split(",", [1])',
    "substr_text_offset": 'substr("abc", "x", 1)',
    "substr_fraction_offset": 'substr("abc", 1.5, 1)',
    "tonumber_text": 'tonumber("x")',
    "tobool_text": 'tobool("x")',
    "tobool_number": "tobool(1)",
    "tostring_tuple": "tostring([1])",
    "tolist_text": 'tolist("a")',
    "tomap_tuple": "tomap([1])",
    "toset_number": "toset(1)",
    "element_of_text": 'element("a", 1)',
    "element_of_a_set": 'element(toset(["a"]), 0)',
    "element_of_nothing": "element([], 0)",
    "element_text_index": 'element([1], "x")',
    "element_fraction_index": "element([1], 1.5)",
    "index_of_text": 'index("a", 1)',
    "contains_text": 'contains("a", 1)',
    "concat_text": 'concat("a")',
    "flatten_text": 'flatten("a")',
    "distinct_text": 'distinct("a")',
    "reverse_text": 'reverse("a")',
    "sort_text": 'sort("a")',
    "lookup_text": 'lookup("a", "b")',
    "lookup_too_few": "lookup({})",
    "lookup_too_many": 'lookup({a = 1}, "a", 1, 2)',
    "merge_text": 'merge("a")',
    "zipmap_text_keys": 'zipmap("a", [1])',
    "zipmap_text_values": 'zipmap(["a"], "b")',
    "range_text": 'range("a")',
    "replace_tuple": 'replace(1, [2], "c")',
    "regex_bad_pattern": 'regex("(", "a")',
    "jsonencode_nothing": "jsonencode()",
    "upper_too_many": 'upper("a", "b")',
    "timestamp_too_many": "timestamp(1)",
    "base64_garbage": 'base64decode("!!!")',
    "cidrsubnet_text_bits": 'cidrsubnet("10.0.0.0/8", "a", 1)',
    "coalesce_nothing": "coalesce()",
    "coalescelist_nothing": "coalescelist()",
    "compact_text": 'compact("a")',
    "chunklist_text": 'chunklist("a", 1)',
    "chunklist_negative": "chunklist([1], -1)",
    "slice_text": 'slice("a", 0, 1)',
    "slice_a_set": 'slice(toset(["a", "b"]), 0, 1)',
    "slice_start_past_end": "slice([1], 2, 1)",
    "setunion_text": 'setunion("a")',
    "setsubtract_text": 'setsubtract("a", [1])',
    "setproduct_one": "setproduct([1])",
    "alltrue_text": 'alltrue("a")',
    "matchkeys_text": 'matchkeys("a", [1], [1])',
    "sum_text": 'sum("a")',
    "sum_nothing": "sum([])",
    "transpose_text": 'transpose("a")',
    "transpose_text_values": 'transpose({a = "b"})',
    "trimprefix_tuple": "trimprefix(1, [2])",
    "file_missing": "file(1)",
    "templatestring_null": "templatestring(null, {})",
    "templatestring_tuple": "templatestring([1], {})",
    "templatestring_null_vars": 'templatestring("a", null)',
    "templatestring_number_vars": 'templatestring("a", 1)',
    "cidrhost_garbage": 'cidrhost("x", 1)',
    "cidrhost_past_the_end": 'cidrhost("10.1.2.240/28", 16)',
    "cidrsubnet_past_the_end": 'cidrsubnet("10.1.2.0/24", 4, 16)',
    "cidrsubnet_too_long": 'cidrsubnet("10.1.2.0/24", 9, 0)',
    "cidrsubnet_no_length": 'cidrsubnet("10.1.2.0", 4, 1)',
    "cidrnetmask_ipv6": 'cidrnetmask("fd00::/8")',
    "cidrsubnets_no_bits": 'cidrsubnets("10.0.0.0/8", 0)',
    "cidrsubnets_too_many_bits": 'cidrsubnets("10.0.0.0/8", 33)',
    "cidrcontains_garbage": 'cidrcontains("10.0.0.0/8", "x")',
    "cidrcontains_garbage_prefix": 'cidrcontains("x", "10.0.0.1")',
    "cidrcontains_families": 'cidrcontains("10.0.0.0/8", "fd00::/8")',
    "timeadd_garbage": 'timeadd("x", "1h")',
    "lookup_missing_key": 'lookup(tomap({ a = "x" }), "b")',
    "sum_text_elements": 'sum(["a"])',
}

# Where ctl still words a refusal its own way; each is a strict xfail, so a fix shows.
KNOWN_DIFFERENCES = {
    "timeadd_garbage": "OpenTofu quotes Go's time parser (\"cannot use \"x\" as year\"); ctl names RFC 3339's form",
}

ALL = {**CASES, **NEWEST}
CONFIG = "".join(f"output {json.dumps(name)} {{ value = {text} }}\n" for name, text in ALL.items())


def _validated(tool: str, workdir: Path, tofu: Path) -> dict[str, Any]:
    """``validate -json`` of CONFIG by ``tool``: each diagnostic by the output it is in."""
    names = list(ALL)
    return {names[d["range"]["start"]["line"] - 1]: (d["severity"], d["summary"], d["detail"], d["range"])
            for d in validate_diagnostics(tool, workdir, CONFIG, tofu)}


@pytest.fixture(scope="module")
def diagnostics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("function-errors")
    tofu = opentofu_executable(root / "opentofu-bin")
    return {tool: _validated(tool, root / tool, tofu) for tool in ("ctl", "opentofu", "terraform")}


@pytest.mark.parametrize("name", list(CASES))
def test_a_failed_call_is_reported_as_the_references_report_it(diagnostics: dict[str, dict[str, Any]],
                                                                name: str) -> None:
    ours = diagnostics["ctl"][name]
    assert ours == diagnostics["opentofu"][name], CASES[name]
    assert ours == diagnostics["terraform"][name], CASES[name]


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[name])]
                 if name in KNOWN_DIFFERENCES else []) for name in NEWEST])
def test_a_refused_call_is_reported_as_the_newest_language_reports_it(
        diagnostics: dict[str, dict[str, Any]], name: str) -> None:
    assert diagnostics["ctl"][name] == diagnostics["opentofu"][name], NEWEST[name]


def test_a_bad_argument_written_out(diagnostics: dict[str, dict[str, Any]]) -> None:
    _severity, summary, detail, where = diagnostics["ctl"]["tuple_for_string"]
    assert summary == "Invalid function argument"
    assert detail == 'Invalid value for "str" parameter: string required, but have tuple.'
    line = CONFIG.splitlines()[list(ALL).index("tuple_for_string")]
    column = line.index("[1]") + 1
    assert (where["start"]["column"], where["end"]["column"]) == (column, column + 1)  # the bracket


def test_the_issues_three_calls_written_out(diagnostics: dict[str, dict[str, Any]]) -> None:
    """range(1, 2, 0), lookup({a = 1}, "b") and one([1, 2]), as both references report them."""
    _s, summary, detail, _where = diagnostics["ctl"]["range_zero_step"]
    assert (summary, detail) == ("Error in function call", 'Call to function "range" failed: more than 1024 values '
                                 "were generated; either decrease the difference between start and end or use a "
                                 "smaller step.")
    for name, text, param, reason in (
            ("lookup_missing_attribute", "{ a = 1 }", "inputMap", 'the given object has no attribute "b"'),
            ("one_of_two", "[1, 2]", "list", "must be a list, set, or tuple value with either zero or one elements")):
        _s, summary, detail, where = diagnostics["ctl"][name]
        assert (summary, detail) == ("Invalid function argument", f'Invalid value for "{param}" parameter: {reason}.')
        column = CONFIG.splitlines()[list(ALL).index(name)].index(text) + 1
        assert (where["start"]["column"], where["end"]["column"]) == (column, column + 1)  # its bracket


def test_the_null_keys_message_written_out(diagnostics: dict[str, dict[str, Any]]) -> None:
    _severity, summary, detail, where = diagnostics["ctl"]["null_key"]
    assert summary == "Error in function call"
    assert detail == 'Call to function "zipmap" failed: keys list has null value at index 1.'
    column = CONFIG.splitlines()[0].index("zipmap(") + 1
    assert (where["start"]["column"], where["end"]["column"]) == (column, column + len("zipmap("))
