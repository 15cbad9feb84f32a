"""The adapter contract suite: what every resource type and data source must do.

Every adapter — the local ones here, the cloud ones later — runs the same checks, so the engine
can rely on them (see the contract in ``adapters/base.py``). To use it, subclass in a test module
and name the subclass ``Test…`` so pytest collects it::

    class TestLocalFileContract(ResourceContract):
        provider = local.PROVIDER
        type_name = "local_file"

        def samples(self, workdir: Path) -> list[dict[str, Any]]:
            return [{"filename": "a.txt", "content": "hello"}]

``samples`` returns configurations (arguments only, as a user would write them); it may create
whatever they need under ``workdir``, which is also the adapter's configuration directory.
Cloud adapters run the same classes against a real endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from jsonschema import Draft202012Validator

from adapters.base import AdapterContext, Provider, ResourceType
from adapters.equivalence import same_for_plan
from engine.state.journal import planned_identity
from vocab.values import contains_unknown, deep_unmark, is_unknown


class _SchemaChecks:
    """Checks on the declared schema, shared by resources and data sources."""

    provider: ClassVar[Provider]
    type_name: ClassVar[str]
    mode: ClassVar[str] = "managed"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        raise NotImplementedError("a contract subclass lists sample configurations")

    @pytest.fixture
    def rt(self) -> ResourceType:
        types = self.provider.resources if self.mode == "managed" else self.provider.data_sources
        assert self.type_name in types, f"{self.provider.name} has no {self.mode} type {self.type_name}"
        return types[self.type_name]

    @pytest.fixture
    def ctx(self, tmp_path: Path) -> AdapterContext:
        return AdapterContext(
            provider_config={},
            client=self.provider.configure({}, tmp_path),
            workdir=tmp_path,
            address=f"{'data.' if self.mode == 'data' else ''}{self.type_name}.contract",
        )

    def test_schema_is_a_valid_json_schema(self, rt: ResourceType) -> None:
        Draft202012Validator.check_schema(rt.schema)

    def test_schema_declares_every_special_attribute(self, rt: ResourceType) -> None:
        props = set(rt.schema.get("properties", {}))
        assert rt.name == self.type_name
        assert rt.mode == self.mode
        assert rt.name.startswith(self.provider.name + "_")
        assert rt.schema.get("type") == "object"
        assert rt.schema.get("additionalProperties") is False
        assert set(rt.schema.get("required", [])) <= props
        assert rt.computed <= props, "computed attributes missing from the schema"
        assert rt.replace_on <= props, "replace_on names attributes missing from the schema"
        assert rt.sensitive <= props, "sensitive attributes missing from the schema"
        assert rt.id_attribute in props

    def test_replace_on_names_arguments_only(self, rt: ResourceType) -> None:
        read_only = {k for k, v in rt.schema["properties"].items() if v.get("readOnly")}
        assert not (rt.replace_on & read_only)
        assert read_only <= rt.computed, "a read-only attribute the adapter never sets"

    def test_samples_are_valid_configurations(self, rt: ResourceType, tmp_path: Path) -> None:
        validator = Draft202012Validator(rt.schema)
        samples = self.samples(tmp_path)
        assert samples, "the contract needs at least one sample configuration"
        for sample in samples:
            errors = [e.message for e in validator.iter_errors(sample)]
            assert not errors, f"sample {sample} does not match the schema: {errors}"


class ResourceContract(_SchemaChecks):
    """The contract of a managed resource type.

    ``state_only``: the object exists only in state (random values, sleeps), so refresh after
    delete still returns the state instead of None. ``nullable_computed``: computed attributes
    that may legitimately stay null after create (e.g. an optional library is missing).
    """

    state_only: ClassVar[bool] = False
    nullable_computed: ClassVar[frozenset[str]] = frozenset()

    @pytest.fixture
    def created(
        self, rt: ResourceType, ctx: AdapterContext
    ) -> Iterator[list[tuple[dict[str, Any], dict[str, Any]]]]:
        """Each sample planned and created as the engine would; deleted again afterwards."""
        made: list[tuple[dict[str, Any], dict[str, Any]]] = []
        try:
            for sample in self.samples(Path(ctx.workdir)):
                planned = rt.plan(ctx, None, dict(sample))
                made.append((sample, rt.create(ctx, planned)))
            yield made
        finally:
            for _, state in made:
                rt.delete(ctx, state)

    def test_plan_for_create_leaves_computed_attributes_unknown_or_known(
        self, rt: ResourceType, ctx: AdapterContext
    ) -> None:
        props = set(rt.schema["properties"])
        for sample in self.samples(Path(ctx.workdir)):
            planned = rt.plan(ctx, None, dict(sample))
            assert set(planned) <= props, f"plan invents attributes: {set(planned) - props}"
            for name in rt.computed - set(sample):
                assert name in planned, f"plan drops computed attribute {name}"
            assert is_unknown(planned[rt.id_attribute]), "a new object's id is known only after apply"

    def test_create_returns_only_declared_attributes(self, rt: ResourceType, created: list) -> None:
        props = set(rt.schema["properties"])
        for _, state in created:
            assert set(state) <= props, f"create returns undeclared attributes: {set(state) - props}"

    def test_computed_attributes_are_set_after_create(self, rt: ResourceType, created: list) -> None:
        for sample, state in created:
            assert not contains_unknown(state), f"unknown values left after create: {state}"
            for name in rt.computed - self.nullable_computed:
                assert state.get(name) is not None, f"{name} not set after creating {sample}"

    def test_state_after_create_matches_the_schema(self, rt: ResourceType, created: list) -> None:
        validator = Draft202012Validator(rt.schema)
        for _, state in created:
            plain, _ = deep_unmark(state)
            errors = [e.message for e in validator.iter_errors(plain)]
            assert not errors, f"state {plain} does not match the schema: {errors}"

    def test_create_keeps_configured_arguments(self, rt: ResourceType, created: list) -> None:
        """Each configured argument is in state as configured, or spelled as its provider spells the
        same value (an unset member as ``""``: ``adapters.equivalence.same_for_plan``)."""
        props = rt.schema.get("properties", {})
        for sample, state in created:
            for name, value in sample.items():
                assert state[name] == value or same_for_plan(props.get(name, {}), value, state[name]), \
                    f"{name}: configured {value!r}, state has {state[name]!r}"

    def test_read_after_create_round_trips(
        self, rt: ResourceType, ctx: AdapterContext, created: list
    ) -> None:
        for _, state in created:
            assert rt.read(ctx, dict(state)) == state

    def test_plan_without_changes_keeps_computed_values(
        self, rt: ResourceType, ctx: AdapterContext, created: list
    ) -> None:
        for sample, state in created:
            again = rt.plan(ctx, state, dict(sample))
            for name in rt.computed:
                assert again[name] == state[name], f"{name} would change on a no-op plan"

    def test_read_after_delete_reports_gone(
        self, rt: ResourceType, ctx: AdapterContext, created: list
    ) -> None:
        for _, state in created:
            rt.delete(ctx, state)
            after = rt.read(ctx, dict(state))
            if self.state_only:
                assert after == state, "a state-only object refreshes to its state"
            else:
                assert after is None, "read must return None once the object is deleted"

    def test_delete_is_idempotent(self, rt: ResourceType, ctx: AdapterContext, created: list) -> None:
        for _, state in created:
            rt.delete(ctx, state)
            rt.delete(ctx, state)  # already gone: must succeed

    def test_state_only_flag_matches_the_contract(self, rt: ResourceType) -> None:
        assert rt.state_only == self.state_only, "state_only tells recovery whether there is anything to find"

    def test_find_by_planned_identity_finds_the_created_object(
        self, rt: ResourceType, ctx: AdapterContext, created: list
    ) -> None:
        """What recovery after a crash relies on: the journaled identity leads back to the object."""
        for position, (sample, state) in enumerate(created):
            identity = planned_identity(rt.plan(ctx, None, dict(sample)))
            assert identity is not None
            if self.state_only:
                assert not rt.findable(ctx, identity)
                assert rt.find(ctx, identity) is None
                continue
            if position == 0:  # the first sample names its object (the others may not, e.g. a prefix)
                assert rt.findable(ctx, identity), f"{sample} names an object, but find cannot look for it"
            found = rt.find(ctx, identity)
            if rt.findable(ctx, identity):
                assert found is not None, f"find did not find the object created from {sample}"
                assert found[rt.id_attribute] == state[rt.id_attribute]
                assert set(found) <= set(rt.schema["properties"])
            else:
                assert found is None

    def test_find_after_delete_finds_nothing(self, rt: ResourceType, ctx: AdapterContext, created: list) -> None:
        for sample, state in created:
            rt.delete(ctx, state)
            assert rt.find(ctx, planned_identity(rt.plan(ctx, None, dict(sample))) or {}) is None


class DataSourceContract(_SchemaChecks):
    """The contract of a data source: ``read`` of a configuration returns the full attributes."""

    mode: ClassVar[str] = "data"

    def test_read_returns_declared_and_computed_attributes(
        self, rt: ResourceType, ctx: AdapterContext
    ) -> None:
        props = set(rt.schema["properties"])
        validator = Draft202012Validator(rt.schema)
        for sample in self.samples(Path(ctx.workdir)):
            got = rt.read(ctx, dict(sample))
            assert got is not None
            assert set(got) <= props, f"read returns undeclared attributes: {set(got) - props}"
            assert not contains_unknown(got)
            for name in rt.computed:
                assert got.get(name) is not None, f"{name} not set by read"
            for name, value in sample.items():
                assert got[name] == value
            assert not [e.message for e in validator.iter_errors(deep_unmark(got)[0])]

    def test_read_is_repeatable(self, rt: ResourceType, ctx: AdapterContext) -> None:
        for sample in self.samples(Path(ctx.workdir)):
            assert rt.read(ctx, dict(sample)) == rt.read(ctx, dict(sample))
