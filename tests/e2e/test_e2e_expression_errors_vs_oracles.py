"""An expression the language refuses is reported as OpenTofu 1.12.6 and Terraform 1.0.3 report it.

Operators, conditions, indexes, attributes, object keys, ``for`` expressions, template directives and
references to names that are not declared: each case is an output of one configuration, validated
with ``validate -json`` by ctl and by both references, and ctl's diagnostics (severity, summary,
detail and range) must be OpenTofu's. Where Terraform 1.0.3 words one otherwise because HCL or cty
changed since (``NEWER``, listed in ``docs/language-versions.md``), ctl follows the newest; everywhere
else it must be Terraform 1.0.3's too.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.helpers import validate_diagnostics
from tests.plugin.terraform_cli import opentofu_executable

CASES = {
    # operators
    "add_text": '1 + "a"',
    "multiply_text": '"a" * 2',
    "not_a_number": "!1",
    "negate_text": '-"a"',
    "and_a_number": "true && 1",
    "not_text": '!"x"',
    "compare_text": '1 < "x"',
    "add_null": "null + 1",
    "not_null": "!null",
    "negate_null": "-null",
    "add_a_tuple": "[1] + 1",
    "add_an_object": "1 + {}",
    "divide_by_text": '5 / "a"',
    # conditions
    "number_condition": "1 ? 2 : 3",
    "text_condition": '"y" ? 1 : 2',
    "tuple_condition": "[1] ? 1 : 2",
    "null_condition": "null ? 1 : 2",
    "tuple_or_object": "true ? [1] : {a = 1}",
    "text_or_tuple": 'true ? "a" : [1]',
    "object_or_list": "false ? {a = 1} : tolist([1])",
    "objects_apart": "true ? {a = 1} : {b = [1]}",
    "objects_attribute_types": "true ? {a = 1, b = 2} : {a = [1]}",
    "tuples_element_types": 'true ? [1, 2] : ["a", [1]]',
    "tuples_lengths": "true ? [1] : [[1], 2]",
    # indexes and attributes
    "past_the_end": "[1][2]",
    "text_index": '[1]["a"]',
    "fraction_index": "[1][1.5]",
    "negative_index": "[1][-1]",
    "null_index": "[1][null]",
    "missing_key": '{a = 1}["b"]',
    "missing_map_key": 'tomap({a = 1})["b"]',
    "null_key": "{a = 1}[null]",
    "tuple_key": "{a = 1}[[1]]",
    "index_text": '"abc"[0]',
    "missing_attribute": "{a = 1}.b",
    "map_attribute": "tomap({a = 1}).b",
    "tuple_attribute": "[1].a",
    "tuple_of_objects_attribute": "[{a = 1}].b",
    "list_of_objects_attribute": "tolist([{a = 1}]).b",
    "set_of_objects_attribute": "toset([{a = 1}]).b",
    "list_attribute": "tolist([1]).b",
    "number_attribute": "1.a",
    "text_attribute": '"x".b',
    "splat_attribute": "[1, 2][*].a",
    # object keys and for expressions
    "null_object_key": "{(null) = 1}",
    "tuple_object_key": "{([1]) = 1}",
    "for_over_a_number": "[for x in 1 : x]",
    "for_over_null": "[for x in null : x]",
    "for_duplicate_key": "{for x in [1, 1] : x => x}",
    "for_number_condition": "[for x in [1] : x if 1]",
    "for_null_condition": "[for x in [1] : x if null]",
    "for_text_condition": '[for x in [1] : x if "y"]',
    "for_null_key": "{for x in [1] : null => x}",
    "for_tuple_key": "{for x in [1] : [x] => x}",
    # templates
    "template_for_over_a_number": '"%{for x in 1}${x}%{endfor}"',
    "template_for_over_null": '"%{for x in null}${x}%{endfor}"',
    "template_if_number": '"%{if 1}a%{endif}"',
    "template_if_text": '"%{if "y"}a%{endif}"',
    "template_if_null": '"%{if null}a%{endif}"',
    # references
    "misspelt_variable": "var.regon",
    "undeclared_variable": "var.nope",
    "misspelt_local": "local.regon",
    "undeclared_local": "local.nope",
    "undeclared_module": "module.nope.x",
    "undeclared_data_resource": "data.terraform_remote_state.x.outputs",
    "undeclared_resource": "tuple.x",
    "undeclared_resource_attribute": "aws_instance.web.id",
    "bare_name": "foo",
    "count_outside": "count.index",
    "each_outside": "each.key",
    "self_outside": "self.x",
    "path_attribute": "path.nope",
    "terraform_attribute": "terraform.nope",
}

# Where HCL or cty changed the words after Terraform 1.0.3, and ctl follows the newest.
NEWER = {
    "not_a_number": 'cty names the type given: "bool required, but have number" (1.0.3: "bool required")',
    "and_a_number": 'cty names the type given: "bool required, but have number" (1.0.3: "bool required")',
    "add_a_tuple": 'cty names the type given: "number required, but have tuple"',
    "add_an_object": 'cty names the type given: "number required, but have object"',
    "tuple_or_object": "HCL says where the results' types part (1.0.3: \"The given expressions are tuple and object\")",
    "text_or_tuple": "HCL says where the results' types part",
    "object_or_list": "HCL says where the results' types part",
    "objects_apart": "HCL says where the results' types part",
    "objects_attribute_types": "HCL says where the results' types part",
    "tuples_element_types": "HCL says where the results' types part",
    "tuples_lengths": "HCL says where the results' types part",
    "tuple_key": 'cty names the type given: "string required, but have tuple"',
    "tuple_object_key": 'cty names the type given: "string required, but have tuple"',
    "for_number_condition": 'cty names the type given: "bool required, but have number"',
    "for_tuple_key": 'cty names the type given: "string required, but have tuple"',
    "undeclared_data_resource": 'Terraform 1.2 words it "There is no data resource … definition"',
    "undeclared_resource": 'Terraform 1.2 words it "There is no managed resource … definition"',
    "undeclared_resource_attribute": 'Terraform 1.2 words it "There is no managed resource … definition"',
    "self_outside": "postcondition blocks (Terraform 1.2) read self too, and the detail names them",
}

CONFIG = ('variable "region" {}\nlocals { region = 1 }\n'
          + "".join(f"output {json.dumps(name)} {{ value = {text} }}\n" for name, text in CASES.items()))
FIRST_LINE = 3  # the first output's line


def _by_case(diagnostics: list[dict[str, Any]]) -> dict[str, set[tuple[Any, ...]]]:
    """Each case's diagnostics, once each (OpenTofu reports a splat's error once per element)."""
    names = list(CASES)
    out: dict[str, set[tuple[Any, ...]]] = {}
    for d in diagnostics:
        start, end = d["range"]["start"], d["range"]["end"]
        out.setdefault(names[start["line"] - FIRST_LINE], set()).add(
            (d["severity"], d["summary"], d["detail"], start["line"], start["column"], end["line"], end["column"]))
    return out


@pytest.fixture(scope="module")
def diagnostics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, set[tuple[Any, ...]]]]:
    root = tmp_path_factory.mktemp("expression-errors")
    tofu = opentofu_executable(root / "opentofu-bin")
    return {tool: _by_case(validate_diagnostics(tool, root / tool, CONFIG, tofu))
            for tool in ("ctl", "opentofu", "terraform")}


@pytest.mark.parametrize("name", list(CASES))
def test_a_refused_expression_is_reported_as_opentofu_reports_it(
        diagnostics: dict[str, dict[str, set[tuple[Any, ...]]]], name: str) -> None:
    theirs = diagnostics["opentofu"].get(name)
    assert theirs, f"OpenTofu accepts {CASES[name]!r}: the case proves nothing"
    assert diagnostics["ctl"].get(name) == theirs, CASES[name]


@pytest.mark.parametrize("name", [n for n in CASES if n not in NEWER])
def test_and_as_terraform_1_0_3_where_the_words_did_not_change(
        diagnostics: dict[str, dict[str, set[tuple[Any, ...]]]], name: str) -> None:
    assert diagnostics["ctl"].get(name) == diagnostics["terraform"].get(name), CASES[name]


@pytest.mark.parametrize("name", list(NEWER))
def test_the_newer_cases_are_newer(diagnostics: dict[str, dict[str, set[tuple[Any, ...]]]], name: str) -> None:
    assert diagnostics["terraform"].get(name) != diagnostics["opentofu"].get(name), \
        f"Terraform 1.0.3 words {CASES[name]!r} as OpenTofu does: drop it from NEWER"


def test_a_misspelt_name_gets_terraforms_suggestion(diagnostics: dict[str, dict[str, set[tuple[Any, ...]]]]) -> None:
    [(_severity, summary, detail, *_where)] = diagnostics["ctl"]["misspelt_local"]
    assert summary == "Reference to undeclared local value"
    assert detail == 'A local value with the name "regon" has not been declared. Did you mean "region"?'


def test_an_undeclared_resource_is_shown_at_its_address(
        diagnostics: dict[str, dict[str, set[tuple[Any, ...]]]]) -> None:
    [(*_words, line, start, _end_line, end)] = diagnostics["ctl"]["undeclared_resource_attribute"]
    text = CONFIG.splitlines()[line - 1]
    assert text[start - 1:end - 1] == "aws_instance.web"  # not the attribute read from it
