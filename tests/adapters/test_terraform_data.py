"""terraform_data: output follows input, triggers_replace replaces, the id stays across updates."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from adapters import terraform
from adapters.base import AdapterContext
from tests.adapters.contract import ResourceContract
from vocab.values import UNKNOWN, Marked, is_unknown

DATA = terraform.PROVIDER.resources["terraform_data"]


class TestTerraformDataContract(ResourceContract):
    provider = terraform.PROVIDER
    type_name = "terraform_data"
    state_only = True
    nullable_computed = frozenset({"output"})  # null exactly when input is null

    def samples(self, workdir: Any) -> list[dict[str, Any]]:
        return [
            {"input": "v1"},
            {"input": {"list": [1, 2.5, True, None], "map": {"k": "v"}}, "triggers_replace": ["a", 1]},
            {"triggers_replace": "only-a-trigger"},
        ]


@pytest.fixture
def ctx(tmp_path: Any) -> AdapterContext:
    return AdapterContext(provider_config={}, workdir=tmp_path, address="terraform_data.x")


def test_output_is_unknown_on_create_and_when_input_changes_as_in_terraform(ctx: AdapterContext) -> None:
    planned = DATA.plan(ctx, None, {"input": {"a": 1}})
    assert is_unknown(planned["output"]) and is_unknown(planned["id"])
    state = DATA.create(ctx, planned)
    assert state["output"] == {"a": 1}
    assert DATA.plan(ctx, state, {"input": {"a": 1}})["output"] == {"a": 1}  # unchanged: known
    assert is_unknown(DATA.plan(ctx, state, {"input": {"a": 2}})["output"])
    assert is_unknown(DATA.plan(ctx, state, {"input": UNKNOWN})["output"])


def test_create_copies_input_to_output_and_assigns_a_uuid(ctx: AdapterContext) -> None:
    first = DATA.create(ctx, DATA.plan(ctx, None, {"input": "hello"}))
    second = DATA.create(ctx, DATA.plan(ctx, None, {"input": "hello"}))
    assert first["output"] == "hello"
    assert uuid.UUID(first["id"]).version == 4
    assert first["id"] != second["id"]


def test_changing_input_updates_in_place_and_keeps_the_id(ctx: AdapterContext) -> None:
    state = DATA.create(ctx, DATA.plan(ctx, None, {"input": "v1", "triggers_replace": "t"}))
    planned = DATA.plan(ctx, state, {"input": "v2", "triggers_replace": "t"})
    assert planned["id"] == state["id"] and is_unknown(planned["output"])
    assert "input" not in DATA.replace_on
    updated = DATA.update(ctx, state, planned)
    assert updated == {"input": "v2", "triggers_replace": "t", "output": "v2", "id": state["id"]}


def test_changing_triggers_replace_forces_a_new_object(ctx: AdapterContext) -> None:
    state = DATA.create(ctx, DATA.plan(ctx, None, {"input": "v", "triggers_replace": ["r1"]}))
    assert DATA.replace_on == {"triggers_replace"}
    planned = DATA.plan(ctx, state, {"input": "v", "triggers_replace": ["r2"]})
    assert is_unknown(planned["id"])
    assert is_unknown(DATA.plan(ctx, state, {"input": "v", "triggers_replace": UNKNOWN})["id"])


def test_a_sensitive_input_gives_a_sensitive_output(ctx: AdapterContext) -> None:
    state = DATA.create(ctx, DATA.plan(ctx, None, {"input": Marked("s3cret")}))
    assert state["output"] == Marked("s3cret")


def test_import_takes_only_the_id(ctx: AdapterContext) -> None:
    assert DATA.import_(ctx, "abc") == {"id": "abc", "input": None, "output": None, "triggers_replace": None}


def test_provider_identity() -> None:
    assert terraform.PROVIDER.name == "terraform"
    assert terraform.PROVIDER.state_name() == 'provider["terraform.io/builtin/terraform"]'
