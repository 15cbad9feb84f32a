"""terraform_data's dynamically typed attributes: ``{"value", "type"}`` in the file, bare values in memory."""

from __future__ import annotations

import json

from engine.state.codec import decode_state
from engine.state.encode import encode_state
from engine.state.model import new_state

# Shaped as Terraform 1.5+ writes a terraform_data instance whose input came through tolist().
TERRAFORM_WRITTEN = {
    "version": 4, "terraform_version": "1.6.0", "serial": 3, "lineage": "0b6f5e1c-2f39-4d6e-9f47-1d3f0c1f8a11",
    "outputs": {},
    "resources": [{
        "mode": "managed", "type": "terraform_data", "name": "d",
        "provider": 'provider["terraform.io/builtin/terraform"]',
        "instances": [{
            "schema_version": 0,
            "attributes": {
                "id": "5d0ab3b4-8c43-5b0e-6e2c-1f0f4f3b9c0a",
                "input": {"value": ["a", "b"], "type": ["list", "string"]},
                "output": {"value": ["a", "b"], "type": ["list", "string"]},
                "triggers_replace": None,
            },
            "sensitive_attributes": [],
        }],
    }],
    "check_results": None,
}


def _instance(doc: dict) -> dict:
    return doc["resources"][0]["instances"][0]["attributes"]


def test_values_are_bare_in_memory_and_keep_their_type_in_the_file() -> None:
    state = decode_state(json.dumps(TERRAFORM_WRITTEN).encode(), "terraform.tfstate")
    (_, instance), = state.instances()
    assert instance.attributes["input"] == ["a", "b"]
    assert instance.attributes["triggers_replace"] is None
    written = _instance(json.loads(encode_state(state)))
    assert written["input"] == {"value": ["a", "b"], "type": ["list", "string"]}  # not turned into a tuple
    assert written["triggers_replace"] is None


def test_a_new_value_is_written_with_the_type_of_its_literal() -> None:
    state = decode_state(json.dumps(TERRAFORM_WRITTEN).encode(), "terraform.tfstate")
    (address, instance), = state.instances()
    state.set_instance(address, instance.replace(attributes={**instance.attributes, "input": {"n": 1, "ok": True}}))
    written = _instance(json.loads(encode_state(state)))
    assert written["input"] == {"value": {"n": 1, "ok": True}, "type": ["object", {"n": "number", "ok": "bool"}]}
    assert written["output"] == {"value": ["a", "b"], "type": ["list", "string"]}


def test_other_types_are_untouched() -> None:
    state = new_state()
    from engine.state.model import InstanceState

    state.set_instance("local_file.f", InstanceState(attributes={"input": {"value": 1, "type": "number"}}))
    written = json.loads(encode_state(state))
    assert _instance(written)["input"] == {"value": 1, "type": "number"}
    again = decode_state(encode_state(state), "x")
    assert next(iter(again.instances()))[1].attributes["input"] == {"value": 1, "type": "number"}


def test_a_value_equal_only_to_python_gets_its_own_type() -> None:
    doc = json.loads(json.dumps(TERRAFORM_WRITTEN))
    _instance(doc)["input"] = {"value": [1, 0], "type": ["tuple", ["number", "number"]]}
    state = decode_state(json.dumps(doc).encode(), "terraform.tfstate")
    (address, instance), = state.instances()
    state.set_instance(address, instance.replace(attributes={**instance.attributes, "input": [True, False]}))
    written = _instance(json.loads(encode_state(state)))
    assert written["input"] == {"value": [True, False], "type": ["tuple", ["bool", "bool"]]}  # [1, 0] == [True, False]


def test_new_values_of_one_shape_share_one_written_type_in_key_order() -> None:
    state = new_state()
    from engine.state.model import InstanceState

    for i in range(3):
        state.set_instance(f"terraform_data.d{i}", InstanceState(attributes={"input": {"z": i, "a": "x"}}))
    written = json.loads(encode_state(state))
    types = [r["instances"][0]["attributes"]["input"]["type"] for r in written["resources"]]
    assert types == [["object", {"a": "string", "z": "number"}]] * 3


def test_an_input_that_is_also_the_output_is_written_whole_and_sorted_under_both() -> None:
    from engine.state.model import InstanceState

    shared = {"tags": {"team": "a", "idx": "0"}, "name": "r-0", "ports": [80, 443]}  # keys out of order
    state = new_state()
    state.set_instance("terraform_data.d", InstanceState(attributes={"id": "x", "input": shared, "output": shared}))
    text = encode_state(state).decode()
    written = _instance(json.loads(text))
    expected = {"type": ["object", {"name": "string", "ports": ["tuple", ["number", "number"]],
                                    "tags": ["object", {"idx": "string", "team": "string"}]}],
                "value": {"name": "r-0", "ports": [80, 443], "tags": {"idx": "0", "team": "a"}}}
    assert written["input"] == written["output"] == expected
    assert list(written["output"]["value"]) == ["name", "ports", "tags"]  # Terraform's order, under both
    assert list(written["output"]["value"]["tags"]) == ["idx", "team"]
    assert text.count('"idx": "0"') == 2 and shared == {"tags": {"team": "a", "idx": "0"}, "name": "r-0", "ports": [80, 443]}
