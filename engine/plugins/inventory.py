"""What serves each provider a configuration uses: for ``ctl providers`` and ``ctl version``.

A provider is served by its native adapter, by the plugin ``ctl init`` recorded (then by it
alone: ``selection`` has the rule), or by nothing yet (``ctl init`` has not found a plugin for
it). The answer is read from the record and the installed adapters only: no provider process
starts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from adapters.registry import Registry
from engine.config.model import Module
from engine.install.requirements import BUILTIN, Requirement, requirements
from engine.plugins import schema_cache
from engine.plugins.record import PluginEntry, read_record
from engine.plugins.selection import native_covers
from vocab.errors import CtlError
from vocab.versions import normalize_constraints


@dataclass(frozen=True)
class Served:
    """One provider and how this directory serves it."""

    local_name: str
    source: str
    constraints: str
    how: str  # "native", "plugin" or "missing"
    plugin: PluginEntry | None = None
    protocol: int | None = None  # a plugin's, once known (init records it, or its cached schema says it)

    @property
    def version(self) -> str:
        return self.plugin.version if self.plugin is not None else ""


def served(root_dir: Path, root: Module | None) -> list[Served]:
    """Every provider the configuration requires (and every recorded plugin), sorted by source."""
    record = read_record(root_dir)
    use_native = record.native is not False if record is not None else True
    plugins = {e.local_name: e for e in record.providers} if record is not None else {}
    native = Registry.discover()
    out: dict[str, Served] = {}
    for req in requirements(root) if root is not None else []:
        out[req.local_name] = _served(req, plugins.get(req.local_name), native, use_native)
    for name, entry in plugins.items():
        out.setdefault(name, Served(name, entry.source, entry.constraints, "plugin", entry))
    return sorted((replace(s, protocol=_protocol(root_dir, s.plugin)) if s.plugin is not None else s
                   for s in out.values()), key=lambda s: (s.source, s.local_name))


def _protocol(root_dir: Path, entry: PluginEntry) -> int | None:
    """A plugin's protocol: as init recorded it, else as its cached schema says (init starts no
    provider, so a new binary's is learnt when a command first reads its schema); None before."""
    return entry.protocol if entry.protocol is not None else schema_cache.protocol_of(root_dir, entry.sha256)


def _served(req: Requirement, entry: PluginEntry | None, native: Registry, use_native: bool) -> Served:
    source = str(req.source)
    if entry is not None and entry.source == source:
        return Served(req.local_name, source, req.constraint_text, "plugin", entry)
    how = "native" if use_native and native_covers(req, native) else "missing"
    return Served(req.local_name, source, req.constraint_text, how)


@dataclass
class TreeNode:
    """One module of the configuration and the providers it requires itself (``ctl providers``)."""

    name: str  # "." for the root, "module.NAME" for a call
    providers: list[tuple[str, str]]  # (source, constraints)
    children: list[TreeNode]


def provider_tree(root: Module) -> TreeNode:
    """The requirement tree: each module lists what its own blocks use, with its own constraints."""
    sources = {req.local_name: str(req.source) for req in requirements(root)}
    return _node(".", root, sources)


def _node(name: str, module: Module, sources: dict[str, str]) -> TreeNode:
    found: dict[str, list[str]] = {}
    for local, rp in module.required_providers.items():
        found.setdefault(sources.get(local, rp.source), []).append(rp.version)
    used = {res.provider[0] if res.provider else res.type.partition("_")[0] for res in module.resources.values()}
    used |= {key.partition(".")[0] for key in module.providers}
    for local in sorted(used - {BUILTIN}):
        if local in sources:
            found.setdefault(sources[local], [])
    providers = [(source, _normalized(constraints)) for source, constraints in sorted(found.items())]
    children = [_node(f"module.{call}", child, sources) for call, child in sorted(module.children.items())]
    return TreeNode(name, providers, children)


def _normalized(constraints: list[str]) -> str:
    """One module's constraints as Terraform shows them (normalized); as written if one cannot be read."""
    try:
        return normalize_constraints(c for c in constraints if c)
    except CtlError:
        return ", ".join(c for c in dict.fromkeys(constraints) if c)


def render_tree(node: TreeNode, prefix: str = "") -> list[str]:
    """Terraform's drawing: ``├──`` and ``└──`` branches, providers before child modules."""
    lines = [node.name] if not prefix else []
    items: list[tuple[str, TreeNode | None]] = [
        (f"provider[{source}]" + (f" {constraints}" if constraints else ""), None)
        for source, constraints in node.providers
    ] + [(child.name, child) for child in node.children]
    for i, (label, child) in enumerate(items):
        last = i == len(items) - 1
        lines.append(f"{prefix}{'└── ' if last else '├── '}{label}")
        if child is not None:
            lines.extend(render_tree(child, prefix + ("    " if last else "│   ")))
    return lines
