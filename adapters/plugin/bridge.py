"""A provider plugin behind ctl's adapter interface: the engine sees one kind of provider.

``provider_from_spec`` turns what ``ctl init`` recorded and the cached schema (``PluginSpec``) into an
``adapters.base.Provider`` whose resource types and data sources are built from the cached schema,
so validation and completion need no process. The process starts when the engine configures the
provider (one per provider configuration, shared by its resources, called from the walker's worker
threads), and each operation is one or two RPCs: plan is PlanResourceChange, create/update/delete are
ApplyResourceChange, refresh is UpgradeResourceState then ReadResource, import is
ImportResourceState then ReadResource, a data source is ReadDataSource.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from adapters.base import ArgumentProblem, Provider, ResourceType
from adapters.plugin.dynamic_value import msgpack_of
from adapters.plugin.functions import ProviderFunctions
from adapters.plugin.msgpack_codec import encode
from adapters.plugin.outcome import raise_for, sensitive_texts
from adapters.plugin.resource_type import PluginResourceType, argument_problem
from adapters.plugin.schema_json import schema_from_json
from adapters.plugin.session import PluginSession
from adapters.plugin.spec import PluginSpec
from vocab.conversion.value_errors import PluginValueError
from vocab.errors import CtlError, Diagnostic, SourceRange
from vocab.schema.decode import ConfigShapeError, normalize_config
from vocab.schema.form import Schema, implied_type, mark_sensitive


class PluginProvider(Provider):
    """A provider served by a plugin binary; ``configure`` starts and configures its process."""

    spec: PluginSpec
    provider_schema: Schema
    functions: ProviderFunctions

    def configure(self, config: dict[str, Any], workdir: Path) -> PluginSession:
        from adapters.plugin.client import PluginClient

        what = f'provider "{self.name}" ({self.source} v{self.spec.version})'
        block = self.provider_schema.block
        try:
            shaped = normalize_config(block, config)
        except ConfigShapeError as err:
            raise CtlError(f"{what}: {err.summary}", hint=err.hint) from None
        value_type = implied_type(block)
        value, _ = encode(shaped, value_type)
        # What the provider says about its configuration must not show a sensitive argument's value
        # (a token, a password), in a warning as in an error.
        secrets = sensitive_texts(mark_sensitive(block, shaped))
        warnings: list[Diagnostic] = []

        def warn(summary: str, detail: str, range: SourceRange | None = None) -> None:
            warnings.append(Diagnostic("warning", f"{what}: {summary}", detail=detail, range=range))

        client = PluginClient.launch(str(self.spec.executable), name=self.source, cwd=str(workdir))
        try:
            checked = client.validate_provider_config(value)
            raise_for(checked.diagnostics, what, warn=warn, secrets=secrets)
            prepared = checked.prepared_config
            configured = value if prepared is None else msgpack_of(prepared, value_type)
            raise_for(client.configure_provider(configured), what, warn=warn, secrets=secrets)
        except BaseException:
            client.close()
            raise
        return PluginSession(client=client, description=what, warnings=warnings)

    def validate_arguments(self, workdir: Path, configs: Sequence[tuple[ResourceType, dict[str, Any]]],
                           provider_configs: Sequence[dict[str, Any]] = (),
                           ) -> tuple[list[list[ArgumentProblem]], list[list[ArgumentProblem]]]:
        """One provider process, started for the checks and stopped after them, never configured
        (as under Terraform's validate); each provider block checked by ValidateProviderConfig, each
        resource config by the call of its kind."""
        from adapters.plugin.client import PluginClient

        if not configs and not provider_configs:
            return [], []
        out: list[list[ArgumentProblem]] = []
        own: list[list[ArgumentProblem]] = []
        with PluginClient.launch(str(self.spec.executable), name=self.source, cwd=str(workdir)) as client:
            for config in provider_configs:
                own.append(self._validate_own(client, config))
            for rt, config in configs:
                out.append(rt.validate_with(client, config) if isinstance(rt, PluginResourceType) else [])
        return out, own

    def _validate_own(self, client: Any, config: dict[str, Any]) -> list[ArgumentProblem]:
        """ValidateProviderConfig of one provider block, unknown values and all; a block whose shape
        the schema refuses is not sent (the argument check reports its names)."""
        block = self.provider_schema.block
        try:
            shaped = normalize_config(block, config)
        except PluginValueError:
            return []
        value, _ = encode(shaped, implied_type(block))
        # As in configure: the provider's words never show a sensitive argument's value, nor a value a
        # sensitive variable gave it.
        secrets = sensitive_texts(shaped) | sensitive_texts(mark_sensitive(block, shaped))
        return [argument_problem(d, secrets) for d in client.validate_provider_config(value).diagnostics]

    def release(self, client: Any) -> None:
        """Stop the provider process gracefully (go-plugin's Shutdown), then reap it."""
        if isinstance(client, PluginSession):
            client.close()


def provider_from_spec(spec: PluginSpec) -> PluginProvider:
    """The provider ``spec`` describes, its types built from the recorded schema (no process)."""
    doc = spec.schema
    provider_schema = schema_from_json(doc.get("provider") or {"version": 0, "block": {}})
    provider = PluginProvider(name=spec.local_name, source=spec.source)
    provider.spec = spec
    provider.provider_schema = provider_schema
    provider.functions = ProviderFunctions(spec)
    provider.resources = BuiltOnUse("managed", doc.get("resource_schemas") or {})
    provider.data_sources = BuiltOnUse("data", doc.get("data_source_schemas") or {})
    return provider


class BuiltOnUse(Mapping[str, ResourceType]):
    """A provider's resource types (or data sources) by name, each built from its schema the first
    time it is looked up.

    A large provider describes thousands of types and a configuration uses a handful; building them
    all (schema, value type, argument checks) was most of every command's start with such a
    provider. Names and iteration come from the recorded schema without building anything; a type
    is built at most once, also when walker threads look it up together. A type's schema may be
    given as its JSON text (as the schema cache holds it), decoded only when the type is built.
    """

    def __init__(self, mode: str, schemas: dict[str, Any]) -> None:
        self._mode = mode
        self._schemas = schemas
        self._built: dict[str, ResourceType] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> ResourceType:
        built = self._built.get(name)
        if built is not None:
            return built
        schema_doc = self._schemas[name]  # KeyError for a name the provider does not have
        with self._lock:
            built = self._built.get(name)
            if built is None:
                decoded = json.loads(schema_doc) if isinstance(schema_doc, str) else schema_doc
                built = self._built[name] = PluginResourceType.build(name, self._mode, schema_from_json(decoded))
        return built

    def __contains__(self, name: object) -> bool:
        return name in self._schemas

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._schemas))

    def __len__(self) -> int:
        return len(self._schemas)
