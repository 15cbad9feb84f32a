"""Choosing a binary for each provider requirement that the native adapters cannot serve alone.

The rule between native adapters and plugins: with native adapters on (the default), a provider
whose every used type has a native adapter of the same source needs no plugin at all (the fast
path, and no binary to install); otherwise the plugin is selected and serves the types the native
adapter lacks, while the native adapter keeps the types it has. A type counts as lacking when the
configuration gives it an argument or block the native adapter does not know (a newer provider's
``inline_policy``, say): the plugin serves that type, and init records the hand-over so every
later command agrees. ``ctl init -native=false``
(``CTL_NATIVE_ADAPTERS=0``) turns native adapters off for providers that have a plugin, so the
plugin serves every type, exactly as under Terraform.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from adapters.plugin.spec import PluginSpec
from adapters.registry import Registry
from engine.errors import CtlError
from engine.install.installer import Installed
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry
from engine.plugins.requirements import Requirement


@dataclass(frozen=True)
class Selected:
    """One provider init chose: what to record, and where it came from (for init's report)."""

    entry: PluginEntry
    spec: PluginSpec
    found_in: str


def needs_plugin(req: Requirement, native: Registry, use_native: bool) -> bool:
    served = native.provider(req.local_name)
    if not use_native or served is None or served.source != str(req.source):
        return True
    missing = any(native.resource_type(type_name, mode) is None for mode, type_name in req.types)
    return missing or bool(handed_over(req, native, use_native))


def handed_over(req: Requirement, native: Registry, use_native: bool) -> frozenset[str]:
    """Types the native adapter has but cannot serve as configured: it lacks an argument they are given."""
    served = native.provider(req.local_name)
    if not use_native or served is None or served.source != str(req.source):
        return frozenset()
    out = set()
    for (mode, type_name), names in req.arguments.items():
        rt = native.resource_type(type_name, mode)
        if rt is not None and not names <= set(rt.schema.get("properties", {})):
            out.add(type_name if mode == "managed" else f"data.{type_name}")
    return frozenset(out)


def native_types(local_name: str, source: str, native: Registry, use_native: bool,
                 handed: Iterable[str] = ()) -> frozenset[str]:
    """The types the native adapter keeps when a plugin serves the rest (data sources as ``data.NAME``)."""
    served = native.provider(local_name)
    if not use_native or served is None or served.source != source:
        return frozenset()
    return (frozenset(served.resources) | frozenset(f"data.{n}" for n in served.data_sources)) - set(handed)


def select(root_dir: Path, req: Requirement, installed: Installed, native: Registry, use_native: bool) -> Selected:
    """Record the installed package: its executable, checksum and (cached) schema."""
    executable = installed.executable
    if not os.access(executable, os.X_OK):
        raise CtlError(f"the provider binary {executable} is not executable",
                       hint=f"chmod +x {executable}, then run `ctl init` again.")
    sha = schema_cache.sha256_of(executable)
    doc = schema_cache.cached(root_dir, sha) or schema_cache.read_from_binary(root_dir, executable, sha,
                                                                           str(req.source))
    info = executable.stat()
    handed = tuple(sorted(handed_over(req, native, use_native)))
    entry = PluginEntry(req.local_name, str(req.source), str(installed.version), req.constraint_text,
                        str(executable), sha, info.st_size, info.st_mtime_ns, int(doc["protocol"]), handed)
    kept = native_types(req.local_name, str(req.source), native, use_native, handed)
    return Selected(entry, spec_of(entry, doc["schema"], kept), installed.origin)


def spec_of(entry: PluginEntry, schema: dict[str, object], native: frozenset[str]) -> PluginSpec:
    return PluginSpec(local_name=entry.local_name, source=entry.source, version=entry.version,
                      executable=Path(entry.executable), sha256=entry.sha256, protocol=entry.protocol,
                      schema=dict(schema), native_types=native)
