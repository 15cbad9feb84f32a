"""Rules every function shares: arity, errors, unknown propagation and sensitive marks."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, arity, call_function, function_names
from vocab.errors import CtlError
from vocab.values import SENSITIVE, UNKNOWN, Marked, Unknown, deep_unmark

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_function_names_include_the_special_forms() -> None:
    names = function_names()
    assert {"try", "can", "upper", "cidrsubnet", "templatefile"} <= names


def test_arity() -> None:
    assert arity("upper") == (1, 1)
    assert arity("lookup") == (2, None)  # its default is variadic, as in cty
    assert arity("range") == (0, None)  # one variadic parameter, as in cty: range counts its arguments
    assert arity("join") == (1, None)
    assert arity("concat") == (0, None)
    assert arity("try") == (1, None)
    assert arity("can") == (1, 1)
    with pytest.raises(FunctionError):
        arity("nope")


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("upper", [], 'Function "upper" expects 1 argument(s). Missing value for "str"'),
        ("upper", ["a", "b"], 'Function "upper" expects only 1 argument(s)'),
        ("lookup", [{}], 'Function "lookup" expects at least 2 argument(s). Missing value for "key"'),
        ("join", [","], 'Call to function "join" failed: at least one list is required'),
        ("timestamp", [1], 'Function "timestamp" expects only 0 argument(s)'),
    ],
)
def test_wrong_number_of_arguments(name: str, args: list, expected: str) -> None:
    with pytest.raises(FunctionError) as exc:
        call_function(name, args, CTX)
    assert str(exc.value) == expected


def test_function_errors_are_ctl_errors() -> None:
    with pytest.raises(CtlError):
        call("upper", {"a": 1})


def test_type_error_message_names_function_position_and_types() -> None:
    with pytest.raises(FunctionError) as exc:
        call("substr", "abc", "one", 1)
    assert exc.value.arg_index == 1
    assert str(exc.value) == 'Invalid value for "offset" parameter: a number is required'


def test_unknown_function_suggests_a_close_name() -> None:
    with pytest.raises(FunctionError, match='unknown function "lenght"') as exc:
        call("lenght", [])
    assert exc.value.hint == 'Did you mean "length"?'


def test_try_and_can_are_not_callable_here() -> None:
    with pytest.raises(FunctionError, match="evaluator"):
        call("try", 1)


def test_missing_context_confines_files_to_the_working_directory() -> None:
    assert call_function("upper", ["a"], None) == "A"


def test_any_unknown_argument_makes_the_result_unknown() -> None:
    assert call("upper", UNKNOWN) is UNKNOWN
    assert call("join", ",", ["a", UNKNOWN]) is UNKNOWN
    assert call("jsonencode", {"a": [UNKNOWN]}) is UNKNOWN
    assert call("cidrsubnet", "10.0.0.0/16", 8, UNKNOWN) is UNKNOWN


def test_shape_functions_stay_known_when_only_elements_are_unknown() -> None:
    assert call("length", ["a", UNKNOWN]) == 2
    assert call("keys", {"b": UNKNOWN, "a": 1}) == ["a", "b"]
    assert call("concat", ["a"], [UNKNOWN]) == ["a", UNKNOWN]
    assert call("merge", {"a": 1}, {"b": UNKNOWN}) == {"a": 1, "b": UNKNOWN}
    assert call("lookup", {"a": 1, "b": UNKNOWN}, "a") == 1
    assert call("element", ["x", UNKNOWN], 0) == "x"
    assert call("length", UNKNOWN) is UNKNOWN
    assert call("concat", UNKNOWN, ["a"]) is UNKNOWN
    assert call("lookup", {"a": 1}, UNKNOWN) is UNKNOWN
    assert call("flatten", [["a"], UNKNOWN]) is UNKNOWN


def test_sensitive_arguments_make_the_result_sensitive() -> None:
    result = call("upper", Marked("secret"))
    assert isinstance(result, Marked)
    assert result.value == "SECRET"
    assert SENSITIVE in result.marks


def test_marks_deep_inside_arguments_reach_the_result() -> None:
    result = call("join", "-", ["a", Marked("b")])
    assert isinstance(result, Marked)
    assert result.value == "a-b"
    value, marks = deep_unmark(call("upper", Marked("v")))
    assert (value, marks) == ("V", frozenset({SENSITIVE}))


def test_functions_that_only_move_elements_keep_the_marks_on_the_elements() -> None:
    """As Terraform: ``length({k = sensitive(v)})`` is a plain 1, ``values`` keeps the secret marked."""
    assert call("length", {"k": Marked("v")}) == 1
    assert call("keys", {"k": Marked("v")}) == ["k"]
    assert call("values", {"k": Marked("v")}) == [Marked("v")]
    assert call("lookup", {"k": Marked("v"), "j": "w"}, "j") == "w"
    assert isinstance(call("length", Marked(["a"])), Marked)  # a mark on the whole argument stays


def test_functions_never_see_marks() -> None:
    assert deep_unmark(call("jsonencode", {"a": Marked("x")}))[0] == '{"a":"x"}'


def test_unknown_and_sensitive_together_give_a_sensitive_unknown() -> None:
    result = call("format", "%s%s", Marked("a"), UNKNOWN)
    assert isinstance(result, Marked)
    assert isinstance(result.value, Unknown)


def test_plain_calls_are_untouched_by_mark_handling() -> None:
    assert call("upper", "a") == "A"
    assert not isinstance(call("concat", ["a"], ["b"]), Marked)
