"""What ``ctl providers lock`` and ``ctl providers mirror`` do, over the configuration's requirements.

Both act on every provider the configuration and its modules require (or the ones named), native
adapters' providers included: the lock file and a mirror are for every tool and machine that will
run this configuration, Terraform among them.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.config.model import Module
from engine.install.cache import scratch_root, stopped_by_sigterm
from engine.install.cli_config import read_cli_config
from engine.install.credentials import gather
from engine.install.lockfile import LockedProvider, read_lock, write_lock
from engine.install.methods import sources_for
from engine.install.network_mirror import NetworkMirror
from engine.install.platforms import Wanted, lock_platforms, mirror_platforms
from engine.install.requirements import requirements
from engine.install.sources import FilesystemMirror, Method, Sources
from vocab.errors import UsageError
from vocab.providers import ProviderSource, host_os_arch
from vocab.versions import Version


def _wanted(root_dir: Path, root: Module, names: list[str]) -> list[Wanted]:
    lock = read_lock(root_dir)
    required = {str(r.source): r for r in requirements(root)}
    chosen = list(required)
    if names:
        chosen = [str(ProviderSource.parse(n)) for n in names]
        unknown = [n for n in chosen if n not in required]
        if unknown:
            raise UsageError(f"the configuration does not require {', '.join(unknown)}",
                             hint="Name providers by source address, as in required_providers.")
    return [Wanted(required[a].source, required[a].constraint_text, lock.get(a)) for a in chosen]


def _sources(root_dir: Path, fs_mirrors: list[str], net_mirrors: list[str]) -> Sources:
    config = read_cli_config()
    if fs_mirrors or net_mirrors:
        credentials = gather(config.credentials, os.environ)
        return Sources([*(Method(FilesystemMirror(Path(d))) for d in fs_mirrors),
                        *(Method(NetworkMirror(u, credentials)) for u in net_mirrors)])
    return sources_for(root_dir, [], config)


def lock_providers(root_dir: Path, root: Module, *, platforms: list[str], fs_mirrors: list[str],
                   net_mirrors: list[str], names: list[str]) -> list[LockedProvider]:
    """Add the hashes of ``platforms`` to the lock file; returns the entries written."""
    with stopped_by_sigterm("ctl providers lock", hint="The lock file was not changed; run the command again."):
        sources = _sources(root_dir, fs_mirrors, net_mirrors)
        entries = [lock_platforms(w, sources, platforms or [host_os_arch()], scratch_root())
                   for w in _wanted(root_dir, root, names)]
    lock = read_lock(root_dir)
    lock.update({e.address: e for e in entries})
    write_lock(root_dir, lock)
    return entries


def mirror_providers(root_dir: Path, root: Module, target: Path, *, platforms: list[str]) -> list[tuple[str, Version]]:
    """Copy every required provider's packages into the mirror ``target``; returns what was copied."""
    with stopped_by_sigterm("ctl providers mirror",
                            hint="Packages copied before it are complete; run the command again for the rest."):
        sources = _sources(root_dir, [], [])
        return [(str(w.provider), mirror_platforms(w, sources, platforms or [host_os_arch()], target, scratch_root()))
                for w in _wanted(root_dir, root, [])]
