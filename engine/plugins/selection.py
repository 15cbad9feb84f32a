"""Which implementation serves each provider a configuration requires: its native adapter or its plugin.

One provider, one implementation, as under Terraform: when a plugin is selected for a provider it
serves every type of that provider, and the native adapter serves none of them; a native adapter
serves a provider only when no plugin is selected for it. Mixing the two within one provider gave
two clients for one ``provider`` block, two schemas for one type name depending on its arguments,
and states whose private data and defaults depended on which side wrote them.

The choice, made by ``ctl init`` and recorded (``record.py``), per provider (init starts no
provider: its schema is read by the first command that needs it, as under Terraform):

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
        settable = {name for name, prop in rt.schema.get("properties", {}).items()
                    if not (isinstance(prop, dict) and prop.get("readOnly"))}
        if not req.arguments.get((mode, type_name), set()) <= settable:
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
    """Record the installed package: its executable and checksum, without starting it.

    The protocol is recorded when a schema cached for this very binary says it (a re-init); a new
    binary's is learnt when a command first reads its schema, and shown from the cache from then on.
    """
    executable = installed.executable
    if not os.access(executable, os.X_OK):
        raise CtlError(f"the provider binary {executable} is not executable",
                       hint=f"chmod +x {executable}, then run `ctl init` again.")
    sha = installed.executable_sha256 or schema_cache.sha256_of(executable)
    info = executable.stat()
    entry = PluginEntry(req.local_name, str(req.source), str(installed.version), req.constraint_text,
                        str(executable), sha, info.st_size, info.st_mtime_ns,
                        schema_cache.protocol_of(root_dir, sha))
    return Selected(entry, installed.origin)
