"""Saved plans: exact round trips, private files, and clear refusals of anything else."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_REPLACE_CBD,
    ACTIONS_UPDATE,
    OutputChange,
    Plan,
    ResourceChange,
)
from engine.plan.planfile import PLAN_FORMAT, PlanFileError, _plan_text, load_plan, save_plan
from engine.state.encode import encode_state
from engine.state.model import InstanceState, OutputValue, State
from vocab.values import UNKNOWN, Marked, Unknown

RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'


def rich_plan() -> Plan:
    """A plan using every feature a saved plan must keep."""
    prior = State(
        serial=7,
        lineage="5e1f",
        outputs={"untyped": OutputValue("v"), "pw": OutputValue("s", "string", True)},
    )
    prior.set_instance(
        "random_id.a[1]",
        InstanceState.from_marked({"id": "x", "secret": Marked("hunter2")}, dependencies=["random_id.b"]),
    )
    prior.set_instance('random_id.a["1"]', InstanceState(attributes={"id": "y"}))
    changes = [
        ResourceChange(
            address="random_id.a[1]",
            module_address="",
            mode="managed",
            type="random_id",
            name="a",
            index=1,
            provider=RANDOM,
            actions=ACTIONS_REPLACE_CBD,
            before={"id": "x", "secret": Marked("hunter2")},
            after={"id": UNKNOWN, "secret": Marked("hunter3"), "list": [1, Unknown("string")], "f": 1.5},
            replace_paths=[["keepers", "k"], ["list", 0]],
            action_reason="replace_because_cannot_update",
            dependencies=["random_id.b"],
            create_before_destroy=True,
            schema_version=2,
        ),
        ResourceChange(
            address='module.m["k"].random_id.a["1"]',
            module_address='module.m["k"]',
            mode="managed",
            type="random_id",
            name="a",
            index="1",
            provider=RANDOM,
            actions=ACTIONS_DELETE,
            before={"id": "y", "__ctl_unknown__": True},
            after=None,
            previous_address='random_id.a["1"]',
        ),
    ]
    drift = [
        ResourceChange(
            "random_id.d", "", "managed", "random_id", "d", None, RANDOM, ACTIONS_UPDATE, {"v": 1}, {"v": 2}
        ),
    ]
    outputs = {
        "id": OutputChange("id", ACTIONS_CREATE, None, UNKNOWN),
        "pw": OutputChange("pw", ACTIONS_UPDATE, Marked("a"), Marked("b"), sensitive=True),
    }
    return Plan(
        changes=changes,
        drift=drift,
        outputs=outputs,
        prior_state=prior,
        lineage="5e1f",
        serial=7,
        config_hash="cafe",
        variables={"n": 3, "token": Marked("tok"), "obj": {"a": [True, None]}},
        workspace="staging",
        mode="normal",
        timestamp="2024-05-01T10:00:00Z",
        targets=["random_id.a"],
        excludes=["random_id.z"],
        policy_results=[{"policy": "p", "passed": False}],
        policy_override="ticket-1",
        errored=False,
    )


def test_a_saved_plan_loads_back_exactly(tmp_path: Path) -> None:
    plan = rich_plan()
    save_plan(plan, tmp_path / "tfplan")
    loaded = load_plan(tmp_path / "tfplan")
    assert loaded == plan
    rc = loaded.changes[0]
    assert rc.actions == ("create", "delete") and isinstance(rc.actions, tuple)
    assert isinstance(rc.after["id"], Unknown)
    assert rc.after["list"][1].type_hint == "string"
    assert rc.after["secret"] == Marked("hunter3")
    assert loaded.changes[1].index == "1" and rc.index == 1
    assert loaded.changes[1].before == {"id": "y", "__ctl_unknown__": True}
    assert loaded.prior_state.instance("random_id.a[1]").marked_attributes()["secret"] == Marked("hunter2")
    assert loaded.prior_state.outputs["untyped"].type is None


def test_a_plan_made_before_any_state_existed_round_trips(tmp_path: Path) -> None:
    plan = Plan([], [], {}, State(serial=0, lineage=""), lineage="", serial=-1, config_hash="c")
    save_plan(plan, tmp_path / "p")
    assert load_plan(tmp_path / "p") == plan


def test_the_plan_file_is_private_and_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "tfplan"
    target.write_text("old")
    target.chmod(0o644)
    save_plan(rich_plan(), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["tfplan"]
    assert json.loads(target.read_text())["ctl_plan_format"] == PLAN_FORMAT == 2


def test_saving_into_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError, match="cannot write the plan file"):
        save_plan(rich_plan(), tmp_path / "nope" / "tfplan")


def test_a_missing_plan_file(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError, match=r"plan file .*missing\.plan does not exist"):
        load_plan(tmp_path / "missing.plan")


def test_a_corrupt_plan_file(tmp_path: Path) -> None:
    path = tmp_path / "tfplan"
    save_plan(rich_plan(), path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(PlanFileError, match=r"tfplan is corrupt"):
        load_plan(path)


def test_a_plan_file_with_a_missing_field_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "tfplan"
    save_plan(rich_plan(), path)
    doc = json.loads(path.read_text())
    del doc["changes"]
    path.write_text(json.dumps(doc))
    with pytest.raises(PlanFileError, match="corrupt"):
        load_plan(path)


def test_a_state_file_is_not_a_plan(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    path.write_bytes(encode_state(State(serial=1, lineage="x")))
    with pytest.raises(PlanFileError, match=r"terraform\.tfstate is not a ctl plan file"):
        load_plan(path)


def test_a_terraform_binary_plan_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tfplan"
    path.write_bytes(b"PK\x03\x04binary")
    with pytest.raises(PlanFileError, match="Terraform plan"):
        load_plan(path)


def test_a_plan_from_another_version_of_ctl_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tfplan"
    save_plan(rich_plan(), path)
    doc = json.loads(path.read_text())
    doc["ctl_plan_format"] = PLAN_FORMAT + 1
    doc["ctl_version"] = "9.0.0"
    path.write_text(json.dumps(doc))
    with pytest.raises(PlanFileError) as err:
        load_plan(path)
    assert str(path) in err.value.summary
    assert "written by another version of ctl" in err.value.summary
    assert "9.0.0" in err.value.summary


def test_the_configuration_is_decoded_only_when_read_and_a_corrupt_one_says_so(tmp_path: Path) -> None:
    plan = rich_plan()
    plan.configuration = {"root_module": {"resources": [{"address": "random_id.a", "expressions": {}}]}}
    path = tmp_path / "tfplan"
    save_plan(plan, path)
    loaded = load_plan(path)
    assert loaded.configuration == {} and loaded.configuration_later is not None  # not decoded yet
    assert loaded.configuration_json() == plan.configuration
    assert loaded == plan

    doc = json.loads(path.read_text())
    doc["configuration"] = "{not json"
    path.write_text(json.dumps(doc))
    broken = load_plan(path)  # the apply itself never reads it
    with pytest.raises(PlanFileError, match="its configuration is not valid JSON"):
        broken.configuration_json()


def test_a_plan_written_a_change_at_a_time_is_one_compact_document(tmp_path: Path) -> None:
    """Each change is encoded alone and put in its place: the file must be exactly the compact
    JSON of the whole document, with every change in order."""
    plan = rich_plan()
    tricky = 'quote " back \\ tab \t line \n é ✓ \u2028 \x01 "prior_state"'
    plan.prior_state.set_instance("random_id.t", InstanceState(attributes={"t": tricky}))
    save_plan(plan, tmp_path / "tfplan")
    text = (tmp_path / "tfplan").read_text()
    doc = json.loads(text)
    assert load_plan(tmp_path / "tfplan").prior_state.instance("random_id.t").attributes["t"] == tricky
    assert text == json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert [c["address"] for c in doc["changes"]] == [c.address for c in plan.changes]
    assert "".join(_plan_text(plan, size=7)) + "\n" == text  # the rest of it in small slices
    empty = Plan([], [], {}, State(serial=0, lineage=""), lineage="", serial=-1, config_hash="c")
    assert "".join(_plan_text(empty, size=7)) == "".join(_plan_text(empty))


def test_a_value_json_cannot_spell_fails_the_save_and_leaves_no_file(tmp_path: Path) -> None:
    plan = rich_plan()
    plan.changes.append(ResourceChange("random_id.n", "", "managed", "random_id", "n", None, RANDOM,
                                       ACTIONS_CREATE, None, {"v": float("nan")}))
    with pytest.raises(PlanFileError, match="cannot save the plan"):
        save_plan(plan, tmp_path / "tfplan")
    assert list(tmp_path.iterdir()) == []


def test_saving_builds_a_configuration_it_does_not_keep(tmp_path: Path) -> None:
    plan = rich_plan()
    built: list[int] = []
    plan.configuration_later = lambda: built.append(1) or {"root_module": {}}
    save_plan(plan, tmp_path / "tfplan")
    assert built == [1] and plan.configuration_later is not None and plan.configuration == {}
    assert load_plan(tmp_path / "tfplan").configuration_json() == {"root_module": {}}


def test_a_no_op_change_loads_as_one_object_and_other_changes_keep_both(tmp_path: Path) -> None:
    same = {"id": "s", "tags": {"a": "1"}, "n": 1}
    plan = rich_plan()
    plan.changes.append(ResourceChange("random_id.s", "", "managed", "random_id", "s", None, RANDOM,
                                       ("no-op",), same, same))
    plan.changes.append(ResourceChange("random_id.u", "", "managed", "random_id", "u", None, RANDOM,
                                       ACTIONS_UPDATE, {"flag": 1}, {"flag": True}))
    save_plan(plan, tmp_path / "tfplan")
    loaded = load_plan(tmp_path / "tfplan")
    noop, update = loaded.changes[-2], loaded.changes[-1]
    assert noop.after is noop.before and noop.after == same
    assert type(update.before["flag"]) is int and update.after["flag"] is True
