"""One resource type or data source of a provider plugin, as the engine's ``ResourceType``.

Every operation encodes ctl's values with the schema's implied type, makes the RPC, turns the
provider's diagnostics into errors with the address and attribute path, and decodes the answer
with the schema's sensitive attributes marked. ``ctx.client`` is the ``PluginSession`` of the
resource's provider configuration.
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterContext, AdapterError, ArgumentProblem, ResourceType
from adapters.plugin.config_shape import proposed_new
from adapters.plugin.consistency import check_applied, check_planned, unknowns_as_null
from adapters.plugin.diagnostics import AttributeStep, PluginDiagnostic
from adapters.plugin.dynamic_value import decode_dynamic_value, msgpack_of
from adapters.plugin.msgpack_codec import encode
from adapters.plugin.outcome import KeptProviderErrors, raise_for, safe_text, sensitive_texts
from adapters.plugin.results import DynamicValue
from adapters.plugin.session import PlannedInstance, PluginSession
from vocab.conversion.convert import with_collection_kinds
from vocab.conversion.value_errors import PluginValueError
from vocab.schema.decode import ConfigShapeError, normalize_config
from vocab.schema.form import (
    Block,
    Schema,
    computed_attributes,
    contains_sensitive,
    implied_type,
    mark_sensitive,
)
from vocab.types import CtyType
from vocab.values import UNKNOWN, Unknown, deep_unmark


class PluginResourceType(ResourceType):
    """Built from a provider schema by ``build``; all behaviour is the provider's."""

    block: Block
    value_type: CtyType
    remote_plan = True  # every plan is an RPC: a resource's instances are planned concurrently

    @classmethod
    def build(cls, type_name: str, mode: str, schema: Schema) -> PluginResourceType:
        rt = cls()
        rt.name, rt.mode = type_name, mode
        rt.block, rt.value_type = schema.block, implied_type(schema.block)
        rt.schema_version = schema.version
        rt.computed = computed_attributes(schema.block) | _blocks_with_computed(schema.block)
        rt.sensitive = frozenset(a.name for a in schema.block.attributes if a.sensitive)
        return rt

    # -- values ------------------------------------------------------------------------------

    def _encode(self, value: Any) -> bytes:
        data, _ = encode(value, self.value_type)
        return data

    def _decode(self, answer: DynamicValue | None) -> dict[str, Any] | None:
        value = decode_dynamic_value(answer, self.value_type)
        return None if value is None else mark_sensitive(self.block, value)

    def _resend(self, answer: DynamicValue) -> bytes:
        """A value the provider answered with, as msgpack for the next call that hands it back."""
        return msgpack_of(answer, self.value_type)

    def _config(self, ctx: AdapterContext, config: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        try:
            shaped = normalize_config(self.block, config)
        except ConfigShapeError as err:
            raise AdapterError(f"{ctx.address}: {err.summary}", address=ctx.address) from None
        if contains_sensitive(self.block):  # what the provider says must not show these arguments' values
            ctx.secrets = ctx.secrets | sensitive_texts(mark_sensitive(self.block, shaped))
        return shaped, self._encode(shaped)

    def from_state(self, attributes: dict[str, Any]) -> dict[str, Any]:
        typed: dict[str, Any] = with_collection_kinds(attributes, self.value_type)
        return typed

    def validate_with(self, client: Any, config: dict[str, Any]) -> list[ArgumentProblem]:
        """The provider's ValidateResourceConfig (or ValidateDataResourceConfig) of ``config`` on a
        running, unconfigured provider: its problems, each at the argument path it names. A config
        the schema check refuses is not sent (that check reported it). What the provider says is
        shown as a plan shows it: sensitive arguments' values cut out, control characters escaped."""
        try:
            shaped = normalize_config(self.block, config)
        except PluginValueError:
            return []
        value = self._encode(shaped)
        if self.mode == "data":
            diagnostics = client.validate_data_resource_config(self.name, value)
        else:
            diagnostics = client.validate_resource_config(self.name, value)
        secrets = sensitive_texts(shaped) | sensitive_texts(mark_sensitive(self.block, shaped))
        return [argument_problem(d, secrets) for d in diagnostics]

    def _check(self, ctx: AdapterContext, diagnostics: list[PluginDiagnostic]) -> None:
        raise_for(diagnostics, ctx.address, address=ctx.address, warn=ctx.warn, resource=ctx.resource,
                  secrets=ctx.secrets)

    @staticmethod
    def _session(ctx: AdapterContext) -> PluginSession:
        if not isinstance(ctx.client, PluginSession):
            raise AdapterError(f"{ctx.address}: the provider plugin is not configured for this resource",
                               address=ctx.address or None)
        return ctx.client

    # -- plan ----------------------------------------------------------------------------------

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        """ValidateResourceConfig, then PlanResourceChange from the proposed new state."""
        session = self._session(ctx)
        shaped, config = self._config(ctx, planned)
        if self.mode == "data":
            # A read that waits for apply: its provider checks the configuration then, once it is
            # known (``read``), as Terraform's does; checked now, a value not known yet can make a
            # conflict between arguments look certain.
            return _unknown_computed(self.block, shaped)
        self._check(ctx, session.client.validate_resource_config(self.name, config))
        prior_bytes = None if prior is None else self._encode(prior)
        proposed = self._encode(proposed_new(self.block, prior, shaped))
        answer = session.client.plan_resource_change(self.name, prior_bytes, proposed, config,
                                                     prior_private=ctx.private if prior is not None else b"")
        self._check(ctx, answer.diagnostics)
        if answer.planned_state is None:
            raise AdapterError(f"{ctx.address}: the provider planned no object", address=ctx.address)
        paths = [[s.name if isinstance(s, AttributeStep) else s.key for s in p] for p in answer.requires_replace]
        planned_bytes = self._resend(answer.planned_state)
        session.remember(ctx.address, PlannedInstance(config, planned_bytes, answer.planned_private, paths))
        result = self._decode(answer.planned_state)
        assert result is not None
        check_planned(self.block, ctx.address, session.client.process.name, prior, shaped, result,
                      answer.legacy_type_system)
        return result

    def requires_replace(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any],
                         changed: list[str]) -> list[list[str | int]]:
        """The provider's RequiresReplace paths whose values actually change, as Terraform keeps them."""
        remembered = self._session(ctx).recall(ctx.address)
        if remembered is None:
            return []
        return [p for p in remembered.requires_replace if _at(prior, p) != _at(planned, p)]

    # -- apply ---------------------------------------------------------------------------------

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        return self._apply(ctx, None)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self._apply(ctx, prior)

    def _apply(self, ctx: AdapterContext, prior: dict[str, Any] | None) -> dict[str, Any]:
        session = self._session(ctx)
        remembered = session.recall(ctx.address)
        if remembered is None:
            raise AdapterError(f"{ctx.address}: applied without a plan from its provider", address=ctx.address)
        prior_bytes = None if prior is None else self._encode(prior)
        provider = session.client.process.name
        planned = self._decode(DynamicValue(msgpack=remembered.planned))
        answer = session.client.apply_resource_change(
            self.name, prior_bytes, remembered.planned, remembered.config, remembered.private)
        result = self._decode(answer.new_state)
        ctx.new_private = answer.private
        errors = [d for d in answer.diagnostics if d.severity != "warning"]
        if errors and result is not None:
            # The provider made (part of) the object before failing: keep it, tainted, as Terraform does.
            raise KeptProviderErrors(ctx.address, errors, address=ctx.address, resource=ctx.resource, secrets=ctx.secrets,
                                     result=unknowns_as_null(result))
        self._check(ctx, answer.diagnostics)
        if result is None:
            raise AdapterError(f"{ctx.address}: the provider returned no object after applying",
                               address=ctx.address)
        return check_applied(self.block, ctx.address, provider, planned, result, answer.legacy_type_system)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        answer = self._session(ctx).client.apply_resource_change(self.name, self._encode(prior), None, None,
                                                                 ctx.private)
        self._check(ctx, answer.diagnostics)

    # -- read, import --------------------------------------------------------------------------

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        client = self._session(ctx).client
        if self.mode == "data":
            _, config = self._config(ctx, attrs)
            # As Terraform does before every read: the provider's own checks (a missing argument
            # its schema cannot express, a deprecation warning) come before the read can fail on them.
            self._check(ctx, client.validate_data_resource_config(self.name, config))
            answer = client.read_data_source(self.name, config)
            self._check(ctx, answer.diagnostics)
            return self._decode(answer.state)
        version = ctx.stored_schema_version if ctx.stored_schema_version is not None else self.schema_version
        upgraded = client.upgrade_resource_state(self.name, version, _json_ready(attrs))
        self._check(ctx, upgraded.diagnostics)
        if upgraded.state is None:
            return None
        answer = client.read_resource(self.name, self._resend(upgraded.state), ctx.private)
        self._check(ctx, answer.diagnostics)
        ctx.new_private = answer.private
        return self._decode(answer.state)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        client = self._session(ctx).client
        answer = client.import_resource_state(self.name, resource_id)
        self._check(ctx, answer.diagnostics)
        mine = [(r.state, r.private) for r in answer.resources if r.type_name == self.name and r.state is not None]
        if not mine:
            raise AdapterError(f"{ctx.address}: the provider imported nothing for id {resource_id!r}",
                               address=ctx.address)
        imported, private = mine[0]
        read = client.read_resource(self.name, self._resend(imported), private)
        self._check(ctx, read.diagnostics)
        ctx.private = ctx.new_private = read.private  # the refresh after an import passes it on
        result = self._decode(read.state)
        if result is None:
            raise AdapterError(f"{ctx.address}: no object with id {resource_id!r} exists", address=ctx.address,
                               hint="Check the id; the provider found nothing to import.")
        return result

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        """Plugins cannot look an object up by its arguments: recovery asks the user to import."""
        return None


def argument_problem(diagnostic: PluginDiagnostic, secrets: frozenset[str]) -> ArgumentProblem:
    """A provider's diagnostic about a configuration, at the attribute path it names, with the
    ``secrets`` cut out of its words."""
    path = tuple(step.name if isinstance(step, AttributeStep) else step.key for step in diagnostic.path or ())
    return ArgumentProblem(path, safe_text(diagnostic.summary, secrets), safe_text(diagnostic.detail, secrets),
                           severity=diagnostic.severity)


def _blocks_with_computed(block: Block) -> frozenset[str]:
    """Nested block types holding computed attributes: their planned values may be unknown."""
    return frozenset(b.type_name for b in block.block_types
                     if computed_attributes(b.block) or _blocks_with_computed(b.block))


def _unknown_computed(block: Block, shaped: dict[str, Any]) -> dict[str, Any]:
    """A data source read later: what the configuration sets, and unknown for the rest."""
    out = dict(shaped)
    for a in block.attributes:
        if a.computed and out.get(a.name) is None:
            out[a.name] = UNKNOWN
    return out


def _at(value: Any, path: list[str | int]) -> Any:
    for step in path:
        if isinstance(value, Unknown):
            return value
        if isinstance(value, dict):
            value = value.get(step) if isinstance(step, str) else None
        elif isinstance(value, list) and isinstance(step, int):
            value = value[step] if 0 <= step < len(value) else None
        else:
            return None
    return value


def _json_ready(attrs: dict[str, Any]) -> dict[str, Any]:
    """State attributes as Terraform's JSON state holds them (sets as lists, no wrappers)."""
    plain: dict[str, Any] = deep_unmark(attrs)[0]
    return plain
