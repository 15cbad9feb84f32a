"""cty's JSON value encoding (DynamicValue.json, RawState.json, Terraform state) and conversion."""

from __future__ import annotations

import json
import math

import pytest

from adapters.plugin.cty_json import decode_json, encode_json, from_json_value, to_json_value
from adapters.plugin.msgpack_codec import decode, encode
from vocab.conversion.convert import ConversionError, convert
from vocab.conversion.value_errors import PluginValueError
from vocab.types import BOOL, DYNAMIC, NUMBER, STRING, list_of, map_of, parse_type, set_of
from vocab.values import UNKNOWN, Marked, SetValue, Unknown

STATE_TYPE = parse_type(
    '["object",{"id":"string","port":"number","ratio":"number","enabled":"bool",'
    '"tags":["map","string"],"cidrs":["list","string"],"zones":["set","string"],'
    '"rule":["list",["object",{"from":"number","note":"string"}]],"extra":"dynamic"}]'
)


def test_terraform_state_attributes_convert_both_ways() -> None:
    # An instance's "attributes" as Terraform's JSON state holds them.
    attributes = json.loads(
        '{"id":"sg-1","port":8080,"ratio":0.25,"enabled":true,"tags":{"Name":"web"},'
        '"cidrs":["10.0.0.0/8"],"zones":["b","a"],"rule":[{"from":22,"note":null}],'
        '"extra":{"value":{"k":["x",1]},"type":["object",{"k":["tuple",["string","number"]]}]}}'
    )
    value = from_json_value(attributes, STATE_TYPE)
    assert value["extra"] == {"k": ["x", 1]}
    assert isinstance(value["zones"], SetValue)
    back = to_json_value(value, STATE_TYPE)
    assert back["extra"] == attributes["extra"]
    assert back["zones"] == ["a", "b"]
    assert back["rule"] == [{"from": 22, "note": None}]
    # And the typed value is what the msgpack codec sends.
    data, _ = encode(value, STATE_TYPE)
    assert decode(data, STATE_TYPE) == value


def test_json_bytes_are_what_cty_writes() -> None:
    ty = parse_type('["object",{"b":"number","a":"string","c":["list","number"],"d":"dynamic"}]')
    got = encode_json({"a": "<&>", "b": 1e20, "c": [0.1, 5.0, 2**70], "d": "x"}, ty)
    assert got == (
        b'{"a":"\\u003c\\u0026\\u003e","b":100000000000000000000,'
        b'"c":[0.1,5,1180591620717411303424],"d":{"value":"x","type":"string"}}'
    )
    assert encode_json(None, DYNAMIC) == b"null"
    assert encode_json({"a": None}, ty) == b'{"a":null,"b":null,"c":null,"d":null}'


def test_json_round_trips_keep_big_and_fractional_numbers() -> None:
    ty = list_of(NUMBER)
    value = [2**80, 0.1, -1.5, 1e-7, 123456789.123]
    data = encode_json(value, ty)
    assert data == b"[1208925819614629174706176,0.1,-1.5,0.0000001,123456789.123]"
    assert decode_json(data, ty) == value
    assert decode_json(b"[1e3, 2.50, 1E+400]", ty) == [1000, 2.5, 10**400]


def test_json_decoding_is_lenient_like_cty() -> None:
    assert decode_json(b'"5"', NUMBER) == 5
    assert decode_json(b"5", STRING) == "5"
    assert decode_json(b"true", STRING) == "true"
    assert decode_json(b'"false"', BOOL) is False
    assert decode_json(b'{"a":"x"}', parse_type('["object",{"a":"string","b":"number"}]')) == {
        "a": "x",
        "b": None,
    }


@pytest.mark.parametrize(
    ("data", "ty", "message"),
    [
        (b'{"a":1,"z":2}', '["object",{"a":"number"}]', "z: unsupported attribute"),
        (b'{"a":"x"}', '["object",{"a":"number"}]', "a: number is required"),
        (b"[1]", '"string"', "string is required"),
        (b'"yes"', '"bool"', "a bool is required"),
        (b"{}", '["list","string"]', "a list is required"),
        (b"[]", '["map","string"]', "a map is required"),
        (b"[1,2]", '["tuple",["number"]]', "a tuple of length 1 is required"),
        (b'{"value":1}', '"dynamic"', "missing type in dynamically-typed value"),
        (b'{"type":"number"}', '"dynamic"', "missing value in dynamically-typed value"),
        (b'{"value":1,"type":"number","x":1}', '"dynamic"', 'invalid key "x" in dynamically-typed value'),
        (b'{"value":1,"type":"float"}', '"dynamic"', "failed to decode type for dynamic value"),
        (b"[1,", '["list","number"]', "malformed JSON"),
    ],
)
def test_json_decoding_errors(data: bytes, ty: str, message: str) -> None:
    with pytest.raises(PluginValueError) as info:
        decode_json(data, parse_type(ty))
    assert message in str(info.value)


def test_json_cannot_hold_unknown_values_or_infinity() -> None:
    with pytest.raises(PluginValueError, match=r"a\[1\]: value is not known"):
        encode_json({"a": ["x", UNKNOWN]}, parse_type('["object",{"a":["list","string"]}]'))
    with pytest.raises(PluginValueError, match="infinity"):
        encode_json(math.inf, NUMBER)


def test_json_drops_marks() -> None:
    assert encode_json({"s": Marked("p")}, map_of(STRING)) == b'{"s":"p"}'


# ---- conversion -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ty", "expected"),
    [
        ("5", NUMBER, 5),
        ("-0.5", NUMBER, -0.5),
        ("1e2", NUMBER, 100),
        (5, STRING, "5"),
        (0.1, STRING, "0.1"),
        (1e20, STRING, "100000000000000000000"),
        (True, STRING, "true"),
        ("false", BOOL, False),
        ("1", BOOL, True),
        ("0", BOOL, False),
        ("-Inf", NUMBER, float("-inf")),
        ([1, "2"], list_of(NUMBER), [1, 2]),
        (["b", "a", "b"], set_of(STRING), ["a", "b"]),
        ({"a": 1}, map_of(STRING), {"a": "1"}),
        ([1, "x"], parse_type('["tuple",["string","string"]]'), ["1", "x"]),
        ({"a": 1, "extra": 2}, parse_type('["object",{"a":"string"}]'), {"a": "1"}),
        ({}, parse_type('["object",{"a":"string"},["a"]]'), {"a": None}),
        ({"x": [1]}, DYNAMIC, {"x": [1]}),
        (None, NUMBER, None),
    ],
)
def test_conversions_terraform_makes(value: object, ty: object, expected: object) -> None:
    got = convert(value, ty)
    assert got == expected
    if getattr(ty, "kind", "") == "set":
        assert isinstance(got, SetValue)


def test_conversion_keeps_marks_and_unknowns() -> None:
    assert convert(Marked("5"), NUMBER) == Marked(5)
    assert convert([Marked("1")], list_of(NUMBER)) == [Marked(1)]
    got = convert(UNKNOWN, list_of(STRING))
    assert isinstance(got, Unknown)
    assert got.type_hint == "list of string"
    assert convert(["a", UNKNOWN], set_of(STRING))[1] == UNKNOWN


@pytest.mark.parametrize(
    ("value", "ty", "message"),
    [
        ("abc", NUMBER, 'Inappropriate value for attribute "port": a number is required.'),
        (True, NUMBER, 'Inappropriate value for attribute "port": number required, but have bool.'),
        ("yes", BOOL, 'Inappropriate value for attribute "port": a bool is required.'),
        (
            "False",
            BOOL,
            'Inappropriate value for attribute "port": a bool is required; to convert from string, use lowercase "false".',
        ),
        ([1], STRING, 'Inappropriate value for attribute "port": string required, but have tuple.'),
        (
            "x",
            list_of(STRING),
            'Inappropriate value for attribute "port": list of string required, but have string.',
        ),
        ({"a": "x"}, list_of(STRING), 'Inappropriate value for attribute "port": list of string required.'),
        (
            [[1]],
            list_of(STRING),
            'Inappropriate value for attribute "port": element 0: string required, but have tuple.',
        ),
        (
            {"a": [1]},
            parse_type('["object",{"a":"string"}]'),
            'Inappropriate value for attribute "port": attribute "a": string required, but have tuple.',
        ),
        (
            ["a"],
            parse_type('["tuple",["string","string"]]'),
            'Inappropriate value for attribute "port": tuple required.',
        ),
        ({"a": "x"}, parse_type('["object",{"a":"string","b":"string"}]'), 'attribute "b" is required.'),
        ({}, parse_type('["object",{"a":"string","b":"string"}]'), 'attributes "a" and "b" are required.'),
        (
            {},
            parse_type('["object",{"a":"string","b":"string","c":"bool"}]'),
            'attributes "a", "b", and "c" are required.',
        ),
    ],
)
def test_conversion_errors_read_like_terraform(value: object, ty: object, message: str) -> None:
    with pytest.raises(ConversionError) as info:
        convert(value, ty, ("port",))
    assert str(info.value).endswith(message)


def test_conversion_errors_name_nested_paths() -> None:
    ty = parse_type('["list",["object",{"ports":["list","number"]}]]')
    with pytest.raises(ConversionError) as info:
        convert([{"ports": [1, "x"]}], ty, ("rule",))
    assert str(info.value) == 'Inappropriate value for attribute "rule[0].ports[1]": a number is required.'


def test_dynamic_value_reads_msgpack_or_json_and_empty_as_null() -> None:
    from adapters.plugin.dynamic_value import decode_dynamic_value, encode_dynamic_value
    from adapters.plugin.results import DynamicValue

    ty = parse_type('["object",{"id":"string","secret":"string"}]')
    data, paths = encode_dynamic_value({"id": "x", "secret": Marked("s")}, ty)
    assert paths == [("secret",)]
    assert decode_dynamic_value(DynamicValue(msgpack=data), ty) == {"id": "x", "secret": "s"}
    assert decode_dynamic_value(DynamicValue(json=b'{"id":"x","secret":"s"}'), ty, sensitive=paths) == {
        "id": "x",
        "secret": Marked("s"),
    }
    assert decode_dynamic_value(DynamicValue(data, b"ignored when msgpack is set"), ty, sensitive=paths)[
        "secret"
    ] == Marked("s")
    assert decode_dynamic_value(DynamicValue(), ty) is None
    assert decode_dynamic_value(None, ty) is None
