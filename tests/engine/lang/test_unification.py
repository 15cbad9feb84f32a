"""Conditionals, equality and collection conversions follow cty's type rules, as Terraform does.

The same expressions run side by side with Terraform 1.0.3 in the differential corpus
(tests/fixtures/expressions/types.tf and errors.tf); here the cases Terraform only shows during
plan: a condition whose value is not known yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.lang.eval import EvalContext, evaluate
from engine.lang.functions import FunctionContext
from engine.lang.hcl import parse_expression
from vocab.errors import CtlError
from vocab.values import UNKNOWN, ListValue, MapValue, Unknown, unmark

TYPED = {"names": ListValue(["a", "b"]), "tags": MapValue({"a": "1"}), "later": UNKNOWN}


def ev(src: str) -> Any:
    here = Path.cwd()
    ctx = EvalContext(variables={"var": TYPED}, func_ctx=FunctionContext(base_dir=here, module_dir=here))
    return evaluate(parse_expression(src, "main.tf"), ctx)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ('{ a = 1 } == tomap({ a = 1 })', False),
        ('tolist([1, 2]) == [1, 2]', False),
        ('toset(["a"]) == ["a"]', False),
        ('var.names == ["a", "b"]', False),
        ('var.names == tolist(["a", "b"])', True),
        ('var.tags == { a = "1" }', False),
        ('tolist([]) == []', False),
        ('[] == []', True),
        ('split(",", "a") == tolist(["a"])', True),
        ('(true ? [1] : ["a"]) == ["1"]', True),
    ],
)
def test_equality_compares_types(src: str, expected: bool) -> None:
    assert ev(src) is expected


def test_conditional_results_are_unified() -> None:
    assert ev('true ? [1] : ["a"]') == ["1"]
    assert ev('true ? { a = 1 } : { b = "x" }') == {"a": "1"}
    assert isinstance(ev('true ? { a = 1 } : { b = "x" }'), MapValue)
    assert isinstance(ev('true ? [] : ["a"]'), ListValue)


@pytest.mark.parametrize("condition", ["true", "var.later"])
@pytest.mark.parametrize("results", ['[1] : { a = 1 }', '1 : true', 'tolist(["a"]) : "a"'])
def test_inconsistent_results_are_refused_known_or_not(condition: str, results: str) -> None:
    with pytest.raises(CtlError) as caught:
        ev(f"{condition} ? {results}")
    assert caught.value.summary == "Inconsistent conditional result types"
    assert "main.tf:1:" in str(caught.value.range)


def test_unknown_condition_gives_an_unknown_of_the_unified_type() -> None:
    result, _ = unmark(ev('var.later ? [1] : ["a"]'))
    assert isinstance(result, Unknown)
    assert result.type_hint == "tuple([string])"
    assert unmark(ev('var.later ? [1] : [1, 2]'))[0].type_hint == "list(number)"


def test_the_unchosen_result_may_fail() -> None:
    assert ev('true ? "x" : var.names[5]') == "x"
