"""The adapter registry a command runs with: native adapters plus the plugins ``ctl init`` recorded.

A recorded plugin replaces the native adapter of the same local name outright: it serves every
type of its provider, and a type the plugin does not have is unsupported there, as under Terraform
(``selection`` has the rule). No process starts here: plugin types come from cached schemas. A binary changed since init (size
or modification time differs, then the SHA-256 confirms) is refused, since its schema may be
different; so is a configuration whose provider requirements changed since init.
"""

from __future__ import annotations

from pathlib import Path

from adapters.plugin.spec import PluginSpec
from adapters.registry import Registry
from engine.config.model import Module
from engine.install.lockfile import normalized_constraints
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry, read_record
from vocab.errors import CtlError

_RUN_INIT = "Run `ctl init` to select the providers again."


def registry_for(root_dir: Path, base: Registry | None = None) -> Registry:
    """``base`` (default: the native adapters) with every recorded plugin in place of its native adapter."""
    registry = base or Registry.discover()
    record = read_record(root_dir)
    if record is None or not record.providers:
        return registry
    from adapters.plugin.bridge import provider_from_spec  # the codec and schema modules: only when used

    for entry in record.providers:
        registry.register(provider_from_spec(_spec(root_dir, entry)))
    return registry


def check_requirements(root_dir: Path, root: Module) -> None:
    """Refuse a configuration whose plugin providers' requirements changed since ``ctl init``.

    A provider that needs a plugin and has none selected is reported where its types are used (as
    an unsupported resource type, with a hint to run ``ctl init``), not here.
    """
    record = read_record(root_dir)
    if record is None:
        return
    from engine.install.requirements import requirements

    chosen = {e.local_name: e for e in record.providers}
    for req in requirements(root):
        entry = chosen.get(req.local_name)
        # A record from before constraints were normalized holds them as written: compared normalized.
        if entry is not None and (entry.source != str(req.source)
                                  or normalized_constraints(entry.constraints) != req.constraint_text):
            raise CtlError(f'The requirements of provider "{req.local_name}" changed since `ctl init` '
                           f"(was {entry.source} {entry.constraints or 'any version'}, now {req.source} "
                           f"{req.constraint_text or 'any version'})", hint=_RUN_INIT)


def _spec(root_dir: Path, entry: PluginEntry) -> PluginSpec:
    path = Path(entry.executable)
    try:
        info = path.stat()
    except OSError:
        raise CtlError(f"the provider binary {path} selected by `ctl init` is gone", hint=_RUN_INIT) from None
    if (info.st_size, info.st_mtime_ns) != (entry.size, entry.mtime_ns) and \
            schema_cache.sha256_of(path) != entry.sha256:
        raise CtlError(f"the provider binary {path} changed since `ctl init`", hint=_RUN_INIT)
    from engine.plugins.selection import spec_of

    doc = schema_cache.cached(root_dir, entry.sha256, entry.source)
    if doc is None:
        raise CtlError(f"the schema of provider {entry.source} is not cached", hint=_RUN_INIT)
    return spec_of(entry, doc["schema"])

