"""Numeric functions, checked against the examples in Terraform's function documentation."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


@pytest.mark.parametrize(("arg", "expected"), [(23, 23), (0, 0), (-1, 1), (-12.4, 12.4)])
def test_abs(arg: object, expected: object) -> None:
    assert call("abs", arg) == expected


def test_ceil_and_floor_return_whole_numbers_that_print_without_a_fraction() -> None:
    assert call("ceil", 5) == 5
    assert call("ceil", 5.1) == 6
    assert call("floor", 5) == 5
    assert call("floor", 4.9) == 4
    assert type(call("ceil", 5.1)) is int
    assert type(call("floor", 4.9)) is int


def test_log() -> None:
    assert call("log", 50, 10) == 1.6989700043360185
    assert call("log", 16, 2) == 4
    assert type(call("log", 16, 2)) is int


@pytest.mark.parametrize(("n", "bits"), [(15, 4), (16, 4), (17, 5)])
def test_ceil_of_log_gives_the_binary_digits_needed(n: int, bits: int) -> None:
    assert call("ceil", call("log", n, 2)) == bits


def test_log_of_zero_is_an_error() -> None:
    with pytest.raises(FunctionError) as exc:
        call("log", 0, 10)
    assert exc.value.arg_index == 0


def test_max_and_min() -> None:
    assert call("max", 12, 54, 3) == 54
    assert call("min", 12, 54, 3) == 3
    assert call("max", -1.5) == -1.5


def test_max_needs_at_least_one_number() -> None:
    with pytest.raises(FunctionError, match="must pass at least one number"):
        call("max")


def test_numeric_strings_are_converted_to_numbers() -> None:
    assert call("max", "12", 3) == 12
    assert call("abs", "-2.5") == 2.5


def test_a_non_numeric_string_is_a_type_error_naming_the_parameter() -> None:
    with pytest.raises(FunctionError) as exc:
        call("max", 1, "many")
    assert exc.value.arg_index == 1
    assert str(exc.value) == 'Invalid value for "numbers" parameter: a number is required'


def test_pow() -> None:
    assert call("pow", 3, 2) == 9
    assert call("pow", 4, 0) == 1
    assert call("pow", 2, -1) == 0.5
    assert call("pow", 2, 100) == 2**100


@pytest.mark.parametrize(("n", "expected"), [(-13, -1), (0, 0), (344, 1)])
def test_signum(n: int, expected: int) -> None:
    assert call("signum", n) == expected


@pytest.mark.parametrize(
    ("text", "base", "expected"),
    [("100", 10, 100), ("FF", 16, 255), ("-10", 16, -16), ("1011111011101111", 2, 48879), ("aA", 62, 656)],
)
def test_parseint(text: str, base: int, expected: int) -> None:
    assert call("parseint", text, base) == expected


def test_parseint_rejects_digits_too_large_for_the_base() -> None:
    with pytest.raises(FunctionError, match='cannot parse "12" as a base 2 integer') as exc:
        call("parseint", "12", 2)
    assert exc.value.arg_index == 0


def test_parseint_rejects_a_base_out_of_range() -> None:
    with pytest.raises(FunctionError) as exc:
        call("parseint", "1", 63)
    assert exc.value.arg_index == 1
