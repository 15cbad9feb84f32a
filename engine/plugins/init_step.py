"""``ctl init``'s provider step: select a binary for every provider that needs one, and record it.

Where to look, in order: the ``-plugin-dir`` directories given now, else those the last ``ctl init``
recorded, else ``CTL_PLUGIN_DIR``; Terraform's implied local mirrors are searched after them in
every case. Whether native adapters serve their types: ``-native``, else ``CTL_NATIVE_ADAPTERS``,
else the last record, else yes.
"""

from __future__ import annotations

import os
from pathlib import Path

from adapters.registry import Registry
from engine.config.model import Module
from engine.plugins.record import PluginRecord, read_record, write_record
from engine.plugins.requirements import requirements
from engine.plugins.selection import Selected, needs_plugin, select

NATIVE_ENV = "CTL_NATIVE_ADAPTERS"
PLUGIN_DIR_ENV = "CTL_PLUGIN_DIR"


def select_providers(root_dir: Path, root: Module, plugin_dirs: list[str] | None,
                     native: bool | None) -> list[Selected]:
    """Select and record; returns what was selected (for init's report)."""
    previous = read_record(root_dir)
    dirs = [str(Path(d).expanduser().resolve()) for d in plugin_dirs] if plugin_dirs else (
        previous.plugin_dirs if previous is not None and previous.plugin_dirs
        else [d for d in os.environ.get(PLUGIN_DIR_ENV, "").split(os.pathsep) if d])
    use_native = native if native is not None else _native_from_env(previous)
    native_registry = Registry.discover()
    chosen = [select(root_dir, req, native_registry, plugin_dirs=dirs, use_native=use_native)
              for req in requirements(root) if needs_plugin(req, native_registry, use_native)]
    if chosen or previous is not None or plugin_dirs:
        write_record(root_dir, PluginRecord(dirs, use_native, [s.entry for s in chosen]))
    return chosen


def _native_from_env(previous: PluginRecord | None) -> bool:
    raw = os.environ.get(NATIVE_ENV, "").strip().lower()
    if raw in ("0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    return previous.native if previous is not None else True
