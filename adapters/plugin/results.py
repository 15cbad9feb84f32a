"""What the provider calls return, free of protocol message classes.

Values sent to a provider are cty msgpack bytes; values it answers with are ``DynamicValue``s, its
msgpack or JSON bytes exactly as sent (``None`` when the response had no value, or a null one);
decoding them needs the schema's type, which the caller has (``dynamic_value.decode_dynamic_value``). ``deferred`` is the reason a
provider gave for postponing work (protocol 5.6+/6.6+), ``None`` when it did not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adapters.plugin.diagnostics import AttributePath, PluginDiagnostic

Value = bytes


@dataclass(frozen=True, slots=True)
class DynamicValue:
    """A value as a provider answered it: the protocol lets it use either encoding, and only the
    schema's type can read JSON (numbers, sets and dynamic values look alike there), so the bytes
    stay as they came until the caller, who has the type, decodes them."""

    msgpack: bytes = b""
    json: bytes = b""


@dataclass(frozen=True, slots=True)
class Metadata:
    server_capabilities: dict[str, bool]
    resources: list[str]
    data_sources: list[str]
    functions: list[str]
    ephemeral_resources: list[str]
    diagnostics: list[PluginDiagnostic] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ValidateProviderResult:
    diagnostics: list[PluginDiagnostic]
    prepared_config: DynamicValue | None = None  # protocol 5 only: the config with defaults filled in


@dataclass(frozen=True, slots=True)
class StateResult:
    """Upgrade, read and data-source reads: a new state (and private data) or diagnostics."""

    state: DynamicValue | None
    diagnostics: list[PluginDiagnostic]
    private: bytes = b""
    deferred: str | None = None


@dataclass(frozen=True, slots=True)
class PlannedChange:
    planned_state: DynamicValue | None
    requires_replace: list[AttributePath]
    planned_private: bytes
    legacy_type_system: bool
    diagnostics: list[PluginDiagnostic]
    deferred: str | None = None


@dataclass(frozen=True, slots=True)
class AppliedChange:
    new_state: DynamicValue | None
    private: bytes
    legacy_type_system: bool
    diagnostics: list[PluginDiagnostic]


@dataclass(frozen=True, slots=True)
class ImportedResource:
    type_name: str
    state: DynamicValue | None
    private: bytes


@dataclass(frozen=True, slots=True)
class ImportResult:
    resources: list[ImportedResource]
    diagnostics: list[PluginDiagnostic]
    deferred: str | None = None


@dataclass(frozen=True, slots=True)
class FunctionResult:
    """A provider function's result, or its error text and the argument it blames (0-based)."""

    result: DynamicValue | None
    error: str | None = None
    error_argument: int | None = None
