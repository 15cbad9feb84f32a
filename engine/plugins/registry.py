"""The adapter registry a command runs with: native adapters plus the plugins ``ctl init`` recorded.

A recorded plugin replaces the native adapter of the same local name outright: it serves every
type of its provider, and a type the plugin does not have is unsupported there, as under Terraform
(``selection`` has the rule). Plugin types come from cached schemas; a plugin whose schema is not
cached yet (``ctl init`` starts no provider, as Terraform's does not) is started once here to read
it, and the schema is cached for every later command. A binary changed since init (size or
modification time differs, then the SHA-256 confirms) is refused, since it is not what init
selected and locked; so is a configuration whose provider requirements changed since init.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from adapters.plugin.spec import PluginSpec
from adapters.registry import Registry
from engine.config.model import Module
from engine.install.lockfile import normalized_constraints
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry, read_record
from vocab.errors import CtlError

_RUN_INIT = "Run `ctl init` to select the providers again."
_MAX_PARALLEL = 4  # providers read at once: enough to fill the cores


def registry_for(root_dir: Path, base: Registry | None = None) -> Registry:
    """``base`` (default: the native adapters) with every recorded plugin in place of its native adapter."""
    registry = base or Registry.discover()
    record = read_record(root_dir)
    if record is None or not record.providers:
        return registry
    from adapters.plugin.bridge import provider_from_spec  # the codec and schema modules: only when used

    for entry, doc in zip(record.providers, read_schemas(root_dir, record.providers), strict=True):
        registry.register(provider_from_spec(spec_of(entry, doc)))
    return registry


def read_schemas(root_dir: Path, entries: list[PluginEntry]) -> list[dict[str, Any]]:
    """Each entry's schema document (``schema_cache.cached``'s shape), in order: from the cache, or
    read from providers not read before, several at once (each read is mostly the provider's own
    work, in a process of its own)."""
    for entry in entries:
        _check_binary(entry)
    docs = [_cached(root_dir, entry) for entry in entries]
    missing = [i for i, doc in enumerate(docs) if doc is None]
    if len(missing) > 1:
        with ThreadPoolExecutor(min(len(missing), _MAX_PARALLEL), thread_name_prefix="ctl-schema") as pool:
            read = list(pool.map(lambda i: _read(root_dir, entries[i]), missing))
    else:
        read = [_read(root_dir, entries[i]) for i in missing]
    for i, doc in zip(missing, read, strict=True):
        docs[i] = doc
    return [doc for doc in docs if doc is not None]  # every one of them, now


def read_schema(root_dir: Path, entry: PluginEntry) -> dict[str, Any]:
    """One entry's schema document: from the cache, or read from the provider and cached."""
    return read_schemas(root_dir, [entry])[0]


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


def spec_of(entry: PluginEntry, doc: dict[str, Any]) -> PluginSpec:
    """What a command runs the plugin from: the record's entry and its schema document."""
    return PluginSpec(local_name=entry.local_name, source=entry.source, version=entry.version,
                      executable=Path(entry.executable), sha256=entry.sha256, protocol=int(doc["protocol"]),
                      schema=dict(doc["schema"]))


def _check_binary(entry: PluginEntry) -> None:
    path = Path(entry.executable)
    try:
        info = path.stat()
    except OSError:
        raise CtlError(f"the provider binary {path} selected by `ctl init` is gone", hint=_RUN_INIT) from None
    if (info.st_size, info.st_mtime_ns) != (entry.size, entry.mtime_ns) and \
            schema_cache.sha256_of(path) != entry.sha256:
        raise CtlError(f"the provider binary {path} changed since `ctl init`", hint=_RUN_INIT)


def _cached(root_dir: Path, entry: PluginEntry) -> dict[str, Any] | None:
    """The cached document; an entry of an older format is rewritten in the current one from what it
    holds (once: the next command finds it current), with no need to start the binary."""
    doc = schema_cache.cached(root_dir, entry.sha256, entry.source)
    if doc is not None and doc["format"] != schema_cache.CACHE_FORMAT:
        doc = schema_cache.write(root_dir, entry.sha256, int(doc["protocol"]), doc["schema"], entry.source)
    return doc


def _read(root_dir: Path, entry: PluginEntry) -> dict[str, Any]:
    return schema_cache.read_from_binary(root_dir, Path(entry.executable), entry.sha256, entry.source)

