"""`show -json`: Terraform's plan (format 1.2) and state shapes, with secrets masked by default."""

from __future__ import annotations

import json

from engine.plan.json_view import plan_to_json, state_to_json, value_shapes
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_NOOP,
    ACTIONS_REPLACE,
    ACTIONS_UPDATE,
    OutputChange,
    Plan,
    ResourceChange,
)
from engine.state.model import InstanceState, OutputValue, State
from vocab.values import UNKNOWN, Marked
from vocab.version import VERSION

RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'
LOCAL = 'provider["registry.terraform.io/hashicorp/local"]'


def change(
    address: str, actions: tuple[str, ...], before: dict | None, after: dict | None, **kw
) -> ResourceChange:
    rtype, name = address.split("[")[0].split(".")[-2:]
    fields = {
        "address": address,
        "module_address": kw.pop("module_address", ""),
        "mode": "managed",
        "type": rtype,
        "name": name,
        "index": kw.pop("index", None),
        "provider": kw.pop("provider", RANDOM),
        "actions": actions,
        "before": before,
        "after": after,
    }
    return ResourceChange(**fields, **kw)


def make_plan(changes: list[ResourceChange], **kw) -> Plan:
    return Plan(
        changes=changes,
        drift=kw.pop("drift", []),
        outputs=kw.pop("outputs", {}),
        prior_state=kw.pop("prior_state", State(serial=3, lineage="f0e1")),
        lineage="f0e1",
        serial=3,
        config_hash="abc",
        timestamp="2024-05-01T10:00:00Z",
        **kw,
    )


# -- top level ------------------------------------------------------------------------------------


def test_top_level_fields_are_terraforms_in_terraforms_order() -> None:
    prior = State(serial=3, lineage="f0e1")
    prior.set_instance("random_id.old", InstanceState(attributes={"id": "x"}))
    doc = plan_to_json(make_plan([change("random_id.a", ACTIONS_CREATE, None, {"byte_length": 4})], prior_state=prior))
    assert list(doc) == [
        "format_version",
        "terraform_version",
        "ctl_version",
        "variables",
        "planned_values",
        "resource_drift",
        "resource_changes",
        "output_changes",
        "prior_state",
        "configuration",
        "timestamp",
        "applyable",
        "complete",
        "errored",
    ]
    assert doc["format_version"] == "1.2"
    assert doc["terraform_version"] == "1.8.0"  # the first release whose plan document has every field here
    assert doc["ctl_version"] == VERSION
    assert doc["timestamp"] == "2024-05-01T10:00:00Z"
    assert (doc["applyable"], doc["complete"], doc["errored"]) == (True, True, False)
    assert doc["configuration"] == {}


def test_an_empty_prior_state_and_empty_sections_are_left_out_as_terraform_does() -> None:
    doc = plan_to_json(make_plan([change("random_id.a", ACTIONS_CREATE, None, {"byte_length": 4})]))
    assert "prior_state" not in doc and "relevant_attributes" not in doc and "checks" not in doc


def test_a_plan_without_changes_or_one_that_errored_is_not_applyable() -> None:
    noop = change("random_id.a", ACTIONS_NOOP, {"id": "x"}, {"id": "x"})
    assert plan_to_json(make_plan([noop]))["applyable"] is False
    errored = plan_to_json(make_plan([change("random_id.a", ACTIONS_CREATE, None, {})], errored=True))
    assert (errored["applyable"], errored["errored"]) == (False, True)


def test_configuration_is_passed_through() -> None:
    config = {"root_module": {"resources": [{"address": "random_id.a"}]}}
    assert plan_to_json(make_plan([]), configuration=config)["configuration"] == config


def test_the_whole_document_is_json_serialisable() -> None:
    c = change("random_id.a", ACTIONS_CREATE, None, {"id": UNKNOWN, "k": [UNKNOWN, Marked("s")]})
    json.dumps(plan_to_json(make_plan([c], variables={"v": Marked("x")})), allow_nan=False)


# -- resource_changes -----------------------------------------------------------------------------


def test_a_create_with_computed_attributes() -> None:
    c = change("random_id.suffix", ACTIONS_CREATE, None, {"byte_length": 4, "id": UNKNOWN, "keepers": None})
    assert plan_to_json(make_plan([c]))["resource_changes"] == [
        {
            "address": "random_id.suffix",
            "mode": "managed",
            "type": "random_id",
            "name": "suffix",
            "provider_name": "registry.terraform.io/hashicorp/random",
            "change": {
                "actions": ["create"],
                "before": None,
                "after": {"byte_length": 4, "keepers": None},
                "after_unknown": {"id": True},
                "before_sensitive": False,
                "after_sensitive": {},
            },
        }
    ]


def test_an_update_inside_a_module_with_a_count_index() -> None:
    c = change(
        "module.net.local_file.cfg[1]",
        ACTIONS_UPDATE,
        {"content": "a", "id": "1"},
        {"content": "b", "id": "1"},
        module_address="module.net",
        index=1,
        provider=LOCAL,
    )
    rc = plan_to_json(make_plan([c]))["resource_changes"][0]
    assert list(rc) == [
        "address",
        "module_address",
        "mode",
        "type",
        "name",
        "index",
        "provider_name",
        "change",
    ]
    assert rc["module_address"] == "module.net"
    assert rc["index"] == 1
    assert rc["change"] == {
        "actions": ["update"],
        "before": {"content": "a", "id": "1"},
        "after": {"content": "b", "id": "1"},
        "after_unknown": {},
        "before_sensitive": {},
        "after_sensitive": {},
    }


def test_a_for_each_key_is_a_string_index() -> None:
    c = change('random_id.a["blue"]', ACTIONS_CREATE, None, {}, index="blue")
    assert plan_to_json(make_plan([c]))["resource_changes"][0]["index"] == "blue"


def test_a_delete_with_its_reason() -> None:
    c = change(
        "random_id.old",
        ACTIONS_DELETE,
        {"id": "x", "hex": "ab"},
        None,
        action_reason="delete_because_no_resource_config",
    )
    rc = plan_to_json(make_plan([c]))["resource_changes"][0]
    assert rc["change"] == {
        "actions": ["delete"],
        "before": {"hex": "ab", "id": "x"},
        "after": None,
        "after_unknown": {},
        "before_sensitive": {},
        "after_sensitive": False,
    }
    assert rc["action_reason"] == "delete_because_no_resource_config"
    assert list(rc)[-1] == "action_reason"


def test_a_replace_lists_both_actions_and_the_paths_forcing_it() -> None:
    c = change(
        "local_file.cfg",
        ACTIONS_REPLACE,
        {"content": "a", "id": "3f"},
        {"content": "b", "id": UNKNOWN},
        replace_paths=[["content"]],
        action_reason="replace_because_cannot_update",
        provider=LOCAL,
    )
    rc = plan_to_json(make_plan([c]))["resource_changes"][0]
    assert rc["change"]["actions"] == ["delete", "create"]
    assert rc["change"]["replace_paths"] == [["content"]]
    assert rc["change"]["after"] == {"content": "b"}
    assert rc["change"]["after_unknown"] == {"id": True}
    assert rc["action_reason"] == "replace_because_cannot_update"


def test_a_moved_resource_names_its_previous_address() -> None:
    c = change("random_id.new", ACTIONS_NOOP, {"id": "x"}, {"id": "x"}, previous_address="random_id.old")
    rc = plan_to_json(make_plan([c]))["resource_changes"][0]
    assert list(rc)[:2] == ["address", "previous_address"]
    assert rc["previous_address"] == "random_id.old"
    assert rc["change"]["actions"] == ["no-op"]


def test_unknowns_nested_in_lists_and_objects() -> None:
    after = {
        "ports": [80, UNKNOWN],
        "meta": {"zone": UNKNOWN, "region": "eu"},
        "tags": {"a": "b"},
        "all": UNKNOWN,
    }
    ch = plan_to_json(make_plan([change("random_id.a", ACTIONS_CREATE, None, after)]))["resource_changes"][0]
    assert ch["change"]["after"] == {"ports": [80, None], "meta": {"region": "eu"}, "tags": {"a": "b"}}
    assert ch["change"]["after_unknown"] == {"ports": [False, True], "meta": {"zone": True}, "all": True}


def test_secrets_are_masked_but_their_places_are_reported() -> None:
    before = {"id": "1", "password": Marked("old-hunter2")}
    after = {"id": "1", "password": Marked("new-hunter2"), "nested": {"token": Marked("tok-9")}}
    doc = plan_to_json(make_plan([change("random_id.a", ACTIONS_UPDATE, before, after)]))
    ch = doc["resource_changes"][0]["change"]
    assert ch["before"] == {"id": "1", "password": "(sensitive value)"}
    assert ch["after"]["password"] == "(sensitive value)"
    assert ch["after"]["nested"] == {"token": "(sensitive value)"}
    assert ch["before_sensitive"] == {"password": True}
    assert ch["after_sensitive"] == {"password": True, "nested": {"token": True}}
    text = json.dumps(doc)
    assert "hunter2" not in text and "tok-9" not in text


def test_show_sensitive_prints_real_values() -> None:
    after = {"password": Marked("hunter2")}
    doc = plan_to_json(make_plan([change("random_id.a", ACTIONS_CREATE, None, after)]), show_sensitive=True)
    ch = doc["resource_changes"][0]["change"]
    assert ch["after"] == {"password": "hunter2"}
    assert ch["after_sensitive"] == {"password": True}


def test_drift_is_reported_in_resource_drift() -> None:
    d = change("random_id.a", ACTIONS_UPDATE, {"id": "1", "v": 1}, {"id": "1", "v": 2})
    doc = plan_to_json(make_plan([], drift=[d]))
    assert [r["address"] for r in doc["resource_drift"]] == ["random_id.a"]
    assert doc["resource_drift"][0]["change"]["after"] == {"id": "1", "v": 2}


# -- outputs and variables ------------------------------------------------------------------------


def test_output_changes() -> None:
    outputs = {
        "id": OutputChange("id", ACTIONS_CREATE, None, UNKNOWN),
        "name": OutputChange("name", ACTIONS_UPDATE, "a", "b"),
        "pw": OutputChange("pw", ACTIONS_CREATE, None, "hunter2", sensitive=True),
    }
    doc = plan_to_json(make_plan([], outputs=outputs))
    assert doc["output_changes"] == {
        "id": {
            "actions": ["create"],
            "before": None,
            "after": None,
            "after_unknown": True,
            "before_sensitive": False,
            "after_sensitive": False,
        },
        "name": {
            "actions": ["update"],
            "before": "a",
            "after": "b",
            "after_unknown": False,
            "before_sensitive": False,
            "after_sensitive": False,
        },
        "pw": {
            "actions": ["create"],
            "before": None,
            "after": "(sensitive value)",
            "after_unknown": False,
            "before_sensitive": True,
            "after_sensitive": True,
        },
    }
    assert "hunter2" not in json.dumps(doc)


def test_variables_are_listed_with_secrets_masked() -> None:
    doc = plan_to_json(make_plan([], variables={"region": "eu-west-1", "db_password": Marked("hunter2")}))
    assert doc["variables"] == {
        "region": {"value": "eu-west-1"},
        "db_password": {"value": "(sensitive value)"},
    }


# -- planned_values -------------------------------------------------------------------------------


def test_planned_values_nest_child_modules_and_skip_deleted_objects() -> None:
    changes = [
        change("random_id.root", ACTIONS_CREATE, None, {"byte_length": 4, "id": UNKNOWN}),
        change("random_id.gone", ACTIONS_DELETE, {"id": "x"}, None),
        change(
            "module.a.module.b.random_id.deep[0]",
            ACTIONS_CREATE,
            None,
            {"secret": Marked("hunter2")},
            module_address="module.a.module.b",
            index=0,
        ),
    ]
    outputs = {
        "known": OutputChange("known", ACTIONS_CREATE, None, "v"),
        "later": OutputChange("later", ACTIONS_CREATE, None, UNKNOWN),
        "pw": OutputChange("pw", ACTIONS_CREATE, None, "hunter2", sensitive=True),
        "removed": OutputChange("removed", ACTIONS_DELETE, "x", None),
    }
    pv = plan_to_json(make_plan(changes, outputs=outputs))["planned_values"]
    assert pv["outputs"] == {
        "known": {"sensitive": False, "type": "string", "value": "v"},
        "later": {"sensitive": False},
        "pw": {"sensitive": True, "type": "string", "value": "(sensitive value)"},
    }
    assert pv["root_module"] == {
        "resources": [
            {
                "address": "random_id.root",
                "mode": "managed",
                "type": "random_id",
                "name": "root",
                "provider_name": "registry.terraform.io/hashicorp/random",
                "schema_version": 0,
                "values": {"byte_length": 4},
                "sensitive_values": {},
            }
        ],
        "child_modules": [
            {
                "address": "module.a",
                "child_modules": [
                    {
                        "address": "module.a.module.b",
                        "resources": [
                            {
                                "address": "module.a.module.b.random_id.deep[0]",
                                "mode": "managed",
                                "type": "random_id",
                                "name": "deep",
                                "index": 0,
                                "provider_name": "registry.terraform.io/hashicorp/random",
                                "schema_version": 0,
                                "values": {"secret": "(sensitive value)"},
                                "sensitive_values": {"secret": True},
                            }
                        ],
                    }
                ],
            }
        ],
    }


# -- state ----------------------------------------------------------------------------------------


def test_an_empty_state_has_no_values() -> None:
    assert state_to_json(State(serial=0, lineage="x")) == {
        "format_version": "1.0",
        "terraform_version": "1.5.0",
        "ctl_version": "0.1.0",
    }


def test_state_values_representation() -> None:
    state = State(serial=2, lineage="x", outputs={"pw": OutputValue("hunter2", "string", True)})
    state.set_instance(
        'random_password.db["main"]',
        InstanceState.from_marked(
            {"id": "none", "result": Marked("hunter2"), "length": 16},
            dependencies=["random_id.a"],
        ),
    )
    state.set_instance(
        "module.net.local_file.cfg",
        InstanceState(attributes={"content": "hi"}, status="tainted"),
        provider=LOCAL,
    )
    doc = state_to_json(state)
    assert doc["values"] == {
        "outputs": {"pw": {"sensitive": True, "value": "(sensitive value)", "type": "string"}},
        "root_module": {
            "resources": [
                {
                    "address": 'random_password.db["main"]',
                    "mode": "managed",
                    "type": "random_password",
                    "name": "db",
                    "index": "main",
                    "provider_name": "registry.terraform.io/hashicorp/random",
                    "schema_version": 0,
                    "values": {"id": "none", "result": "(sensitive value)", "length": 16},
                    "sensitive_values": {"result": True},
                    "depends_on": ["random_id.a"],
                }
            ],
            "child_modules": [
                {
                    "address": "module.net",
                    "resources": [
                        {
                            "address": "module.net.local_file.cfg",
                            "mode": "managed",
                            "type": "local_file",
                            "name": "cfg",
                            "provider_name": "registry.terraform.io/hashicorp/local",
                            "schema_version": 0,
                            "values": {"content": "hi"},
                            "sensitive_values": {},
                            "tainted": True,
                        }
                    ],
                }
            ],
        },
    }
    assert "hunter2" not in json.dumps(doc)
    shown = state_to_json(state, show_sensitive=True)["values"]
    assert shown["outputs"]["pw"]["value"] == "hunter2"
    assert shown["root_module"]["resources"][0]["values"]["result"] == "hunter2"


def test_the_prior_state_is_embedded_in_the_plan() -> None:
    state = State(serial=3, lineage="f0e1")
    state.set_instance("random_id.a", InstanceState(attributes={"id": "x"}))
    doc = plan_to_json(make_plan([], prior_state=state))
    assert doc["prior_state"] == state_to_json(state)
    assert doc["prior_state"]["values"]["root_module"]["resources"][0]["address"] == "random_id.a"


# -- value_shapes ---------------------------------------------------------------------------------


def test_value_shapes_of_whole_values() -> None:
    assert value_shapes(UNKNOWN) == (None, True, False)
    assert value_shapes(Marked("s")) == ("(sensitive value)", False, True)
    assert value_shapes(Marked("s"), show_sensitive=True) == ("s", False, True)
    assert value_shapes(None) == (None, False, False)
    assert value_shapes({"a": 1}) == ({"a": 1}, {}, {})
    assert value_shapes([1, 2]) == ([1, 2], [False, False], [False, False])
    assert value_shapes(Marked({"a": 1})) == ("(sensitive value)", {}, True)


def test_an_object_shown_in_several_places_is_shown_the_same_as_separate_copies() -> None:
    """An unchanged instance's attributes are one object (before, after, planned value, prior
    state): walked once and shared, they must serialise exactly as equal copies do."""
    import copy

    attrs = {"id": "x", "tags": {"a": "1"}, "secret": Marked("s"), "list": [1, {"k": UNKNOWN}]}
    prior = State(serial=1, lineage="l")
    prior.set_instance("random_id.a", InstanceState.from_marked(attrs))
    shared = prior.instance("random_id.a").marked_attributes()
    one = make_plan([change("random_id.a", ACTIONS_NOOP, shared, shared)], prior_state=prior)
    apart = make_plan([change("random_id.a", ACTIONS_NOOP, copy.deepcopy(shared), copy.deepcopy(shared))],
                      prior_state=prior)
    for show_sensitive in (False, True):
        assert json.dumps(plan_to_json(one, show_sensitive=show_sensitive)) == json.dumps(
            plan_to_json(apart, show_sensitive=show_sensitive))
