"""cty types in their JSON encoding: parsed, written back byte for byte, compared and named."""

from __future__ import annotations

import pytest

from vocab.errors import CtlError
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    ObjectType,
    TupleType,
    TypeSpecError,
    go_json_string,
    has_dynamic,
    list_of,
    map_of,
    parse_type,
    plain_data,
    set_of,
    type_json,
    type_of_value,
    type_to_json_value,
    untyped_nulls,
    without_optional_attributes,
)
from vocab.values import UNKNOWN, ListValue, Marked, Null, SetValue

# Every spelling Terraform sends, in cty's canonical form (compact, keys sorted).
CANONICAL = [
    b'"string"',
    b'"number"',
    b'"bool"',
    b'"dynamic"',
    b'["list","string"]',
    b'["set","number"]',
    b'["map","bool"]',
    b'["list",["list",["map","dynamic"]]]',
    b'["tuple",[]]',
    b'["tuple",["string","number",["set","bool"]]]',
    b'["object",{}]',
    b'["object",{"a":"string","b":["list","number"]}]',
    b'["object",{"a":"string","b":"number"},["b"]]',
    b'["object",{"a":"string","b":"number","c":"bool"},["a","c"]]',
    b'["set",["object",{"from_port":"number","protocol":"string","to_port":"number"}]]',
]


@pytest.mark.parametrize("spec", CANONICAL, ids=lambda b: b.decode())
def test_canonical_types_round_trip_byte_for_byte(spec: bytes) -> None:
    ty = parse_type(spec)
    assert type_json(ty) == spec
    assert parse_type(type_json(ty)) == ty
    assert hash(parse_type(spec)) == hash(ty)


def test_non_canonical_spellings_are_written_canonically() -> None:
    # Spaces and unsorted keys (Python's json, hand-written schemas) come back as cty writes them.
    ty = parse_type('[ "object" , { "z": "string", "a": [ "list", "number" ] }, ["z"] ]')
    assert type_json(ty) == b'["object",{"a":["list","number"],"z":"string"},["z"]]'
    ty = parse_type('["object",{"b":"bool","a":"bool"},["b","a"]]')
    assert type_json(ty) == b'["object",{"a":"bool","b":"bool"},["a","b"]]'


def test_parse_accepts_bytes_text_and_parsed_json() -> None:
    expected = list_of(STRING)
    assert parse_type(b'["list","string"]') == expected
    assert parse_type('["list","string"]') == expected
    assert parse_type(["list", "string"]) == expected
    assert parse_type("string") is STRING
    assert parse_type('"number"') is NUMBER


def test_primitives_are_singletons_and_constructors_compare_structurally() -> None:
    assert parse_type('"bool"') is BOOL
    assert list_of(STRING) == Collection("list", STRING)
    assert list_of(STRING) != set_of(STRING)
    assert map_of(NUMBER) != map_of(STRING)
    assert TupleType((STRING, NUMBER)) != TupleType((NUMBER, STRING))
    assert ObjectType({"a": STRING}) != ObjectType({"a": STRING}, frozenset({"a"}))
    assert ObjectType({"a": STRING, "b": BOOL}) == ObjectType({"b": BOOL, "a": STRING})
    assert len({list_of(STRING), list_of(STRING), set_of(STRING)}) == 2


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ('"string"', "string"),
        ('"dynamic"', "dynamic"),
        ('["list","string"]', "list of string"),
        ('["set",["map","number"]]', "set of map of number"),
        ('["list",["object",{"a":"string"}]]', "list of object"),
        ('["tuple",["string"]]', "tuple"),
        ('["object",{"a":"string"}]', "object"),
    ],
)
def test_friendly_names_match_terraform_messages(spec: str, name: str) -> None:
    assert parse_type(spec).friendly_name == name


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ('"strin"', "invalid primitive type name 'strin'"),
        ('["list"]', "invalid type description"),
        ('["list","string","number"]', "invalid type description"),
        ('["vector","string"]', "invalid type description"),
        ('["object",["a"]]', "invalid type description"),
        ('["object",{"a":"string"},"a"]', "invalid optional attribute list"),
        ('["object",{"a":"string"},["b"]]', "optional attribute 'b' is not an attribute"),
        ('["tuple","string"]', "invalid type description"),
        ("[1]", "invalid type description"),
        ("{", "invalid type description"),
        ("42", "invalid type description"),
    ],
)
def test_invalid_type_descriptions_are_one_clear_error(spec: str, message: str) -> None:
    with pytest.raises(TypeSpecError) as info:
        parse_type(spec)
    assert isinstance(info.value, CtlError)
    assert message in str(info.value)


def test_attribute_names_use_go_json_escaping() -> None:
    # Go's encoding/json escapes <, > and & (HTML-safe) and keeps other UTF-8 as it is.
    ty = ObjectType({"a<b>&c": STRING, "ü": NUMBER, 'q"\\': BOOL, "\n\t\x01": STRING})
    assert (
        type_json(ty)
        == (
            '["object",{"\\n\\t\\u0001":"string","a\\u003cb\\u003e\\u0026c":"string",'
            '"q\\"\\\\":"bool","ü":"number"}]'
        ).encode()
    )
    assert parse_type(type_json(ty)) == ty
    assert go_json_string("\u2028") == '"\\u2028"'


def test_type_to_json_value_is_plain_data() -> None:
    ty = parse_type('["object",{"a":["set","string"]},["a"]]')
    assert type_to_json_value(ty) == ["object", {"a": ["set", "string"]}, ["a"]]


def test_has_dynamic_looks_at_every_depth() -> None:
    assert has_dynamic(DYNAMIC)
    assert has_dynamic(parse_type('["list",["object",{"a":["tuple",["string","dynamic"]]}]]'))
    assert not has_dynamic(parse_type('["map",["object",{"a":["set","string"]}]]'))


def test_without_optional_attributes_is_deep() -> None:
    ty = parse_type('["list",["object",{"a":["object",{"b":"string"},["b"]],"c":"number"},["a"]]]')
    assert type_json(without_optional_attributes(ty)) == (
        b'["list",["object",{"a":["object",{"b":"string"}],"c":"number"}]]'
    )


def test_type_of_value_is_what_a_literal_would_have() -> None:
    assert type_of_value("x") is STRING
    assert type_of_value(True) is BOOL
    assert type_of_value(1.5) is NUMBER
    assert type_of_value(None) is DYNAMIC
    assert type_of_value(UNKNOWN) is DYNAMIC
    assert type_of_value(Marked(3)) is NUMBER
    assert type_json(type_of_value([1, "a", {"k": False}])) == (
        b'["tuple",["number","string",["object",{"k":"bool"}]]]'
    )
    assert type_of_value(SetValue(["a", "b"])) == set_of(STRING)
    assert type_of_value(SetValue()) == set_of(DYNAMIC)
    with pytest.raises(TypeSpecError, match="has no cty type"):
        type_of_value(object())


def test_values_leave_the_language_with_plain_nulls_and_unsigned_zeros() -> None:
    typed = ListValue([Null(STRING)])
    out = plain_data({"a": [typed, -0.0], "b": Marked(Null(NUMBER))})
    assert out["a"][0] == [None] and out["a"][0][0] is None
    assert type_of_value(out["a"][0]) == list_of(STRING)  # the list still says what it holds
    assert str(out["a"][1]) == "0"
    assert out["b"].value is None
    assert str(untyped_nulls([-0.0, Null(STRING)])) == "[-0.0, None]"  # for functions: the sign stays
    plain = {"a": [1, "x", None], "b": {"c": 0.5}}
    assert plain_data(plain) is plain
