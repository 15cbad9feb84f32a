"""Which sources ``ctl init`` installs from, in order, as Terraform decides it.

- ``-plugin-dir`` (or ``CTL_PLUGIN_DIR``, or the directories the last init recorded): those
  directories, then Terraform's implied local mirrors; nothing from the network, as with Terraform's
  ``-plugin-dir``.
- Else a ``provider_installation`` block in the CLI configuration: its methods, as written.
- Else Terraform's implied set-up: each implied local mirror directory for the providers found in it,
  then direct installation from the registry for every other provider.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.install.cli_config import CliConfig, MethodConfig
from engine.install.credentials import Credentials, gather
from engine.install.discovery import search_directories
from engine.install.network_mirror import NetworkMirror
from engine.install.registry_source import RegistrySource
from engine.install.sources import FilesystemMirror, Method, Patterns, Sources


def sources_for(root_dir: Path, plugin_dirs: list[str], config: CliConfig,
                env: Mapping[str, str] | None = None) -> Sources:
    implied = search_directories(root_dir, plugin_dirs=[], env=env)
    if plugin_dirs:
        return Sources([Method(FilesystemMirror(d)) for d in [*map(Path, plugin_dirs), *implied]])
    credentials = gather(config.credentials, os.environ if env is None else env)
    if config.methods is not None:
        return Sources([_configured(m, credentials) for m in config.methods])
    methods: list[Method] = []
    local: set[str] = set()
    for directory in implied:
        found = providers_in(directory)
        if found:
            methods.append(Method(FilesystemMirror(directory), Patterns(include=sorted(found))))
            local |= found
    methods.append(Method(RegistrySource(credentials), Patterns(exclude=sorted(local))))
    return Sources(methods)


def _configured(method: MethodConfig, credentials: Credentials) -> Method:
    if method.kind == "filesystem_mirror":
        return Method(FilesystemMirror(Path(method.location).expanduser()), method.patterns)
    if method.kind == "network_mirror":
        return Method(NetworkMirror(method.location, credentials), method.patterns)
    return Method(RegistrySource(credentials), method.patterns)


def providers_in(directory: Path) -> set[str]:
    """``HOST/NS/TYPE`` of every provider a mirror directory holds (lower-cased)."""
    if not directory.is_dir():
        return set()
    found = set()
    for host in directory.iterdir():
        for namespace in host.iterdir() if host.is_dir() else ():
            for type_dir in namespace.iterdir() if namespace.is_dir() else ():
                if type_dir.is_dir():
                    found.add(f"{host.name}/{namespace.name}/{type_dir.name}".lower())
    return found
