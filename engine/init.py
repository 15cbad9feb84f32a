"""``ctl init``: check that a directory can be planned and record its backend settings in ``.ctl/``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from adapters.registry import Registry
from engine.config.loader import load_config
from engine.errors import Diagnostics, DiagnosticsError
from engine.graph import build_graph
from engine.session import CTL_DIR, backend_settings, open_store
from engine.validate import check_resource_types


@dataclass
class InitReport:
    backend: str
    location: str
    providers: list[tuple[str, str]] = field(default_factory=list)


def initialize(root_dir: Path) -> InitReport:
    """Load the configuration, check adapters and backend, create ``.ctl/backend.json``."""
    root, diags = load_config(root_dir)
    registry = Registry.discover()
    check_resource_types(root, registry, diags)
    build_graph(root, Diagnostics())
    if diags.has_errors:
        raise DiagnosticsError(diags.items)
    kind, settings = backend_settings(root)
    store = open_store(root_dir, root)
    folder = root_dir / CTL_DIR
    folder.mkdir(exist_ok=True)
    (folder / "backend.json").write_text(json.dumps({"type": kind, "config": settings}, indent=2) + "\n")
    used = sorted({registry.provider_for_type(r.type) for _, m in root.walk() for r in m.resources.values()})
    providers = [(name, p.source) for name in used if (p := registry.provider(name)) is not None]
    return InitReport(kind, store.describe(), providers)
