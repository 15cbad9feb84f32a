"""Encoding functions, checked against the examples in Terraform's function documentation."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_base64() -> None:
    assert call("base64encode", "Hello World") == "SGVsbG8gV29ybGQ="
    assert call("base64decode", "SGVsbG8gV29ybGQ=") == "Hello World"


def test_base64decode_rejects_garbage_and_non_utf8() -> None:
    with pytest.raises(FunctionError, match="base64"):
        call("base64decode", "not base64!")
    with pytest.raises(FunctionError, match="UTF-8"):
        call("base64decode", "/w==")


def test_text_encodings() -> None:
    assert call("textencodebase64", "Hello World", "UTF-16LE") == "SABlAGwAbABvACAAVwBvAHIAbABkAA=="
    assert call("textdecodebase64", "SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE") == "Hello World"
    assert call("textencodebase64", "Hello World", "UTF-8") == call("base64encode", "Hello World")


def test_unknown_text_encoding_is_an_error_on_the_encoding_argument() -> None:
    with pytest.raises(FunctionError) as exc:
        call("textencodebase64", "x", "no-such-encoding")
    assert exc.value.arg_index == 1


def test_csvdecode() -> None:
    assert call("csvdecode", "a,b,c\n1,2,3\n4,5,6") == [
        {"a": "1", "b": "2", "c": "3"},
        {"a": "4", "b": "5", "c": "6"},
    ]


def test_csvdecode_handles_quotes_and_rejects_ragged_rows() -> None:
    assert call("csvdecode", 'name,note\nx,"a, b"\n') == [{"name": "x", "note": "a, b"}]
    with pytest.raises(FunctionError, match="wrong number of fields"):
        call("csvdecode", "a,b\n1\n")


def test_jsondecode() -> None:
    assert call("jsondecode", '{"hello": "world"}') == {"hello": "world"}
    assert call("jsondecode", "true") is True
    assert call("jsondecode", "[1, 2.5, null]") == [1, 2.5, None]
    assert type(call("jsondecode", "3.0")) is int


def test_jsondecode_rejects_invalid_json() -> None:
    with pytest.raises(FunctionError, match="invalid JSON"):
        call("jsondecode", "{nope")
    with pytest.raises(FunctionError):
        call("jsondecode", "NaN")


def test_jsonencode_is_minified_with_sorted_keys() -> None:
    assert call("jsonencode", {"hello": "world"}) == '{"hello":"world"}'
    assert call("jsonencode", {"b": [1, True, None], "a": 1.5}) == '{"a":1.5,"b":[1,true,null]}'


def test_jsonencode_escapes_html_characters_and_line_separators() -> None:
    assert call("jsonencode", "<a href='x'>&</a>") == "\"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e\""
    assert call("jsonencode", "\u2028\u2029") == '"\\u2028\\u2029"'
    assert call("jsonencode", "héllo") == '"héllo"'


def test_jsonencode_never_uses_exponents() -> None:
    assert call("jsonencode", [1e21, 0.00001]) == "[1000000000000000000000,0.00001]"


def test_urlencode() -> None:
    assert call("urlencode", "Hello World!") == "Hello+World%21"
    assert call("urlencode", "☃") == "%E2%98%83"
    assert "http://example.com/search?q=" + call("urlencode", "terraform urlencode") == (
        "http://example.com/search?q=terraform+urlencode"
    )


def test_yamldecode() -> None:
    assert call("yamldecode", "hello: world") == {"hello": "world"}
    assert call("yamldecode", "true") is True
    assert call("yamldecode", "{a: &foo [1, 2, 3], b: *foo}") == {"a": [1, 2, 3], "b": [1, 2, 3]}


def test_yamldecode_resolves_scalars_as_terraforms_library() -> None:
    assert call("yamldecode", "a: yes\nb: on\nc: 0o17\nd: 017\ne: ~\nf: N\ng: 'yes'\nh: 2002-12-14") == {
        "a": True,
        "b": True,
        "c": 15,
        "d": 17,
        "e": None,
        "f": False,
        "g": "yes",
        "h": "2002-12-14T00:00:00Z",
    }


def test_yamldecode_errors() -> None:
    with pytest.raises(FunctionError, match="inside its own definition"):
        call("yamldecode", "{a: &foo [1, *foo, 3]}")
    with pytest.raises(FunctionError, match='unsupported tag "!not-supported"'):
        call("yamldecode", "{a: !not-supported foo}")
    with pytest.raises(FunctionError, match="one YAML document"):
        call("yamldecode", "a: 1\n---\nb: 2\n")


def test_yamlencode_documented_examples() -> None:
    assert call("yamlencode", {"a": "b", "c": "d"}) == '"a": "b"\n"c": "d"\n'
    assert call("yamlencode", {"foo": [1, 2, 3], "bar": "baz"}) == '"bar": "baz"\n"foo":\n- 1\n- 2\n- 3\n'
    assert call("yamlencode", {"foo": [1, {"a": "b", "c": "d"}, 3], "bar": "baz"}) == (
        '"bar": "baz"\n"foo":\n- 1\n- "a": "b"\n  "c": "d"\n- 3\n'
    )


def test_yamlencode_uses_flow_style_only_for_empty_collections() -> None:
    assert (
        call("yamlencode", {"a": [], "b": {}, "c": None, "d": True})
        == '"a": []\n"b": {}\n"c": null\n"d": true\n'
    )


def test_yamlencode_of_repeated_objects_writes_no_anchors() -> None:
    shared = {"k": "v"}
    assert "&" not in call("yamlencode", {"a": shared, "b": shared})


def test_urldecode_reads_back_urlencode() -> None:
    assert call("urldecode", "a%20b%2Bc+d") == "a b+c d"
    assert call("urldecode", "%E2%82%AC") == "€"
    text = "a b&c=d/é?"
    assert call("urldecode", call("urlencode", text)) == text
    with pytest.raises(FunctionError, match="invalid URL escape"):
        call("urldecode", "%zz")


def test_base64gunzip_reads_back_base64gzip() -> None:
    assert call("base64gunzip", call("base64gzip", "hello")) == "hello"
    with pytest.raises(FunctionError, match="gunzip"):
        call("base64gunzip", "aGVsbG8=")


def test_yamlencode_ends_a_plain_scalar_document() -> None:
    assert [call("yamlencode", v) for v in (1, True, None, "a", [])] == ["1\n...\n", "true\n...\n", "null\n...\n",
                                                                          '"a"\n', "[]\n"]


def test_yamldecode_refuses_a_document_with_no_value() -> None:
    for text in ("", "  \n", "# only a comment\n"):
        with pytest.raises(FunctionError, match="missing start of document"):
            call("yamldecode", text)
