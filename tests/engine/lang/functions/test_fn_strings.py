"""String functions, checked against the examples in Terraform's function documentation."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


@pytest.mark.parametrize("text", ["hello\n", "hello\r\n", "hello\n\n"])
def test_chomp_removes_trailing_newlines(text: str) -> None:
    assert call("chomp", text) == "hello"


def test_chomp_keeps_inner_newlines() -> None:
    assert call("chomp", "a\nb\n") == "a\nb"


def test_startswith_endswith_strcontains() -> None:
    assert call("startswith", "hello world", "hello") is True
    assert call("startswith", "hello world", "world") is False
    assert call("endswith", "hello world", "world") is True
    assert call("endswith", "hello world", "hello") is False
    assert call("strcontains", "hello world", "wor") is True
    assert call("strcontains", "hello world", "wod") is False


def test_indent_indents_every_line_but_the_first() -> None:
    assert call("indent", 2, "[\n  foo,\n  bar,\n]\n") == "[\n    foo,\n    bar,\n  ]\n  "


def test_join() -> None:
    assert call("join", "-", ["foo", "bar", "baz"]) == "foo-bar-baz"
    assert call("join", ", ", ["foo", "bar", "baz"]) == "foo, bar, baz"
    assert call("join", ", ", ["foo"]) == "foo"
    assert call("join", ",", ["a"], ["b", "c"]) == "a,b,c"


def test_join_converts_numbers_and_rejects_null_elements() -> None:
    assert call("join", "-", [1, True]) == "1-true"
    with pytest.raises(FunctionError) as exc:
        call("join", "-", ["a", None])
    assert exc.value.arg_index == 1


def test_join_needs_a_list() -> None:
    with pytest.raises(FunctionError, match="at least one list is required"):
        call("join", ",")


def test_lower_and_upper_use_unicode_case_rules() -> None:
    assert call("lower", "HELLO") == "hello"
    assert call("lower", "ΓΕΙΑ ΣΟΥ") == "γεια σου"  # noqa: RUF001
    assert call("upper", "hello") == "HELLO"
    assert call("upper", "алло!") == "АЛЛО!"


def test_split() -> None:
    assert call("split", ",", "foo,bar,baz") == ["foo", "bar", "baz"]
    assert call("split", ",", "foo") == ["foo"]
    assert call("split", ",", "") == [""]


def test_strrev_respects_characters() -> None:
    assert call("strrev", "hello") == "olleh"
    assert call("strrev", "a ☃") == "☃ a"


def test_substr() -> None:
    assert call("substr", "hello world", 1, 4) == "ello"
    assert call("substr", "🤔🤷", 0, 1) == "🤔"
    assert call("substr", "hello world", -5, -1) == "world"


def test_substr_past_the_end_is_empty() -> None:
    assert call("substr", "abc", 10, 2) == ""


def test_title() -> None:
    assert call("title", "hello world") == "Hello World"
    assert call("title", "hELLO wORLD") == "HELLO WORLD"


@pytest.mark.parametrize(
    ("text", "cutset", "expected"),
    [("?!hello?!", "!?", "hello"), ("foobar", "far", "oob"), ("   hello! world.!  ", "! ", "hello! world.")],
)
def test_trim(text: str, cutset: str, expected: str) -> None:
    assert call("trim", text, cutset) == expected


def test_trimprefix_trimsuffix_trimspace() -> None:
    assert call("trimprefix", "helloworld", "hello") == "world"
    assert call("trimprefix", "helloworld", "cat") == "helloworld"
    assert call("trimsuffix", "helloworld", "world") == "hello"
    assert call("trimspace", "  hello\n\n") == "hello"


def test_numbers_and_bools_convert_to_strings_where_a_string_is_expected() -> None:
    assert call("upper", 5) == "5"
    assert call("lower", True) == "true"
    assert call("upper", 2.5) == "2.5"


def test_a_list_where_a_string_is_expected_is_an_error() -> None:
    with pytest.raises(FunctionError) as exc:
        call("upper", ["a"])
    msg = str(exc.value)
    assert exc.value.arg_index == 0
    assert msg == 'Invalid value for "str" parameter: string required, but have tuple'


def test_null_where_a_string_is_expected_is_an_error() -> None:
    with pytest.raises(FunctionError, match="must not be null"):
        call("trimspace", None)
