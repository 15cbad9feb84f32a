"""The state document: Terraform v4 compatibility, instance look-ups, refusal of bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.base import BackendError
from engine.state.codec import decode_state, paths_from_json, paths_to_json
from engine.state.encode import encode_state
from engine.state.model import InstanceState, OutputValue, State, new_state
from vocab.values import Marked

TERRAFORM_STATE = Path(__file__).parent / "data" / "terraform-v4.tfstate"


def load_fixture() -> State:
    return decode_state(TERRAFORM_STATE.read_bytes(), str(TERRAFORM_STATE))


# -- compatibility with Terraform's files ---------------------------------------------------------


def test_a_terraform_state_loads_and_rewrites_with_the_same_data() -> None:
    original = json.loads(TERRAFORM_STATE.read_bytes())
    rewritten = json.loads(encode_state(load_fixture()))
    assert rewritten.pop("ctl_version")
    assert rewritten == original


def test_a_terraform_state_rewrites_byte_for_byte_apart_from_ctl_version() -> None:
    original = TERRAFORM_STATE.read_text().splitlines()
    rewritten = encode_state(load_fixture()).decode().splitlines()
    assert [line for line in rewritten if '"ctl_version"' not in line] == original


def test_top_level_keys_are_in_terraforms_order() -> None:
    doc = json.loads(encode_state(new_state()))
    assert list(doc) == [
        "version",
        "terraform_version",
        "ctl_version",
        "serial",
        "lineage",
        "outputs",
        "resources",
        "check_results",
    ]
    assert doc["version"] == 4


def test_loaded_state_exposes_its_contents() -> None:
    state = load_fixture()
    assert (state.serial, state.lineage) == (42, "0b7c3e4a-8f2d-4c1e-9b6a-2d5f7e9a1c3b")
    assert state.outputs["db_password"] == OutputValue("s3cr3t-Pa55", "string", True)
    web1 = state.instance("aws_instance.web[1]")
    assert web1 is not None and web1.status == "tainted" and web1.attributes["id"] == "i-0fedcba9876543210"
    old = state.instance("aws_instance.web[1]", deposed="3c5f8a1e")
    assert old is not None and old.attributes["id"] == "i-0aaaaaaaaaaaaaaaa"
    bucket = state.instance('module.net["eu"].aws_s3_bucket.logs["a"]')
    assert bucket is not None and bucket.dependencies == ["module.net.aws_vpc.main"]
    assert state.instance("data.aws_caller_identity.current") is not None
    assert state.instance("aws_instance.web[2]") is None
    assert state.instance('aws_instance.web["0"]') is None  # a for_each key is not a count index


def test_instances_are_listed_with_addresses_in_file_order() -> None:
    addresses = [str(a) for a, _ in load_fixture().instances()]
    assert addresses == [
        "data.aws_caller_identity.current",
        "aws_instance.web[0]",
        "aws_instance.web[1]",
        "aws_security_group.web",
        "random_password.db",
        'module.net["eu"].aws_s3_bucket.logs["a"]',
        'module.net["eu"].aws_s3_bucket.logs["b.c[\\"d\\"]"]',
        'module.net["eu"].aws_vpc.main',
        'module.net["eu"].module.dns[0].aws_route53_record.www[0]',
    ]
    with_deposed = [(str(a), i.deposed) for a, i in load_fixture().instances(include_deposed=True)]
    assert ("aws_instance.web[1]", "3c5f8a1e") in with_deposed


def test_deposed_objects_are_listed_as_among_all_instances() -> None:
    state = load_fixture()
    for addr, res in ((a, state.resource(a)) for a, _ in list(state.instances())[::2]):
        assert res is not None
        res.put(InstanceState(attributes={"id": "old"}, index_key=addr.key, deposed="00000001"))
    every = [(str(a), i) for a, i in state.instances(include_deposed=True) if i.deposed is not None]
    assert len(every) >= 5
    assert [(str(a), i) for a, i in state.deposed_instances()] == every
    assert list(new_state().deposed_instances()) == []


# -- sensitive values -----------------------------------------------------------------------------


def test_sensitive_attributes_come_back_marked() -> None:
    password = load_fixture().instance("random_password.db")
    assert password is not None
    assert password.attributes["result"] == "s3cr3t-Pa55"  # stored in clear, like Terraform
    marked = password.marked_attributes()
    assert isinstance(marked["result"], Marked) and marked["result"].value == "s3cr3t-Pa55"
    assert marked["length"] == 16
    vpc = load_fixture().instance('module.net["eu"].aws_vpc.main')
    assert vpc is not None
    secondary = vpc.marked_attributes()["secondary"]
    assert secondary[0] == "10.1.0.0/16" and isinstance(secondary[1], Marked)


def test_marked_values_are_stored_unmarked_with_terraform_paths() -> None:
    inst = InstanceState.from_marked({"id": "x", "result": Marked("pw"), "list": ["a", Marked("b")]})
    state = new_state()
    state.set_instance("random_password.p", inst)
    doc = json.loads(encode_state(state))
    stored = doc["resources"][0]["instances"][0]
    assert stored["attributes"] == {"id": "x", "result": "pw", "list": ["a", "b"]}
    assert stored["sensitive_attributes"] == [
        [{"type": "get_attr", "value": "result"}],
        [{"type": "get_attr", "value": "list"}, {"type": "index", "value": {"value": 1, "type": "number"}}],
    ]
    again = decode_state(encode_state(state), "test").instance("random_password.p")
    assert again is not None and again.marked_attributes() == inst.marked_attributes()


def test_path_converters_round_trip() -> None:
    paths = [("result",), ("tags", "api_key"), ("rules", 0, "cidr")]
    assert paths_from_json(paths_to_json(paths)) == paths
    assert paths_from_json([[{"type": "index", "value": {"value": "k", "type": "string"}}]]) == [("k",)]
    with pytest.raises(ValueError):
        paths_from_json([[{"type": "teleport", "value": 1}]])


# -- changes ---------------------------------------------------------------------------------------


def test_set_and_remove_instances_by_address() -> None:
    state = new_state()
    state.set_instance('module.net["a"].aws_s3_bucket.logs[0]', InstanceState(attributes={"id": "b0"}))
    state.set_instance('module.net["a"].aws_s3_bucket.logs[1]', InstanceState(attributes={"id": "b1"}))
    got = state.instance('module.net["a"].aws_s3_bucket.logs[1]')
    assert got is not None and got.attributes == {"id": "b1"} and got.index_key == 1
    state.set_instance('module.net["a"].aws_s3_bucket.logs[1]', InstanceState(attributes={"id": "b1-new"}))
    got = state.instance('module.net["a"].aws_s3_bucket.logs[1]')
    assert got is not None and got.attributes == {"id": "b1-new"}
    res = state.resource('module.net["a"].aws_s3_bucket.logs')
    assert res is not None and res.each == "list" and res.module == 'module.net["a"]'
    assert res.provider == 'provider["registry.terraform.io/hashicorp/aws"]'
    removed = state.remove_instance('module.net["a"].aws_s3_bucket.logs[0]')
    assert removed is not None and removed.attributes == {"id": "b0"}
    assert state.remove_instance('module.net["a"].aws_s3_bucket.logs[0]') is None
    state.remove_instance('module.net["a"].aws_s3_bucket.logs[1]')
    assert state.resources == [] and state.is_empty


def test_explicit_provider_and_for_each_keys() -> None:
    state = new_state()
    provider = 'provider["registry.terraform.io/hashicorp/random"].alt'
    state.set_instance('random_id.a["x"]', InstanceState(attributes={"id": "1"}), provider=provider)
    doc = json.loads(encode_state(state))["resources"][0]
    assert (doc["each"], doc["provider"], doc["instances"][0]["index_key"]) == ("map", provider, "x")


def test_resources_and_instances_are_written_sorted_for_stable_diffs() -> None:
    state = new_state()
    for addr in [
        "z_thing.b",
        "a_thing.b[10]",
        "a_thing.b[2]",
        "module.m.a_thing.a",
        "data.z_thing.a",
        "a_thing.a",
    ]:
        state.set_instance(addr, InstanceState(attributes={"id": addr}))
    doc = json.loads(encode_state(state))
    order = [(r.get("module", ""), r["mode"], r["type"], r["name"]) for r in doc["resources"]]
    assert order == sorted(order)
    assert [i["index_key"] for i in doc["resources"][2]["instances"]] == [2, 10]


def test_many_instances_stay_fast_to_change() -> None:
    state = new_state()
    for i in range(20_000):
        state.set_instance(f'null_resource.n["{i}"]', InstanceState(attributes={"id": str(i)}))
    for i in range(0, 20_000, 2):
        state.remove_instance(f'null_resource.n["{i}"]')
    got = state.instance('null_resource.n["19999"]')
    assert got is not None and got.attributes == {"id": "19999"}
    assert len(json.loads(encode_state(state))["resources"][0]["instances"]) == 10_000


def test_copies_are_independent() -> None:
    state = load_fixture()
    copy = state.copy()
    copy.remove_instance("random_password.db")
    copy.outputs.pop("db_password")
    assert state.instance("random_password.db") is not None and "db_password" in state.outputs
    assert copy != state and state.copy() == state


def test_new_states_get_distinct_lineages() -> None:
    a, b = new_state(), new_state()
    assert a.lineage != b.lineage and a.serial == 0


def test_output_types_are_inferred_when_missing() -> None:
    state = new_state()
    state.outputs["o"] = OutputValue({"a": [1, "x"], "b": True})
    doc = json.loads(encode_state(state))
    assert doc["outputs"]["o"]["type"] == ["object", {"a": ["tuple", ["number", "string"]], "b": "bool"}]
    assert "sensitive" not in doc["outputs"]["o"]


# -- refusing bad files ----------------------------------------------------------------------------


def test_truncated_json_is_reported_as_corrupt_with_position() -> None:
    with pytest.raises(BackendError) as err:
        decode_state(b'{\n  "version": 4,\n  "serial": ', "ctl.tfstate")
    assert err.value.summary.startswith("state at ctl.tfstate is corrupt: ")
    assert "line 3 column" in err.value.summary
    assert "backup" in err.value.hint


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[1, 2]", 'ctl.tfstate is not a state file: it has no "version" field'),
        (b'{"name": "package.json"}', 'ctl.tfstate is not a state file: it has no "version" field'),
        (b'{"version": 4, "serial": 1}', "ctl.tfstate is not a state file: it has no lineage"),
        (
            b'{"version": 3, "serial": 1, "lineage": "x"}',
            "state format version 3 in ctl.tfstate is not supported",
        ),
        (
            b'{"version": 5, "serial": 1, "lineage": "x"}',
            "state format version 5 in ctl.tfstate is not supported",
        ),
        (b"\xff\xfe garbage", "state at ctl.tfstate is corrupt"),
        (b'{"version": 4, "serial": "1", "lineage": "x"}', "serial is not a whole number"),
        (
            b'{"version": 4, "serial": 1, "lineage": "x", "resources": [{"mode": "managed"}]}',
            "resources[0].type is missing",
        ),
        (
            b'{"version": 4, "serial": 1, "lineage": "x", "resources": [{"mode": "managed", "type": "a_b",'
            b' "name": "c", "provider": "p", "instances": [{"attributes": []}]}]}',
            "resources[0].instances[0].attributes is not an object",
        ),
        (
            b'{"version": 4, "serial": 1, "lineage": "x", "resources": [{"mode": "managed", "type": "a_b",'
            b' "name": "c", "provider": "p", "instances": [{"sensitive_attributes": [[{"type": "?"}]]}]}]}',
            "sensitive_attributes is invalid",
        ),
    ],
)
def test_foreign_or_damaged_documents_are_refused_clearly(data: bytes, message: str) -> None:
    with pytest.raises(BackendError) as err:
        decode_state(data, "ctl.tfstate")
    assert message in err.value.summary
    assert "Traceback" not in str(err.value)


def test_terraform_version_1_state_is_refused_with_an_upgrade_hint() -> None:
    with pytest.raises(BackendError) as err:
        decode_state(b'{"version": 3, "serial": 1, "lineage": "x", "modules": []}', "old.tfstate")
    assert "upgrade" in err.value.hint


def test_a_state_with_what_the_fast_encoder_cannot_write_is_still_written_or_refused() -> None:
    """Integers beyond 64 bits take the standard encoder; NaN is refused, never written as null."""
    state = new_state()
    state.outputs["big"] = OutputValue(value=10**30)
    assert json.loads(encode_state(state))["outputs"]["big"]["value"] == 10**30
    state.outputs["big"] = OutputValue(value=float("nan"))
    with pytest.raises(ValueError):
        encode_state(state)


@pytest.mark.parametrize("where", ["attribute", "nested attribute", "instance field", "output"])
def test_nan_and_infinity_are_refused_wherever_they_are(where: str) -> None:
    from engine.state.model import InstanceState

    state = new_state()
    bad = {"attribute": {"n": float("nan")}, "nested attribute": {"l": [1, {"x": float("inf")}]}}
    if where == "output":
        state.outputs["o"] = OutputValue(value={"v": [float("-inf")]})
    elif where == "instance field":
        state.set_instance("local_file.f", InstanceState(attributes={"n": 1.5}, extra={"future_field": float("nan")}))
    else:
        state.set_instance("local_file.f", InstanceState(attributes=bad[where]))
    with pytest.raises(ValueError, match="Out of range float"):
        encode_state(state)
    state.outputs.pop("o", None)
    state.set_instance("local_file.f", InstanceState(attributes={"n": 1.5, "l": [0.25]}))
    assert json.loads(encode_state(state))["resources"][0]["instances"][0]["attributes"] == {"l": [0.25], "n": 1.5}


def test_a_state_written_one_resource_at_a_time_is_laid_out_as_one_whole_document() -> None:
    """Each resource is encoded alone and indented into place: the bytes must be exactly the
    two-space layout of the whole document, whatever the values hold (escaped newlines, the word
    ``resources``, a stand-in-like string, non-ASCII text, an integer only the standard encoder writes)."""
    state = new_state()
    state.outputs["o"] = OutputValue(value={"resources": ['"resources"', "line\nbreak"]})
    state.set_instance("local_file.a", InstanceState(attributes={"content": "a\n  {\n    }\n", "n": 1}))
    state.set_instance("local_file.b[0]", InstanceState(attributes={"huge": 10**30, "list": [{"k": "é"}]}))
    state.set_instance("local_file.b[1]", InstanceState(attributes={"resources": "resources 00ff"}))
    state.set_instance("module.m.local_file.c", InstanceState(attributes={}))
    text = encode_state(state).decode()
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    doc = json.loads(text)
    assert [r["name"] for r in doc["resources"]] == ["a", "b", "c"]
    assert doc["resources"][1]["instances"][0]["attributes"]["huge"] == 10**30
    assert doc["resources"][0]["instances"][0]["attributes"]["content"] == "a\n  {\n    }\n"
    empty = encode_state(new_state()).decode()
    assert json.loads(empty)["resources"] == []
    assert empty == json.dumps(json.loads(empty), indent=2, ensure_ascii=False) + "\n"


def test_instances_are_found_the_same_whether_searched_or_indexed() -> None:
    """A resource is searched while it has a few instances and indexed past that: puts, gets and
    pops that cross the line both ways must agree with a plain dict at every step."""
    import random

    from engine.state.model import ResourceState

    rng = random.Random(14)
    res = ResourceState("managed", "local_file", "f", "provider")
    model: dict[tuple[object, str | None], InstanceState] = {}
    keys: list[object] = [*range(12), *(str(i) for i in range(12))]  # 1 and "1" are different keys
    sizes: set[int] = set()
    for step in range(3000):
        key, deposed = rng.choice(keys), rng.choice([None, None, None, "d1"])
        put_share = (0.5, 0.15, 0.7)[step // 1000]  # around the line, down to a few, back up
        kind = rng.random()
        if kind < put_share:
            inst = InstanceState(attributes={"step": step}, index_key=key, deposed=deposed)
            res.put(inst)
            model[(type(key).__name__, key, deposed)] = inst
        elif kind < put_share + 0.3:
            assert res.pop(key, deposed) is model.pop((type(key).__name__, key, deposed), None)
        else:
            assert res.get(key, deposed) is model.get((type(key).__name__, key, deposed))
        assert len(res.instances) == len(model)
        sizes.add(len(model))
    assert min(sizes) <= 2 and max(sizes) >= 20  # both sides of the line, more than once
    assert sorted(id(i) for i in res.instances) == sorted(id(i) for i in model.values())
