"""List and map functions, checked against the examples in Terraform's function documentation."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_alltrue_and_anytrue() -> None:
    assert call("alltrue", ["true", True]) is True
    assert call("alltrue", [True, False]) is False
    assert call("alltrue", []) is True
    assert call("anytrue", ["true"]) is True
    assert call("anytrue", [True]) is True
    assert call("anytrue", [True, False]) is True
    assert call("anytrue", []) is False


def test_chunklist() -> None:
    assert call("chunklist", ["a", "b", "c", "d", "e"], 2) == [["a", "b"], ["c", "d"], ["e"]]
    assert call("chunklist", ["a", "b", "c", "d", "e"], 1) == [["a"], ["b"], ["c"], ["d"], ["e"]]


def test_chunklist_rejects_a_negative_size_as_a_failed_call() -> None:
    with pytest.raises(FunctionError, match="the size argument must be positive") as exc:
        call("chunklist", ["a"], -1)
    assert exc.value.arg_index is None


def test_coalesce() -> None:
    assert call("coalesce", "a", "b") == "a"
    assert call("coalesce", "", "b") == "b"
    assert call("coalesce", 1, 2) == 1
    assert call("coalesce", *["", "b"]) == "b"


def test_coalesce_converts_mixed_types_to_string() -> None:
    assert call("coalesce", 1, "hello") == "1"
    assert call("coalesce", True, "hello") == "true"


def test_coalesce_rejects_types_without_a_common_type() -> None:
    with pytest.raises(FunctionError, match="same type"):
        call("coalesce", {}, "hello")


def test_coalesce_with_nothing_usable_is_an_error() -> None:
    with pytest.raises(FunctionError):
        call("coalesce", None, "")


def test_coalescelist() -> None:
    assert call("coalescelist", ["a", "b"], ["c", "d"]) == ["a", "b"]
    assert call("coalescelist", [], ["c", "d"]) == ["c", "d"]


def test_compact() -> None:
    assert call("compact", ["a", "", "b", None, "c"]) == ["a", "b", "c"]


def test_concat() -> None:
    assert call("concat", ["a", ""], ["b", "c"]) == ["a", "", "b", "c"]


def test_concat_rejects_a_map() -> None:
    with pytest.raises(FunctionError) as exc:
        call("concat", ["a"], {"b": 1})
    assert exc.value.arg_index == 1


def test_contains_compares_with_types() -> None:
    assert call("contains", ["a", "b", "c"], "a") is True
    assert call("contains", ["a", "b", "c"], "d") is False
    assert call("contains", [1, 2], True) is False
    assert call("contains", [{"a": 1}], {"a": 1}) is True


def test_distinct() -> None:
    assert call("distinct", ["a", "b", "a", "c", "d", "b"]) == ["a", "b", "c", "d"]


def test_element() -> None:
    assert call("element", ["a", "b", "c"], 1) == "b"
    assert call("element", ["a", "b", "c"], 3) == "a"
    assert call("element", ["a", "b", "c"], 2) == "c"


def test_element_counts_a_negative_index_from_the_end_and_wraps() -> None:
    assert [call("element", ["a", "b", "c"], i) for i in (-1, -3, -4, -7)] == ["c", "a", "c", "c"]


def test_element_errors() -> None:
    with pytest.raises(FunctionError, match="empty list"):
        call("element", [], 0)
    with pytest.raises(FunctionError, match="whole number"):
        call("element", ["a"], 0.5)


def test_flatten() -> None:
    assert call("flatten", [["a", "b"], [], ["c"]]) == ["a", "b", "c"]
    assert call("flatten", [[["a", "b"], []], ["c"]]) == ["a", "b", "c"]


def test_flatten_keeps_maps_intact() -> None:
    assert call("flatten", [[{"a": [1]}], [{"b": 2}]]) == [{"a": [1]}, {"b": 2}]


def test_index() -> None:
    assert call("index", ["a", "b", "c"], "b") == 1
    with pytest.raises(FunctionError, match="not found"):
        call("index", ["a"], "z")


def test_keys_and_values_are_in_key_order() -> None:
    assert call("keys", {"a": 1, "c": 2, "d": 3}) == ["a", "c", "d"]
    assert call("keys", {"d": 1, "a": 2}) == ["a", "d"]
    assert call("values", {"a": 3, "c": 2, "d": 1}) == [3, 2, 1]
    assert call("values", {"d": 1, "a": 2}) == [2, 1]


def test_keys_of_a_list_is_a_type_error() -> None:
    with pytest.raises(FunctionError, match="must have map or object type"):
        call("keys", ["a"])


def test_length() -> None:
    assert call("length", []) == 0
    assert call("length", ["a", "b"]) == 2
    assert call("length", {"a": "b"}) == 1
    assert call("length", "hello") == 5
    assert call("length", "👾🕹️") == 2


def test_length_of_a_number_is_an_error() -> None:
    with pytest.raises(FunctionError):
        call("length", 5)


def test_lookup() -> None:
    assert call("lookup", {"a": "ay", "b": "bee"}, "a", "what?") == "ay"
    assert call("lookup", {"a": "ay", "b": "bee"}, "c", "what?") == "what?"
    assert call("lookup", {"a": "ay"}, "a") == "ay"
    with pytest.raises(FunctionError):
        call("lookup", {"a": "ay"}, "c")


def test_matchkeys() -> None:
    assert call("matchkeys", ["i-123", "i-abc", "i-def"], ["us-west", "us-east", "us-east"], ["us-east"]) == [
        "i-abc",
        "i-def",
    ]


def test_merge() -> None:
    assert call("merge", {"a": "b", "c": "d"}, {"e": "f", "c": "z"}) == {"a": "b", "c": "z", "e": "f"}
    assert call("merge", {"a": "b"}, {"a": [1, 2], "c": "z"}, {"d": 3}) == {"a": [1, 2], "c": "z", "d": 3}
    assert call("merge", *[{"a": "b", "c": "d"}, {}, {"e": "f", "c": "z"}]) == {"a": "b", "c": "z", "e": "f"}


def test_merge_skips_null_and_rejects_lists() -> None:
    assert call("merge", None, {"a": 1}) == {"a": 1}
    with pytest.raises(FunctionError, match='arguments must be maps or objects, got "tuple"') as exc:
        call("merge", {"a": 1}, ["b"])
    assert exc.value.arg_index is None  # the call fails as a whole, as cty's merge fails


def test_one() -> None:
    assert call("one", []) is None
    assert call("one", ["hello"]) == "hello"
    with pytest.raises(FunctionError, match="either zero or one elements"):
        call("one", ["hello", "goodbye"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((3,), [0, 1, 2]),
        ((1, 4), [1, 2, 3]),
        ((1, 8, 2), [1, 3, 5, 7]),
        ((1, 4, 0.5), [1, 1.5, 2, 2.5, 3, 3.5]),
        ((4, 1), [4, 3, 2]),
        ((10, 5, -2), [10, 8, 6]),
        ((0, 0.5, 0.1), [0, 0.1, 0.2, 0.3, 0.4]),
        ((1, 1), []),
    ],
)
def test_range(args: tuple, expected: list) -> None:
    assert call("range", *args) == expected


def test_range_limit_of_1024_elements() -> None:
    assert len(call("range", 1024)) == 1024
    with pytest.raises(FunctionError, match="more than 1024"):
        call("range", 1025)


def test_range_step_errors() -> None:
    """cty lets a zero step through: no values when start is end, too many when it is below."""
    with pytest.raises(FunctionError, match="more than 1024 values were generated"):
        call("range", 1, 5, 0)
    with pytest.raises(FunctionError, match="end must be greater than start when step is positive"):
        call("range", 5, 1, 0)
    assert call("range", 1, 1, 0) == []
    with pytest.raises(FunctionError, match="must have one, two, or three arguments"):
        call("range")
    with pytest.raises(FunctionError):
        call("range", 1, 5, -1)


def test_reverse() -> None:
    assert call("reverse", [1, 2, 3]) == [3, 2, 1]


def test_slice() -> None:
    assert call("slice", ["a", "b", "c", "d"], 1, 3) == ["b", "c"]
    with pytest.raises(FunctionError, match="greater than the length"):
        call("slice", ["a"], 0, 2)
    with pytest.raises(FunctionError, match="less than zero"):
        call("slice", ["a"], -1, 1)


def test_sort_is_lexical() -> None:
    assert call("sort", ["e", "d", "a", "x"]) == ["a", "d", "e", "x"]
    assert call("sort", [3, 1, 10]) == ["1", "10", "3"]


def test_sum() -> None:
    assert call("sum", [10, 13, 6, 4.5]) == 33.5
    assert call("sum", [0.1, 0.2]) == 0.3
    with pytest.raises(FunctionError, match="empty"):
        call("sum", [])


def test_transpose() -> None:
    assert call("transpose", {"a": ["1", "2"], "b": ["2", "3"]}) == {"1": ["a"], "2": ["a", "b"], "3": ["b"]}


def test_zipmap() -> None:
    assert call("zipmap", ["a", "b"], [1, 2]) == {"a": 1, "b": 2}
    with pytest.raises(FunctionError, match="does not match"):
        call("zipmap", ["a"], [1, 2])


def test_element_of_a_set_is_refused() -> None:
    with pytest.raises(FunctionError, match="cannot read elements from set"):
        call("element", call("toset", ["a", "b"]), 0)
