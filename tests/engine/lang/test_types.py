"""Type constraints as users write them, and Terraform's conversion rules applied to values."""

from __future__ import annotations

from typing import Any

import pytest

from engine.lang import ast
from engine.lang.type_constraints import TypeConstraintError, parse_type, parse_variable_type
from engine.lang.types import (
    ANY,
    BOOL,
    NUMBER,
    STRING,
    ConversionError,
    ListType,
    MapType,
    ObjectType,
    SetType,
    TupleType,
    convert,
    to_cty,
)
from vocab import types as cty
from vocab.errors import Pos, SourceRange
from vocab.values import UNKNOWN, Marked, Null, Unknown


def _r(line: int = 1) -> SourceRange:
    return SourceRange("variables.tf", Pos(line, 1), Pos(line, 2))


R = _r()


def kw(name: str, line: int = 1) -> ast.ScopeTraversal:
    return ast.ScopeTraversal(_r(line), name, ())


def fn(name: str, *args: ast.Expr, line: int = 1) -> ast.FunctionCall:
    return ast.FunctionCall(_r(line), name, tuple(args), False)


def lit(v: Any, line: int = 1) -> ast.Literal:
    return ast.Literal(_r(line), v)


def objc(**attrs: ast.Expr) -> ast.ObjectCons:
    return ast.ObjectCons(R, tuple(ast.ObjectItem(lit(k), v) for k, v in attrs.items()))


def tupc(*items: ast.Expr) -> ast.TupleCons:
    return ast.TupleCons(R, tuple(items))


def conv_err(value: Any, t: Any) -> ConversionError:
    with pytest.raises(ConversionError) as info:
        convert(value, t)
    return info.value


def type_err(expr: ast.Expr) -> TypeConstraintError:
    with pytest.raises(TypeConstraintError) as info:
        parse_type(expr)
    return info.value


# --- parsing -------------------------------------------------------------------------------------


def test_parse_primitive_keywords_and_any() -> None:
    assert [parse_type(kw(n)) for n in ("string", "number", "bool", "any")] == [STRING, NUMBER, BOOL, ANY]


def test_parse_collections_nest() -> None:
    t = parse_type(fn("map", fn("list", fn("set", kw("number")))))
    assert t == MapType(ListType(SetType(NUMBER)))
    assert str(t) == "map(list(set(number)))"


def test_parse_object_with_optional_attributes_and_defaults() -> None:
    expr = fn(
        "object",
        objc(
            name=kw("string"),
            size=fn("optional", kw("number")),
            tags=fn("optional", fn("map", kw("string")), objc(env=lit("dev"))),
            port=fn("optional", kw("number"), lit("8080")),
        ),
    )
    t = parse_type(expr)
    assert isinstance(t, ObjectType)
    assert t.attrs == {"name": STRING, "size": NUMBER, "tags": MapType(STRING), "port": NUMBER}
    assert t.optional == {"size": None, "tags": {"env": "dev"}, "port": 8080}
    assert str(t) == (
        'object({name=string, port=optional(number, 8080), size=optional(number), tags=optional(map(string), {env = "dev"})})'
    )


def test_parse_tuple() -> None:
    t = parse_type(fn("tuple", tupc(kw("string"), fn("list", kw("bool")))))
    assert t == TupleType((STRING, ListType(BOOL)))
    assert str(t) == "tuple([string, list(bool)])"


def test_types_are_comparable_and_hashable() -> None:
    a = parse_type(fn("object", objc(a=kw("string"))))
    b = ObjectType({"a": STRING})
    assert a == b and hash(a) == hash(b)
    assert {ListType(a), ListType(b)} == {ListType(b)}


def test_unknown_keyword_is_an_invalid_type_with_its_range() -> None:
    e = type_err(fn("list", kw("strng", line=5)))
    assert e.summary == "Invalid type specification" and e.range == _r(5)
    assert '"strng"' in e.detail


def test_quoted_type_constraint_suggests_removing_quotes() -> None:
    e = type_err(lit("string", line=3))
    assert e.summary == "Invalid quoted type constraints" and "quotes" in e.hint and e.range == _r(3)


def test_bare_collection_keyword_needs_an_element_type() -> None:
    assert "list(any)" in type_err(kw("list")).hint


def test_a_variable_may_still_be_typed_bare_list_or_map_as_in_terraform() -> None:
    """Terraform 1.0.3 validates ``type = list``/``map`` (as list(any)/map(any)) but not ``set`` or nested."""
    assert parse_variable_type(kw("list")) == ListType(ANY)
    assert parse_variable_type(kw("map")) == MapType(ANY)
    with pytest.raises(TypeConstraintError):
        parse_variable_type(kw("set"))
    with pytest.raises(TypeConstraintError):
        parse_variable_type(fn("list", kw("list")))


def test_optional_is_only_allowed_on_object_attributes() -> None:
    assert "optional" in type_err(fn("list", fn("optional", kw("string"), line=2))).detail


def test_malformed_constructors_are_rejected() -> None:
    type_err(fn("list", kw("string"), kw("number")))
    type_err(fn("object", kw("string")))
    type_err(fn("tuple", kw("string")))
    type_err(fn("frobnicate", kw("string")))
    type_err(ast.BinaryOp(R, "+", lit(1), lit(2)))
    dup = ast.ObjectCons(
        R, (ast.ObjectItem(lit("a"), kw("string")), ast.ObjectItem(lit("a", line=4), kw("number")))
    )
    assert type_err(fn("object", dup)).range == _r(4)


def test_default_that_does_not_fit_the_attribute_type_is_rejected() -> None:
    expr = fn("object", objc(n=fn("optional", kw("number"), lit("many", line=6))))
    e = type_err(expr)
    assert e.range == _r(6) and "a number is required" in e.detail


# --- primitive conversions -----------------------------------------------------------------------


def test_number_and_string_convert_both_ways() -> None:
    assert convert("5", NUMBER) == 5
    assert convert("1.5", NUMBER) == 1.5
    assert convert("1e3", NUMBER) == 1000
    assert convert(5, STRING) == "5"
    assert convert(2.5, STRING) == "2.5"
    assert convert(3.0, NUMBER) == 3 and isinstance(convert(3.0, NUMBER), int)


def test_bool_and_string_convert_both_ways() -> None:
    assert convert("true", BOOL) is True
    assert convert("false", BOOL) is False
    assert convert(True, STRING) == "true"


def test_primitive_conversion_errors() -> None:
    assert conv_err("five", NUMBER).message == "a number is required"
    assert conv_err(" 5", NUMBER).message == "a number is required"
    assert conv_err(True, NUMBER).message == "number required"
    assert conv_err("yes", BOOL).message == "a bool is required"
    assert conv_err(1, BOOL).message == "bool required"
    assert conv_err([1], STRING).message == "string required"


# --- collection conversions ----------------------------------------------------------------------


def test_tuple_converts_to_list_element_by_element() -> None:
    assert convert([1, "2", True], ListType(STRING)) == ["1", "2", "true"]
    assert convert(["1", 2], ListType(NUMBER)) == [1, 2]


def test_list_errors_name_the_element() -> None:
    e = conv_err(["1", "x"], ListType(NUMBER))
    assert e.path == "[1]" and e.message == "a number is required"
    assert str(e) == "[1]: a number is required"
    assert conv_err({"a": 1}, ListType(STRING)).message == "list of string required"
    assert conv_err("abc", ListType(STRING)).message == "list of string required"


def test_set_is_sorted_and_deduplicated() -> None:
    assert convert(["b", "a", "b", "c"], SetType(STRING)) == ["a", "b", "c"]
    assert convert([3, "1", 2, 1], SetType(NUMBER)) == [1, 2, 3]


def test_set_keeps_unknown_elements_last() -> None:
    assert convert(["b", UNKNOWN, "a"], SetType(STRING)) == ["a", "b", Unknown("string")]


def test_object_converts_to_map() -> None:
    assert convert({"a": 1, "b": True}, MapType(STRING)) == {"a": "1", "b": "true"}
    e = conv_err({"a": [1]}, MapType(STRING))
    assert e.path == '["a"]' and e.message == "string required"
    assert conv_err(["x"], MapType(STRING)).message == "map of string required"


def test_any_element_type_unifies_mixed_primitives_to_string() -> None:
    assert convert([1, "a", True], ListType(ANY)) == ["1", "a", "true"]
    assert convert({"a": 1, "b": "x"}, MapType(ANY)) == {"a": "1", "b": "x"}
    assert convert([1, 2], ListType(ANY)) == [1, 2]
    assert convert([{"a": 1}, {"b": 2}], ListType(ANY)) == [{"a": 1}, {"b": 2}]
    assert "same type" in conv_err([1, True], ListType(ANY)).message


def test_any_keeps_the_value_as_is() -> None:
    v = {"a": [1, "x"], "b": None}
    assert convert(v, ANY) == v


def test_tuple_type_checks_length_and_elements() -> None:
    t = TupleType((STRING, NUMBER))
    assert convert([1, "2"], t) == ["1", 2]
    assert "2 elements" in conv_err([1], t).message
    assert conv_err("x", t).message == "tuple required"


# --- objects -------------------------------------------------------------------------------------

SERVER = ObjectType(
    {"name": STRING, "port": NUMBER, "tags": ListType(STRING)},
    {"port": 80, "tags": None},
)


def test_object_conversion_fills_optional_attributes() -> None:
    assert convert({"name": "web"}, SERVER) == {"name": "web", "port": 80, "tags": None}
    assert convert({"name": "web", "port": "8080", "tags": [1]}, SERVER) == {
        "name": "web",
        "port": 8080,
        "tags": ["1"],
    }


def test_null_optional_attribute_takes_the_default() -> None:
    assert convert({"name": "web", "port": None}, SERVER)["port"] == 80


def test_missing_required_attribute_is_named() -> None:
    e = conv_err({"port": 1}, SERVER)
    assert e.message == 'attribute "name" is required'


def test_extra_attributes_are_dropped() -> None:
    assert convert({"name": "a", "extra": 1}, SERVER) == {"name": "a", "port": 80, "tags": None}


def test_object_required_for_non_objects() -> None:
    assert conv_err("web", SERVER).message == "object required"


def test_nested_error_path_points_inside_the_value() -> None:
    t = MapType(ObjectType({"ports": ListType(NUMBER)}))
    e = conv_err({"a": {"ports": [80, "http"]}}, t)
    assert e.path == '["a"]["ports"][1]'
    assert str(e) == '["a"]["ports"][1]: a number is required'
    e = conv_err([{"x": 1}], ListType(ObjectType({"name": STRING})))
    assert e.path == "[0]" and e.message == 'attribute "name" is required'


def test_defaults_are_not_shared_between_conversions() -> None:
    t = ObjectType({"tags": ListType(STRING)}, {"tags": ["a"]})
    first = convert({}, t)
    first["tags"].append("mutated")
    assert convert({}, t) == {"tags": ["a"]}


def test_nested_optional_defaults_from_parsed_type() -> None:
    expr = fn(
        "list",
        fn("object", objc(name=kw("string"), enabled=fn("optional", kw("bool"), lit(True)))),
    )
    t = parse_type(expr)
    assert convert([{"name": "a"}, {"name": "b", "enabled": "false"}], t) == [
        {"name": "a", "enabled": True},
        {"name": "b", "enabled": False},
    ]


# --- null, unknown and marks ---------------------------------------------------------------------


@pytest.mark.parametrize("t", [STRING, NUMBER, BOOL, ListType(STRING), MapType(NUMBER), SERVER])
def test_null_fits_every_type_and_becomes_a_null_of_it(t: Any) -> None:
    converted = convert(None, t)
    assert isinstance(converted, Null) and converted.type == to_cty(t)
    again = convert(converted, ListType(NUMBER)) if t is STRING else converted
    assert isinstance(again, Null) and again.type == (cty.list_of(cty.NUMBER) if t is STRING else to_cty(t))


def test_null_stays_as_it_is_for_any() -> None:
    assert convert(None, ANY) is None
    typed = convert(None, STRING)
    assert convert(typed, ANY) is typed


def test_an_optional_attribute_left_out_is_a_null_of_its_type() -> None:
    t = ObjectType({"a": STRING, "b": NUMBER}, optional={"b": None})
    converted = convert({"a": "x"}, t)
    assert converted["a"] == "x"
    assert isinstance(converted["b"], Null) and converted["b"].type == cty.NUMBER


def test_unknown_passes_and_carries_the_type() -> None:
    r = convert(UNKNOWN, ListType(STRING))
    assert isinstance(r, Unknown) and r.type_hint == "list(string)"
    assert convert(UNKNOWN, ANY) is UNKNOWN
    assert convert({"name": UNKNOWN}, SERVER)["name"] == Unknown("string")
    assert convert([UNKNOWN, "1"], ListType(NUMBER)) == [UNKNOWN, 1]


def test_marks_survive_conversion_at_every_depth() -> None:
    assert convert(Marked("5"), NUMBER) == Marked(5)
    r = convert({"name": Marked(1)}, SERVER)
    assert r["name"] == Marked("1") and r["port"] == 80
    assert convert(Marked(["b", "a"]), SetType(STRING)) == Marked(["a", "b"])


def test_conversion_error_inside_a_marked_value_still_raises() -> None:
    e = conv_err({"port": Marked("http"), "name": "x"}, SERVER)
    assert e.path == '["port"]'
