"""cty's msgpack encoding: exact bytes for the documented forms, round trips, marks and errors.

Expected bytes are written out from the MessagePack specification and go-cty's rules (unknown is
``d4 00 00``, integers use the smallest msgpack integer form, non-integers are float64 only when
exact, else decimal text; sets in cty's element order; objects with sorted, complete attributes).
"""

from __future__ import annotations

import math
import struct

import msgpack
import pytest

from adapters.plugin.msgpack_codec import decode, encode, to_wire
from vocab.conversion.numbers import WireFloat
from vocab.conversion.value_errors import PluginValueError
from vocab.errors import CtlError
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    CtyType,
    list_of,
    map_of,
    parse_type,
    set_of,
)
from vocab.values import UNKNOWN, ListValue, MapValue, Marked, SetValue, Unknown, unmark_paths


def hexbytes(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def enc(value: object, ty: CtyType | str, **kw: bool) -> bytes:
    data, paths = encode(value, parse_type(ty) if isinstance(ty, str) else ty, **kw)
    assert paths == []
    return data


def f64(x: float) -> str:
    return "cb" + struct.pack(">d", x).hex()


def fixstr(s: str) -> str:
    b = s.encode()
    assert len(b) < 32
    return f"{0xA0 + len(b):02x}" + b.hex()


# ---- exact bytes ------------------------------------------------------------------------------

INTEGERS = [
    (0, "00"),
    (1, "01"),
    (127, "7f"),
    (128, "cc 80"),
    (255, "cc ff"),
    (256, "cd 0100"),
    (65535, "cd ffff"),
    (65536, "ce 00010000"),
    (2**32 - 1, "ce ffffffff"),
    (2**32, "cf 0000000100000000"),
    (2**63 - 1, "cf 7fffffffffffffff"),
    (-1, "ff"),
    (-32, "e0"),
    (-33, "d0 df"),
    (-128, "d0 80"),
    (-129, "d1 ff7f"),
    (-32768, "d1 8000"),
    (-32769, "d2 ffff7fff"),
    (-(2**31), "d2 80000000"),
    (-(2**31) - 1, "d3 ffffffff7fffffff"),
    (-(2**63), "d3 8000000000000000"),
]


@pytest.mark.parametrize(("n", "wire"), INTEGERS, ids=[str(n) for n, _ in INTEGERS])
def test_integers_use_the_smallest_msgpack_form(n: int, wire: str) -> None:
    assert enc(n, "number") == hexbytes(wire)
    assert decode(hexbytes(wire), NUMBER) == n


@pytest.mark.parametrize(
    ("n", "wire"),
    [
        # Beyond int64: cty writes the decimal text (never msgpack uint64).
        (2**63, fixstr("9223372036854775808")),
        (2**64, fixstr("18446744073709551616")),
        (-(2**63) - 1, fixstr("-9223372036854775809")),
        (10**30, "bf " + ("1" + "0" * 30).encode().hex()),
        (10**40, "d9 29 " + ("1" + "0" * 40).encode().hex()),
        # Integral floats are integers.
        (5.0, "05"),
        (-2.0, "fe"),
        (1e20, fixstr("100000000000000000000")),
        # Fractions: float64 when the float is exactly the decimal, else the decimal's text.
        (0.5, f64(0.5)),
        (-0.25, f64(-0.25)),
        (1.5, f64(1.5)),
        (0.1, fixstr("0.1")),
        (3.14, fixstr("3.14")),
        (1e-7, fixstr("0.0000001")),
        (1.25e-5, fixstr("0.0000125")),
        (2.0**-3, f64(2.0**-3)),
        # A float read from configuration is the decimal it prints as; 2**-30 prints as
        # 9.313225746154785e-10, which float64 cannot hold exactly.
        (2.0**-30, fixstr("0.0000000009313225746154785")),
        (WireFloat(2.0**-30), f64(2.0**-30)),
        (WireFloat(2.0**70), fixstr("1180591620717411303424")),
        (math.inf, f64(math.inf)),
        (-math.inf, f64(-math.inf)),
    ],
)
def test_numbers_beyond_int64_and_fractions(n: float, wire: str) -> None:
    assert enc(n, "number") == hexbytes(wire)


def test_number_strings_convert_like_terraform() -> None:
    assert enc("5", "number") == hexbytes("05")
    assert enc("-1.5", "number") == hexbytes(f64(-1.5))
    assert enc("0.10", "number") == hexbytes(fixstr("0.1"))
    assert enc("1e3", "number") == hexbytes("cd 03e8")
    assert enc("123456789012345678901234567890", "number") == hexbytes(
        "be" + b"123456789012345678901234567890".hex()
    )


@pytest.mark.parametrize(
    ("wire", "value"),
    [
        (f64(5.0), 5),
        (f64(0.5), 0.5),
        (f64(0.1), 0.1),
        ("ca 3fc00000", 1.5),  # float32 from an encoder that compacts floats
        (fixstr("0.1"), 0.1),
        (fixstr("18446744073709551616"), 2**64),
        (fixstr("-9223372036854775809"), -(2**63) - 1),
        (fixstr("1e3"), 1000),
        ("cf ffffffffffffffff", 2**64 - 1),  # uint64 from other encoders
        (f64(math.inf), math.inf),
    ],
)
def test_numbers_decode_without_losing_integers(wire: str, value: float) -> None:
    got = decode(hexbytes(wire), NUMBER)
    assert got == value
    assert isinstance(got, type(value))


def test_float64_from_a_provider_goes_back_as_the_same_float64() -> None:
    for x in [2.0**-30, 0.1, 1 / 3, -123.456, 1e-300]:
        wire = hexbytes(f64(x))
        back = decode(wire, NUMBER)
        assert back == x
        assert enc(back, "number") == wire
    assert type(decode(hexbytes(f64(0.1)), NUMBER) * 2) is float


def test_fractional_text_reencodes_to_the_same_bytes() -> None:
    for text in ["0.1", "3.14", "0.0000001", "123.456", "-99.99"]:
        wire = hexbytes(fixstr(text))
        assert enc(decode(wire, NUMBER), "number") == wire


def test_primitives_exact_bytes() -> None:
    assert enc(None, "string") == hexbytes("c0")
    assert enc(True, "bool") == hexbytes("c3")
    assert enc(False, "bool") == hexbytes("c2")
    assert enc("", "string") == hexbytes("a0")
    assert enc("abc", "string") == hexbytes("a3 616263")
    assert enc("x" * 31, "string") == hexbytes("bf" + "78" * 31)
    assert enc("x" * 32, "string") == hexbytes("d9 20" + "78" * 32)
    assert enc("x" * 256, "string") == hexbytes("da 0100" + "78" * 256)
    assert enc("x" * 65536, "string") == hexbytes("db 00010000" + "78" * 65536)


def test_strings_are_sent_in_unicode_normal_form_c() -> None:
    # cty normalises every string to NFC: "e" + combining acute is sent as "é".
    assert enc("e\u0301", "string") == hexbytes("a2 c3a9")
    assert enc("é", "string") == hexbytes("a2 c3a9")


def test_scalar_conversions_on_encode() -> None:
    assert enc(5, "string") == hexbytes(fixstr("5"))
    assert enc(0.1, "string") == hexbytes(fixstr("0.1"))
    assert enc(1e20, "string") == hexbytes(fixstr("100000000000000000000"))
    assert enc(True, "string") == hexbytes(fixstr("true"))
    assert enc("true", "bool") == hexbytes("c3")
    assert enc("false", "bool") == hexbytes("c2")
    assert enc("1", "bool") == hexbytes("c3")
    assert enc("0", "bool") == hexbytes("c2")
    assert enc("-Inf", "number") == hexbytes(f64(-math.inf))


def test_unknown_is_extension_zero_with_one_zero_byte() -> None:
    for ty in ["string", "number", "bool", "dynamic", '["list","string"]', '["object",{"a":"string"}]']:
        assert enc(UNKNOWN, ty) == hexbytes("d4 00 00")
        assert isinstance(decode(hexbytes("d4 00 00"), parse_type(ty)), Unknown)


def test_collections_exact_bytes() -> None:
    assert enc([], '["list","string"]') == hexbytes("90")
    assert enc(["a", "b"], '["list","string"]') == hexbytes("92 a161 a162")
    assert enc(["a", UNKNOWN, None], '["list","string"]') == hexbytes("93 a161 d40000 c0")
    assert enc({"b": 1, "a": 2}, '["map","number"]') == hexbytes("82 a161 02 a162 01")
    assert enc({}, '["map","number"]') == hexbytes("80")
    assert enc(["a", 1], '["tuple",["string","number"]]') == hexbytes("92 a161 01")
    # Objects: attributes sorted by name, every one present (absent ones as nil).
    assert enc({"b": True, "a": "x"}, '["object",{"a":"string","b":"bool","c":"number"}]') == hexbytes(
        "83 a161 a178 a162 c3 a163 c0"
    )


def test_sets_are_written_in_cty_order_without_duplicates() -> None:
    assert enc(["b", "a", "b"], '["set","string"]') == hexbytes("92 a161 a162")
    # Numbers by value, not by text.
    assert enc([10, 9, 1.5], '["set","number"]') == hexbytes(f"93 {f64(1.5)} 09 0a")
    assert enc([1, 1.0], '["set","number"]') == hexbytes("91 01")
    assert enc([True, False], '["set","bool"]') == hexbytes("92 c2 c3")
    # Known elements first, then unknown ones, then null.
    assert enc([None, UNKNOWN, "b", "a"], '["set","string"]') == hexbytes("94 a161 a162 d40000 c0")
    # Strings by UTF-8 bytes: "Z" < "a" < "é".
    assert enc(["é", "a", "Z"], '["set","string"]') == hexbytes("93 a15a a161 a2c3a9")


def test_set_members_holding_unknowns_never_collapse_but_nulls_do() -> None:
    assert enc([None, None, "a"], '["set","string"]') == hexbytes("92 a161 c0")
    assert enc([UNKNOWN, UNKNOWN], '["set","string"]') == hexbytes("92 d40000 d40000")
    # [unknown] hashes as "[?;]", before "[]"; the two [unknown] members both stay.
    assert enc([[], UNKNOWN, [UNKNOWN], [UNKNOWN], []], '["set",["list","bool"]]') == hexbytes(
        "94 91d40000 91d40000 90 d40000"
    )


def test_sets_of_objects_are_ordered_by_cty_hash_text() -> None:
    ty = '["set",["object",{"n":"number","s":"string"}]]'
    # The hash text of {n=10} is <10;...> and of {n=9} <9;...>: "1" sorts before "9".
    got = enc([{"n": 9, "s": "a"}, {"n": 10, "s": "a"}], ty)
    assert got == hexbytes("92 82 a16e 0a a173 a161 82 a16e 09 a173 a161")
    # Duplicates collapse, unknown members stay.
    got = enc([{"n": 1, "s": "x"}, {"n": 1, "s": "x"}, UNKNOWN], ty)
    assert got == hexbytes("92 82 a16e 01 a173 a178 d40000")


def test_dynamic_values_carry_their_type() -> None:
    string_json = b'"string"'
    assert enc("x", "dynamic") == hexbytes("92 c4 08" + string_json.hex() + " a178")
    tuple_json = b'["tuple",["number","bool"]]'
    assert enc([1, True], "dynamic") == hexbytes(
        f"92 c4 {len(tuple_json):02x}" + tuple_json.hex() + " 92 01 c3"
    )
    # Null and unknown dynamic values are plain nil and plain unknown.
    assert enc(None, "dynamic") == hexbytes("c0")
    assert enc(UNKNOWN, "dynamic") == hexbytes("d4 00 00")
    obj_json = b'["object",{"k":"string"}]'
    assert decode(hexbytes(f"92 c4 {len(obj_json):02x}" + obj_json.hex() + " 81 a16b a176"), DYNAMIC) == {
        "k": "v"
    }


def test_dynamic_inside_object_round_trips_with_nested_type() -> None:
    ty = parse_type('["object",{"meta":"dynamic","id":"string"}]')
    value = {"id": "x", "meta": {"tags": {"a": "1"}, "ports": [80, 443], "on": True, "none": None}}
    data, _ = encode(value, ty)
    assert decode(data, ty) == value


# ---- round trips -------------------------------------------------------------------------------

ROUND_TRIPS = [
    ("string", "hello"),
    ("string", ""),
    ("string", "ünïcödé ✓ 🎉"),
    ("number", 0),
    ("number", -17),
    ("number", 2**80),
    ("number", -(2**70)),
    ("number", 0.1),
    ("number", 1.5),
    ("number", 123456.789),
    ("number", 1e-12),
    ("bool", True),
    ("bool", False),
    ('["list","number"]', [1, 2.5, None, UNKNOWN]),
    ('["list",["list","string"]]', [["a"], [], [UNKNOWN]]),
    ('["map","string"]', {"a": "1", "b": UNKNOWN, "c": None}),
    ('["map",["set","string"]]', {"x": SetValue(["a", "b"])}),
    ('["tuple",["string",["list","bool"],"dynamic"]]', ["a", [True, UNKNOWN], {"d": [1]}]),
    ('["object",{"a":"string","b":["object",{"c":"number"}]}]', {"a": "x", "b": {"c": UNKNOWN}}),
    ('["object",{"a":"string","b":["object",{"c":"number"}]}]', {"a": None, "b": None}),
    ('["set",["object",{"from":"number","cidr":["list","string"]}]]',
     SetValue([{"cidr": ["10.0.0.0/8"], "from": 22}, {"cidr": [], "from": 443}, UNKNOWN])),
    ("dynamic", {"a": [1, "b", None], "s": "x"}),
    ("dynamic", 2**70),
    ('["list","dynamic"]', ["a", 1, [True], None, UNKNOWN]),
    ('["object",{}]', {}),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "value"), ROUND_TRIPS)
def test_round_trips(spec: str, value: object) -> None:
    ty = parse_type(spec)
    data, _ = encode(value, ty)
    back = decode(data, ty)
    assert back == value
    assert enc(back, ty) == data
    if spec.startswith('["set"'):
        assert isinstance(back, SetValue)


def test_unknown_inside_collections_round_trips_as_unknown() -> None:
    ty = parse_type('["object",{"l":["list","string"],"m":["map","number"],"s":["set","bool"]}]')
    data, _ = encode({"l": ["a", UNKNOWN], "m": {"k": UNKNOWN}, "s": [UNKNOWN]}, ty)
    back = decode(data, ty)
    assert isinstance(back["l"][1], Unknown)
    assert isinstance(back["m"]["k"], Unknown)
    assert isinstance(back["s"][0], Unknown)
    assert back["l"][1].type_hint == "string"


def test_decoded_values_keep_their_collection_kind() -> None:
    """A set, list or map from a provider stays one (an output of it has Terraform's type); a tuple
    and an object are plain data."""
    ty = parse_type('["object",{"s":["set","string"],"l":["list","string"],"t":["tuple",["number"]],'
                    '"m":["map","string"]}]')
    back = decode(enc({"s": ["a"], "l": ["b"], "t": [1], "m": {"k": "v"}}, ty), ty)
    assert type(back) is dict
    assert type(back["s"]) is SetValue
    assert type(back["l"]) is ListValue
    assert type(back["t"]) is list
    assert type(back["m"]) is MapValue


# ---- refined unknowns from newer providers -------------------------------------------------------


def ext(code: int, payload: bytes) -> bytes:
    return msgpack.packb(msgpack.ExtType(code, payload))


@pytest.mark.parametrize(
    ("ty", "refinements"),
    [
        ("string", {1: False}),  # not null
        ("string", {1: False, 2: "arn:aws:"}),  # a known prefix
        ("number", {3: [0, True], 4: [10, False]}),  # bounds
        ('["list","string"]', {5: 1, 6: 3}),  # length bounds
        ("dynamic", {1: False}),  # ignored for dynamic
    ],
)
def test_refined_unknowns_decode_as_unknown(ty: str, refinements: dict) -> None:
    data = ext(12, msgpack.packb(refinements))
    assert data[0] in (0xC7, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8)
    assert isinstance(decode(data, parse_type(ty)), Unknown)


def test_refined_unknowns_inside_objects() -> None:
    ty = parse_type('["object",{"arn":"string","id":"string"}]')
    data = (
        hexbytes("82 a3")
        + b"arn"
        + ext(12, msgpack.packb({1: False, 2: "arn:"}))
        + hexbytes("a2")
        + b"id"
        + hexbytes("a1 78")
    )
    assert decode(data, ty) == {"arn": UNKNOWN, "id": "x"}


def test_zero_and_one_byte_extensions_of_any_code_are_unknown() -> None:
    assert isinstance(decode(ext(0, b""), STRING), Unknown)
    assert isinstance(decode(ext(5, b"\x07"), STRING), Unknown)


def test_bad_extensions_are_clear_errors() -> None:
    with pytest.raises(PluginValueError, match="unsupported extension type 0x05"):
        decode(ext(5, b"\x81\x01\xc2"), STRING)
    with pytest.raises(PluginValueError, match="oversize"):
        decode(ext(12, b"\x80" * 1025), STRING)
    with pytest.raises(PluginValueError, match="not a map"):
        decode(ext(12, b"\x93\x01\x02\x03"), STRING)


# ---- marks --------------------------------------------------------------------------------------


def test_marks_are_stripped_and_reported_by_path() -> None:
    ty = parse_type(
        '["object",{"password":"string","tags":["map","string"],"rule":["list",["object",{"secret":"string","port":"number"}]],"meta":"dynamic"}]'
    )
    value = {
        "password": Marked("hunter2"),
        "tags": {"x": Marked("s"), "y": "plain"},
        "rule": [{"port": 1, "secret": None}, {"port": 2, "secret": Marked("z")}],
        "meta": {"inner": Marked(5)},
    }
    data, paths = encode(value, ty)
    plain, expected = unmark_paths(value)
    assert sorted(paths, key=str) == sorted(expected, key=str)
    assert decode(data, ty) == plain
    # Decoding re-applies the marks, so what comes back compares equal to what went in.
    assert decode(data, ty, sensitive=paths) == value


def test_a_marked_collection_is_one_path_and_its_contents_are_sent_plainly() -> None:
    ty = parse_type('["object",{"l":["list","string"]}]')
    data, paths = encode({"l": Marked(["a", "b"])}, ty)
    assert paths == [("l",)]
    assert data == hexbytes("81 a16c 92 a161 a162")


# ---- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        ("number", "abc", "a number is required"),
        # cty's wording: "a number is required" for a string that is not one, both types named
        # for a value of another kind altogether.
        ("number", True, "number required, but have bool"),
        ("number", [1], "number required, but have tuple"),
        ("number", math.nan, "a number is required"),
        ("bool", "yes", "a bool is required"),
        ("bool", "2", "a bool is required"),
        ("bool", "True", 'a bool is required; to convert from string, use lowercase "true"'),
        ("bool", 1, "bool required, but have number"),
        ("string", [1], "string required, but have tuple"),
        ("string", {"a": 1}, "string required, but have object"),
        ('["list","string"]', "a", "list of string required, but have string"),
        ('["set","number"]', {"a": 1}, "set of number required"),
        ('["map","string"]', ["a"], "map of string required"),
        ('["object",{"a":"string"}]', "x", "object required, but have string"),
        ('["tuple",["string","string"]]', ["a"], "tuple required: 2 elements, not 1"),
        ('["object",{"a":"string"}]', {"a": "x", "zz": 1}, 'unsupported attribute "zz"'),
    ],
)
def test_values_that_do_not_fit_are_one_clear_error(spec: str, value: object, message: str) -> None:
    with pytest.raises(PluginValueError) as info:
        encode(value, parse_type(spec))
    assert isinstance(info.value, CtlError)
    assert info.value.message == message


def test_errors_name_the_attribute_path() -> None:
    ty = parse_type(
        '["object",{"rule":["list",["object",{"port":"number"}]],"tags":["map","bool"],"t":["tuple",["string","number"]]}]'
    )
    with pytest.raises(PluginValueError) as info:
        encode({"rule": [{"port": 1}, {"port": "abc"}]}, ty)
    assert str(info.value) == "rule[1].port: a number is required"
    assert info.value.path == ("rule", 1, "port")
    assert "schema says what this attribute must be" in info.value.hint
    with pytest.raises(PluginValueError) as info:
        encode({"tags": {"Cost Center": "maybe"}}, ty)
    assert str(info.value) == 'tags["Cost Center"]: a bool is required'
    with pytest.raises(PluginValueError) as info:
        encode({"t": ["a", "b"]}, ty)
    assert str(info.value) == "t[1]: a number is required"


def test_strict_mode_requires_every_non_optional_attribute() -> None:
    ty = parse_type('["object",{"a":"string","b":"string","c":"string"},["c"]]')
    assert encode({"a": "x"}, ty)[0] == hexbytes("83 a161 a178 a162 c0 a163 c0")
    with pytest.raises(PluginValueError) as info:
        encode({"a": "x"}, ty, strict=True)
    assert info.value.message == 'attribute "b" is required'
    assert encode({"a": "x", "b": "y"}, ty, strict=True)[0] == hexbytes("83 a161 a178 a162 a179 a163 c0")


@pytest.mark.parametrize(
    ("spec", "wire", "message"),
    [
        ("number", fixstr("abc"), "number is required"),
        ("number", "c3", "number is required"),
        ("string", "01", "string is required"),
        ("bool", fixstr("true"), "bool is required"),
        ('["list","string"]', "a161", "a list is required"),
        ('["set","string"]', "80", "a set is required"),
        ('["map","string"]', "90", "a map is required"),
        ('["object",{"a":"string"}]', "90", "an object is required"),
        ('["tuple",["string"]]', "92 a161 a162", "a tuple of length 1 is required"),
        ("dynamic", "91 a161", "dynamic value array must have exactly two elements"),
        ("dynamic", "92 c4 03 787878 c0", "invalid type description"),
        ("dynamic", "92 01 c0", "the type of a dynamic value must be JSON bytes"),
    ],
)
def test_wire_values_that_do_not_fit_are_one_clear_error(spec: str, wire: str, message: str) -> None:
    with pytest.raises(PluginValueError) as info:
        decode(hexbytes(wire), parse_type(spec))
    assert message in info.value.message


def test_decode_errors_name_the_path_and_unsupported_attributes() -> None:
    ty = parse_type('["object",{"a":["list",["object",{"b":"number"}]]}]')
    with pytest.raises(PluginValueError) as info:
        decode(hexbytes("81 a161 91 81 a162 a3616263"), ty)
    assert str(info.value) == "a[0].b: number is required"
    assert "bug in the provider" in info.value.hint
    with pytest.raises(PluginValueError) as info:
        decode(hexbytes("81 a17a 01"), ty)
    assert str(info.value) == "z: unsupported attribute"


def test_malformed_msgpack_is_a_clear_error() -> None:
    with pytest.raises(PluginValueError, match="malformed msgpack"):
        decode(b"\x92\x01", list_of(NUMBER))
    with pytest.raises(PluginValueError, match="malformed msgpack"):
        decode(b"\x01\x02", NUMBER)
    with pytest.raises(PluginValueError, match="malformed msgpack"):
        decode(b"\xc1", NUMBER)


def test_objects_missing_attributes_on_the_wire_read_as_null() -> None:
    ty = parse_type('["object",{"a":"string","b":"string"}]')
    assert decode(hexbytes("81 a161 a178"), ty) == {"a": "x", "b": None}
    assert decode(hexbytes("80"), ty) == {"a": None, "b": None}


def test_to_wire_gives_msgpack_ready_data() -> None:
    assert to_wire({"b": [2, 1], "a": 0.1}, parse_type('["object",{"a":"number","b":["set","number"]}]')) == {
        "a": "0.1",
        "b": [1, 2],
    }
    assert to_wire(["x"], set_of(STRING)) == ["x"]
    assert to_wire({"k": True}, map_of(BOOL)) == {"k": True}


# ---- exact types of dynamic values ---------------------------------------------------------------


def dyn(type_spec: bytes, value_hex: str) -> str:
    return f"92 c4 {len(type_spec):02x} {type_spec.hex()} {value_hex}"


def test_dynamic_values_keep_the_types_they_arrived_with() -> None:
    ty = parse_type('["object",{"meta":"dynamic","items":["list","dynamic"]}]')
    list_json = b'["list","string"]'
    map_json = b'["map","number"]'
    wire = hexbytes(
        "82 a5 6974656d73 91" + dyn(map_json, "81 a16b 01") + " a4 6d657461" + dyn(list_json, "92 a161 a162")
    )
    types: dict = {}
    value = decode(wire, ty, dynamic_types=types)
    assert value == {"items": [{"k": 1}], "meta": ["a", "b"]}
    assert types == {("items", 0): map_of(NUMBER), ("meta",): list_of(STRING)}
    # With the recorded types the value goes back byte for byte, and without them too: a decoded
    # list or map remembers its kind; the same elements written as literals are a tuple and an object.
    assert encode(value, ty, dynamic_types=types)[0] == wire
    assert encode(value, ty)[0] == wire
    literal = encode({"items": [{"k": 1}], "meta": ["a", "b"]}, ty)[0]
    assert b'["tuple",["string","string"]]' in literal
    assert b'["object",{"k":"number"}]' in literal
    # A value that no longer fits its recorded type is sent with the type it implies.
    changed = {"items": [{"k": "not a number"}], "meta": ["a", "b"]}
    data = encode(changed, ty, dynamic_types=types)[0]
    assert b'["object",{"k":"string"}]' in data
    assert b'["list","string"]' in data


def test_conforms_is_exact_without_conversion() -> None:
    from adapters.plugin.dynamic_types import conforms

    assert conforms(["a", None, UNKNOWN], list_of(STRING))
    assert not conforms(["a", 1], list_of(STRING))
    assert not conforms(SetValue(["a"]), list_of(STRING))
    assert conforms(SetValue(["a"]), set_of(STRING))
    assert conforms({"a": True}, parse_type('["object",{"a":"bool","b":"number"}]'))
    assert not conforms({"c": True}, parse_type('["object",{"a":"bool"}]'))
    assert not conforms([1, 2], parse_type('["tuple",["number"]]'))
    assert conforms(Marked([1]), parse_type('["tuple",["number"]]'))
    assert not conforms(True, NUMBER)
    assert conforms({"x": [1]}, DYNAMIC)


def test_typed_unknown_and_null_inside_dynamic_read_back() -> None:
    # go-cty wraps an unknown or null of a known type in a dynamic slot with its type.
    string_json = b'"string"'
    assert decode(hexbytes(dyn(string_json, "d40000")), DYNAMIC) == Unknown("string")
    assert decode(hexbytes(dyn(string_json, "c0")), DYNAMIC) is None
    list_json = b'["list","number"]'
    got = decode(hexbytes(dyn(list_json, "92 01 d40000")), DYNAMIC)
    assert got[0] == 1
    assert isinstance(got[1], Unknown)
