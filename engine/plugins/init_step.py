"""``ctl init``'s provider step: install a package for every provider a plugin serves, lock and record it.

Plugin directories: the ``-plugin-dir`` directories given now, else those the last ``ctl init``
recorded, else ``CTL_PLUGIN_DIR`` (how they and the other sources combine: engine/install/methods.py).
The native-adapter switch: ``-native``, else ``CTL_NATIVE_ADAPTERS``, else the last record, else
unset; which implementation serves each provider follows from it (``selection``). The lock file keeps
the entries of every provider the configuration still requires (also those native adapters serve,
which Terraform may have locked) and gains those installed now.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from adapters.base import Provider
from adapters.registry import Registry
from engine.config.model import Module
from engine.install.cli_config import read_cli_config
from engine.install.installer import DownloadProgress, Installed, Installer
from engine.install.lockfile import LockedProvider, read_lock, write_lock
from engine.install.methods import sources_for
from engine.install.requirements import Requirement, requirements
from engine.plugins.record import PluginRecord, read_record, write_record
from engine.plugins.selection import Selected, offered_by, select, wants_plugin
from vocab.providers import host_os_arch

NATIVE_ENV = "CTL_NATIVE_ADAPTERS"
PLUGIN_DIR_ENV = "CTL_PLUGIN_DIR"
_MAX_PARALLEL = 4  # providers installed at once: enough to fill the cores and hide network waits


def select_providers(root_dir: Path, root: Module, plugin_dirs: list[str] | None, native: bool | None, *,
                     upgrade: bool = False, progress: DownloadProgress | None = None) -> list[Selected]:
    """Install, lock and record; returns what was selected (for init's report)."""
    previous = read_record(root_dir)
    dirs = [str(Path(d).expanduser().resolve()) for d in plugin_dirs] if plugin_dirs else (
        previous.plugin_dirs if previous is not None and previous.plugin_dirs
        else [d for d in os.environ.get(PLUGIN_DIR_ENV, "").split(os.pathsep) if d])
    use_native = native if native is not None else _native_from_env(previous)
    native_registry = Registry.discover()
    required = requirements(root)
    chosen_before = {(e.local_name, e.source) for e in previous.providers} if previous is not None else set()
    needed = [req for req in required
              if wants_plugin(req, native_registry, use_native,
                              (req.local_name, str(req.source)) in chosen_before or offered_by(dirs, req))]
    lock = read_lock(root_dir)
    chosen: list[Selected] = []
    if needed:
        config = read_cli_config()
        installer = Installer(root_dir, sources_for(root_dir, dirs, config), host_os_arch(), config.cache_dir,
                              upgrade, progress)
        kept = {str(req.source) for req in required}
        new_lock = {address: entry for address, entry in lock.items() if address in kept}
        for req, (installed, selected) in zip(needed, _install_each(root_dir, installer, needed, lock),
                                              strict=True):
            chosen.append(selected)
            new_lock[str(req.source)] = installed.locked(req.constraint_text, lock.get(str(req.source)))
        write_lock(root_dir, new_lock)
    if chosen or previous is not None or plugin_dirs:
        write_record(root_dir, PluginRecord(dirs, use_native, [s.entry for s in chosen]))
    return chosen


def _install_each(root_dir: Path, installer: Installer, needed: list[Requirement],
                  lock: dict[str, LockedProvider]) -> list[tuple[Installed, Selected]]:
    """Install and select every provider, several at once, in the order of ``needed``.

    Each provider's work is mostly outside the interpreter (a download, inflating and hashing its
    package), so providers overlap on several cores and while waiting on
    the network. The first failure, in the order of ``needed``, is raised once every other provider
    has finished; nothing is locked or recorded unless all of them succeed.
    """
    def one(req: Requirement) -> tuple[Installed, Selected]:
        installed = installer.install(req.source, req.constraint_text, lock.get(str(req.source)))
        return installed, select(root_dir, req, installed)

    workers = min(len(needed), max(2, os.cpu_count() or 1), _MAX_PARALLEL)
    if workers < 2:
        return [one(req) for req in needed]
    with ThreadPoolExecutor(workers, thread_name_prefix="ctl-init") as pool:
        futures = [pool.submit(one, req) for req in needed]
        wait(futures)
    return [future.result() for future in futures]


def checking_registry(selected: list[Selected]) -> Registry:
    """The native adapters, less those of the providers a selected plugin serves.

    What init checks the configuration's types against. A plugin's types are not known at init:
    init starts no provider (as Terraform's does not), so a type such a provider lacks is reported
    by the first command that reads its schema (validate, plan, ...), where Terraform reports it;
    ``deferred`` names those providers for ``check_resource_types``.
    """
    registry = Registry.discover()
    for chosen in selected:
        registry.register(Provider(name=chosen.entry.local_name, source=chosen.entry.source))
    return registry


def deferred(selected: list[Selected]) -> frozenset[str]:
    """The local names of the providers whose types init leaves to the first command that reads them."""
    return frozenset(chosen.entry.local_name for chosen in selected)


def _native_from_env(previous: PluginRecord | None) -> bool | None:
    raw = os.environ.get(NATIVE_ENV, "").strip().lower()
    if raw in ("0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    return previous.native if previous is not None else None
