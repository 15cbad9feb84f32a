"""Reading a state one resource at a time gives exactly what parsing the whole document gives."""

from __future__ import annotations

import copy
import json

import pytest

from backends.base import BackendError
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from vocab import piecewise


def _data_instance(value: object, output: object = None) -> dict:
    dyn = {"value": value, "type": ["tuple", [["number"]]] if isinstance(value, list) else "string"}
    out = dyn if output is None else {"value": output, "type": dyn["type"]}
    return {
        "schema_version": 0,
        "attributes": {"id": "x", "input": dyn, "output": out, "triggers_replace": None},
        "sensitive_attributes": [],
    }


DOC = {
    "version": 4, "terraform_version": "1.6.0", "serial": 7, "lineage": "5b1c8f3e-0000-4000-8000-000000000001",
    "outputs": {"name": {"value": "a", "type": "string"}, "secret": {"value": "s", "type": "string", "sensitive": True}},
    "resources": [
        {"mode": "managed", "type": "terraform_data", "name": "a",
         "provider": 'provider["terraform.io/builtin/terraform"]', "instances": [_data_instance([1, 2])]},
        {"module": "module.net", "mode": "managed", "type": "local_file", "name": "f", "each": "list",
         "provider": 'provider["registry.terraform.io/hashicorp/local"]',
         "instances": [
             {"index_key": 0, "schema_version": 0, "attributes": {"content": "é ☃ 😀", "filename": "f0"},
              "sensitive_attributes": [[{"type": "get_attr", "value": "content"}]], "private": "YmFzZTY0",
              "dependencies": ["terraform_data.a"], "create_before_destroy": True},
             {"index_key": 1, "deposed": "00000001", "schema_version": 0,
              "attributes": {"content": "x", "filename": "f1", "n": 1.5, "flag": False, "none": None},
              "sensitive_attributes": []},
         ]},
        {"mode": "data", "type": "terraform_remote_state", "name": "r",
         "provider": 'provider["terraform.io/builtin/terraform"]',
         "instances": [{"schema_version": 0, "attributes": {"backend": "local", "outputs": {"value": {}, "type": ["object", {}]}},
                        "sensitive_attributes": []}]},
    ],
    "check_results": None,
}


def _indented(doc: dict) -> bytes:
    return json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"


def _whole(doc: dict) -> bytes:
    """The same document on one line, a layout the piecewise reader does not take."""
    return json.dumps(doc, ensure_ascii=False).encode()


def test_the_usual_layout_is_read_piecewise_and_equals_the_whole_parse() -> None:
    data = _indented(DOC)
    assert piecewise.split(data) is not None
    assert piecewise.split(_whole(DOC)) is None
    piece, whole = decode_state(data, "s"), decode_state(_whole(DOC), "s")
    assert encode_state(piece) == encode_state(whole)
    assert [r.key for r in piece.resources] == [r.key for r in whole.resources]
    assert piece.resources[1].instances[0].attributes["content"] == "é ☃ 😀"
    assert piece.outputs["secret"].sensitive


def test_a_state_written_by_ctl_reads_back_piecewise() -> None:
    state = decode_state(_indented(DOC), "s")
    written = encode_state(state)
    assert piecewise.split(written) is not None
    assert encode_state(decode_state(written, "s")) == written


def test_an_integer_beyond_64_bits_keeps_every_digit() -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][1]["instances"][1]["attributes"]["n"] = 2**70 + 1
    state = decode_state(_indented(doc), "s")
    assert state.resources[1].instances[1].attributes["n"] == 2**70 + 1


def test_a_syntax_error_in_a_late_resource_is_reported_before_a_wrong_field_in_an_early_one() -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][0]["instances"][0]["schema_version"] = "zero"  # corrupt, but valid JSON
    data = _indented(doc).replace(b'"filename": "f1"', b'"filename": "f1",,')
    with pytest.raises(json.JSONDecodeError) as syntax:
        json.loads(data)
    with pytest.raises(BackendError) as err:
        decode_state(data, "s")
    exc = syntax.value
    assert err.value.summary == f"state at s is corrupt: {exc.msg} at line {exc.lineno} column {exc.colno}"


def test_a_wrong_field_is_reported_as_the_whole_parse_reports_it() -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][2]["instances"][0]["schema_version"] = "zero"
    with pytest.raises(BackendError) as piece:
        decode_state(_indented(doc), "s")
    with pytest.raises(BackendError) as whole:
        decode_state(_whole(doc), "s")
    assert piece.value.summary == whole.value.summary
    assert "resources[2].instances[0].schema_version" in piece.value.summary


def test_a_lone_surrogate_is_refused_with_its_own_message() -> None:
    data = _indented(DOC).replace(b'"f0"', b'"\\ud800"')
    with pytest.raises(BackendError, match="half of a UTF-16 surrogate pair"):
        decode_state(data, "s")


@pytest.mark.parametrize("text", [
    "ctl:" + "0" * 32,  # shaped like the stand-in for the resources
    "\n    },\n    {",  # the separator between resources, as (escaped) data
    "\n  ]",  # the end of the resources
])
def test_data_that_looks_like_the_layout_is_read_as_data(text: str) -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][1]["instances"][0]["attributes"]["content"] = text
    state = decode_state(_indented(doc), "s")
    assert state.resources[1].instances[0].attributes["content"] == text
    assert len(state.resources) == 3


def test_a_nested_resources_key_in_the_same_indentation_is_not_taken_for_the_state_s() -> None:
    # Hand-made layout: an output's value holds "resources" at the two-space indent the top level uses.
    data = (
        b'{"version": 4, "serial": 1, "lineage": "l", "outputs": {"o": {"type": ["object", {}], "value": {\n'
        b'  "resources": [\n    {"mode": "managed", "type": "t", "name": "fake", "provider": "p", "instances": []}\n  ]\n'
        b'}}}, "resources": []}'
    )
    state = decode_state(data, "s")
    assert state.resources == []
    assert state.outputs["o"].value == {"resources": [{"mode": "managed", "type": "t", "name": "fake",
                                                       "provider": "p", "instances": []}]}


def test_a_repeated_resources_key_keeps_the_last_as_json_does() -> None:
    data = _indented(DOC).replace(b'\n  "check_results"', b'\n  "resources": [],\n  "check_results"')
    assert decode_state(data, "s").resources == []


def test_equal_values_and_types_are_one_object_each() -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"].append({**copy.deepcopy(doc["resources"][0]), "name": "b"})
    state = decode_state(_indented(doc), "s")
    a, b = (r.instances[0] for r in state.resources if r.type == "terraform_data")
    assert a.attributes["output"] is a.attributes["input"]
    assert a._tf_dynamic["input"]["type"] is b._tf_dynamic["output"]["type"]


def test_values_equal_only_to_python_are_not_shared() -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][0]["instances"][0] = _data_instance([1, 2], output=[True, 2.0])
    data = _indented(doc)
    state = decode_state(data, "s")
    attrs = state.resources[0].instances[0].attributes
    assert attrs["input"] == [1, 2] and attrs["output"] is not attrs["input"]
    written = next(r for r in json.loads(encode_state(state))["resources"] if r["name"] == "a")
    assert json.dumps(written["instances"][0]["attributes"]["output"]["value"]) == "[true, 2.0]"


def test_a_history_entry_counts_the_resources_by_the_layout_as_the_whole_parse_does() -> None:
    from backends.base import state_facts

    for doc in (DOC, {**DOC, "resources": DOC["resources"][:1]}, {**DOC, "resources": []}):
        assert state_facts(_indented(doc)) == state_facts(_whole(doc))  # the layout read, and the whole
    facts = state_facts(_indented(DOC))
    assert (facts.serial, facts.resources, facts.version) == (7, 3, "1.6.0")
    assert piecewise.head(_indented(DOC)) is not None and piecewise.head(_whole(DOC)) is None
    # A resource that says "}," at the layout's depth inside a string cannot fool the count: JSON
    # strings hold no raw newline, so the separator is always layout.
    tricky = copy.deepcopy(DOC)
    tricky["resources"][0]["instances"][0]["attributes"]["id"] = "\n    },\n    {"
    assert state_facts(_indented(tricky)).resources == 3
    assert state_facts(b"{not json").serial is None


def test_a_stand_in_drawn_with_many_digits_still_reads_piecewise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The random stand-in for the resources must never look like a long number (about one draw
    in 500 has 19 decimal digits in a row), or that read would be parsed whole for nothing."""
    monkeypatch.setattr(piecewise.secrets, "token_hex", lambda n: "1" * (2 * n))
    data = _indented(DOC)
    assert piecewise.split(data) is not None
    assert encode_state(decode_state(data, "s")) == encode_state(decode_state(_whole(DOC), "s"))
