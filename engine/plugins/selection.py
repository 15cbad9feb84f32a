"""Which implementation serves each provider a configuration requires: its native adapter or its plugin.

One provider, one implementation, as under Terraform: when a plugin is selected for a provider it
serves every type of that provider, and the native adapter serves none of them; a native adapter
serves a provider only when no plugin is selected for it. Mixing the two within one provider gave
two clients for one ``provider`` block, two schemas for one type name depending on its arguments,
and states whose private data and defaults depended on which side wrote them.

The choice, made by ``ctl init`` and recorded (``record.py``), per provider:

- ``-native=false``: the plugin, for every provider.
- The native adapter (same source address) lacks a type the configuration uses, or an argument or
  block one of its types is given: the plugin, whatever the switch says (nothing else could serve it).
- ``-native=true``: otherwise the native adapter.
- Unset (the default): the plugin when one is at hand, meaning a ``-plugin-dir`` directory holds a
  version the constraints allow, or the last ``ctl init`` selected the plugin (it stays, so a
  re-init never switches implementations behind the user's back); otherwise the native adapter,
  the zero-install path (``make demo``, offline use).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from adapters.plugin.spec import PluginSpec
from adapters.registry import Registry
from engine.install.installer import Installed
from engine.install.requirements import Requirement
from engine.install.sources import FilesystemMirror
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry
from vocab.errors import CtlError
from vocab.providers import host_os_arch
from vocab.versions import Constraints


@dataclass(frozen=True)
class Selected:
    """One provider init chose: what to record, and where it came from (for init's report)."""

    entry: PluginEntry
    spec: PluginSpec
    found_in: str


def native_covers(req: Requirement, native: Registry) -> bool:
    """Whether the native adapter of the same source has every type and argument the configuration uses."""
    served = native.provider(req.local_name)
    if served is None or served.source != str(req.source):
        return False
    for mode, type_name in req.types:
        rt = native.resource_type(type_name, mode)
        if rt is None:
            return False
        if not req.arguments.get((mode, type_name), set()) <= set(rt.schema.get("properties", {})):
            return False
    return True


def wants_plugin(req: Requirement, native: Registry, use_native: bool | None, at_hand: bool) -> bool:
    """The rule of the module docstring; ``at_hand``: a plugin directory holds it, or init chose it before."""
    if use_native is False or not native_covers(req, native):
        return True
    return use_native is None and at_hand


def offered_by(dirs: Iterable[str], req: Requirement) -> bool:
    """Whether one of the plugin directories holds a version of the provider its constraints allow."""
    try:
        constraints = Constraints.parse(req.constraint_text or None)
    except CtlError:
        return False  # installing reports the bad constraint where it is written
    os_arch = host_os_arch()
    for directory in dirs:
        versions = FilesystemMirror(Path(directory)).versions(req.source, os_arch)
        if constraints.newest(versions) is not None:
            return True
    return False


def select(root_dir: Path, req: Requirement, installed: Installed) -> Selected:
    """Record the installed package: its executable, checksum and (cached) schema."""
    executable = installed.executable
    if not os.access(executable, os.X_OK):
        raise CtlError(f"the provider binary {executable} is not executable",
                       hint=f"chmod +x {executable}, then run `ctl init` again.")
    sha = installed.executable_sha256 or schema_cache.sha256_of(executable)
    source = str(req.source)
    doc = schema_cache.cached(root_dir, sha, source)
    if doc is None:
        doc = schema_cache.read_from_binary(root_dir, executable, sha, source)
    elif doc["format"] != schema_cache.CACHE_FORMAT:  # an older entry: rewritten, no need to start the binary
        doc = schema_cache.write(root_dir, sha, int(doc["protocol"]), doc["schema"], source)
    info = executable.stat()
    entry = PluginEntry(req.local_name, str(req.source), str(installed.version), req.constraint_text,
                        str(executable), sha, info.st_size, info.st_mtime_ns, int(doc["protocol"]))
    return Selected(entry, spec_of(entry, doc["schema"]), installed.origin)


def spec_of(entry: PluginEntry, schema: dict[str, object]) -> PluginSpec:
    return PluginSpec(local_name=entry.local_name, source=entry.source, version=entry.version,
                      executable=Path(entry.executable), sha256=entry.sha256, protocol=entry.protocol,
                      schema=dict(schema))
