"""format and formatlist: Terraform's verbs, flags, width and precision."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from vocab.values import UNKNOWN, Unknown

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_documented_examples() -> None:
    assert call("format", "Hello, %s!", "Ander") == "Hello, Ander!"
    assert call("format", "There are %d lights", 4) == "There are 4 lights"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("hello", '"hello"'),
        (True, "true"),
        (1, "1"),
        ({"a": 1}, '{"a":1}'),
        ([True], "[true]"),
        (None, "null"),
    ],
)
def test_sharp_v_is_json(value: object, expected: str) -> None:
    assert call("format", "%#v", value) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("%f", "3.141590"), ("%9f", " 3.141590"), ("%.2f", "3.14"), ("%9.2f", "     3.14")],
)
def test_width_and_precision_table(spec: str, expected: str) -> None:
    assert call("format", spec, 3.14159) == expected


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ("% d", 5, " 5"),
        ("%+d", 5, "+5"),
        ("%-5s|", "a", "a    |"),
        ("%5s|", "a", "    a|"),
        ("%05d", 42, "00042"),
        ("%05d", -42, "-0042"),
        ("%02d", 3, "03"),
    ],
)
def test_flags(spec: str, value: object, expected: str) -> None:
    assert call("format", spec, value) == expected


def test_zero_padded_counter_from_the_range_example() -> None:
    assert [call("format", "%s%02d", "bar", i) for i in range(4)] == ["bar00", "bar01", "bar02", "bar03"]


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ("%t", True, "true"),
        ("%t", "false", "false"),
        ("%b", 5, "101"),
        ("%o", 8, "10"),
        ("%x", 255, "ff"),
        ("%X", 255, "FF"),
        ("%d", "12", "12"),
        ("%e", -1.234456e78, "-1.234456e+78"),
        ("%E", -1.234456e78, "-1.234456E+78"),
        ("%.3f", 123.456, "123.456"),
        ("%g", 123.456, "123.456"),
        ("%g", 1.5e-07, "1.5e-07"),
        ("%s", 12, "12"),
        ("%s", True, "true"),
        ("%q", 'say "hi"', '"say \\"hi\\""'),
        ("%.3s", "abcdef", "abc"),
        ("%v", "text", "text"),
        ("%v", 42, "42"),
        ("%v", 1.5, "1.5"),
        ("%v", True, "true"),
        ("%v", None, "null"),
        ("%v", ["a", 1], '["a",1]'),
    ],
)
def test_verbs(spec: str, value: object, expected: str) -> None:
    assert call("format", spec, value) == expected


def test_literal_percent_consumes_no_argument() -> None:
    assert call("format", "100%% of %s", "it") == "100% of it"


def test_explicit_argument_index() -> None:
    assert call("format", "%[2]s %[1]s", "world", "hello") == "hello world"
    assert call("format", "%[2]s %s", "a", "b", "c") == "b c"


def test_q_escapes_like_json() -> None:
    assert call("format", "%q", "<a&b>") == '"\\u003ca\\u0026b\\u003e"'


def test_null_with_a_non_v_verb_is_an_error() -> None:
    with pytest.raises(FunctionError, match="null"):
        call("format", "%s", None)


def test_integer_verbs_need_whole_numbers() -> None:
    with pytest.raises(FunctionError, match="integer"):
        call("format", "%d", 1.5)


def test_not_enough_arguments() -> None:
    with pytest.raises(FunctionError, match="not enough arguments"):
        call("format", "%s and %s", "one")


def test_too_many_arguments() -> None:
    with pytest.raises(FunctionError, match="too many arguments"):
        call("format", "%s", "one", "two")
    with pytest.raises(FunctionError, match="no verbs"):
        call("format", "plain", "one")


def test_unsupported_verb() -> None:
    with pytest.raises(FunctionError, match="unsupported format verb"):
        call("format", "%z", 1)


def test_unconvertible_value() -> None:
    with pytest.raises(FunctionError):
        call("format", "%d", "many")
    with pytest.raises(FunctionError):
        call("format", "%s", [1])


def test_trailing_percent_is_invalid() -> None:
    with pytest.raises(FunctionError, match="invalid format string"):
        call("format", "50%")


def test_format_with_unknown_argument_is_unknown() -> None:
    assert call("format", "%s-%s", "a", UNKNOWN) is UNKNOWN


def test_formatlist_documented_examples() -> None:
    names = ["Valentina", "Ander", "Olivia", "Sam"]
    assert call("formatlist", "Hello, %s!", names) == [
        "Hello, Valentina!",
        "Hello, Ander!",
        "Hello, Olivia!",
        "Hello, Sam!",
    ]
    assert call("formatlist", "%s, %s!", "Salutations", names) == [
        "Salutations, Valentina!",
        "Salutations, Ander!",
        "Salutations, Olivia!",
        "Salutations, Sam!",
    ]


def test_formatlist_iterates_lists_together() -> None:
    assert call("formatlist", "%s=%d", ["a", "b"], [1, 2]) == ["a=1", "b=2"]
    assert call("formatlist", "%s", []) == []


def test_formatlist_lists_must_have_equal_lengths() -> None:
    with pytest.raises(FunctionError, match="inconsistent") as exc:
        call("formatlist", "%s %s", ["a", "b"], ["c"])
    assert exc.value.arg_index == 2


def test_formatlist_keeps_known_elements_when_one_is_unknown() -> None:
    result = call("formatlist", "x-%s", ["a", UNKNOWN])
    assert isinstance(result, list)
    assert result[0] == "x-a"
    assert isinstance(result[1], Unknown)
