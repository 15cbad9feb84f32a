"""No function fails inside on numbers past a double's range (``1e400``, ``-1e400``, ``1e-400``).

Terraform and OpenTofu hold such numbers (512-bit binary floats), and so does ctl: every function
that takes a number either answers or refuses with its own message, never an internal error. Each
function is called with each of the three in every argument position, the other arguments taken
from a few ordinary values, so that most calls get past the other arguments' checks.
"""

from __future__ import annotations

import contextlib
import itertools
from pathlib import Path
from typing import Any

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from engine.lang.functions.registry import arity, function_names
from engine.lang.literals import number

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))
HUGE = {"1e400": number("1e400"), "-1e400": number("-1e400"), "1e-400": number("1e-400")}
ORDINARY: list[Any] = [1, "a", ["a", "b"], {"a": 1}]
SKIPPED = {"try", "can", "bcrypt", "timestamp", "uuid", "plantimestamp"}  # special forms, and no numbers in


def calls() -> list[tuple[str, str, int, int]]:
    out = []
    for name in sorted(function_names() - SKIPPED):
        low, high = arity(name)
        count = max(low, 1) if high is None else high
        for size in range(max(low, 1), count + 1):
            for position in range(size):
                out.extend((name, key, size, position) for key in HUGE)
    return out


@pytest.mark.parametrize(("name", "huge", "size", "position"), calls())
def test_a_huge_or_tiny_number_is_an_answer_or_a_refusal(name: str, huge: str, size: int, position: int) -> None:
    for others in itertools.product(ORDINARY, repeat=size - 1):
        args = list(others)
        args.insert(position, HUGE[huge])
        with contextlib.suppress(FunctionError):  # a refusal is fine; any other exception fails the test
            call_function(name, args, CTX)


def test_the_three_are_held_exactly_as_the_references_hold_them() -> None:
    assert HUGE["1e400"] == 10**400 and HUGE["-1e400"] == -(10**400)
    assert call_function("tostring", [HUGE["1e400"]], CTX) == "1" + "0" * 400
    assert call_function("tostring", [HUGE["1e-400"]], CTX) == "0." + "0" * 399 + "1"
    assert call_function("format", ["%.2e", HUGE["1e400"]], CTX) == "1.00e+400"


def test_the_references_answers_and_refusals_where_a_number_meets_a_go_int() -> None:
    assert call_function("tonumber", ["1e400"], CTX) == 10**400  # a number, never infinity
    assert call_function("range", [HUGE["1e-400"]], CTX) == [0]
    for name, args in (("element", [["a"], HUGE["1e400"]]), ("substr", ["abc", 0, HUGE["-1e400"]]),
                       ("chunklist", [["a"], HUGE["1e400"]])):
        with pytest.raises(FunctionError, match="value must be a whole number, between -9223372036854775808 and "
                                                "9223372036854775807"):
            call_function(name, args, CTX)
    with pytest.raises(FunctionError, match="value must be a whole number"):
        call_function("substr", ["abc", HUGE["1e-400"], 1], CTX)  # its double is 0.0; it is not zero
    with pytest.raises(FunctionError, match="invalid index: value must be a whole number"):
        call_function("element", [["a"], HUGE["1e-400"]], CTX)
