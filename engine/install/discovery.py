"""Finding an installed provider binary for a source address and version constraints.

Directories are searched as Terraform's local mirrors are laid out, in this order:

1. plugin directories given explicitly (the ``plugin_dirs`` argument, else ``CTL_PLUGIN_DIR``,
   colon-separated), like Terraform's ``-plugin-dir``;
2. Terraform's implied local mirrors: ``terraform.d/plugins`` in the configuration directory,
   ``~/.terraform.d/plugins``, ``$XDG_DATA_HOME/terraform/plugins`` (``~/.local/share``) and
   ``terraform/plugins`` under each of ``$XDG_DATA_DIRS`` (``/usr/local/share:/usr/share``).

Inside each, two layouts: unpacked ``HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE…``
(an executable, usually ``terraform-provider-TYPE_vVERSION``), and packed
``HOSTNAME/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip``. The newest version that
meets the constraints wins; for equal versions an earlier directory, then an unpacked copy, wins.
A packed result is reported as such (``packed=True``): unpacking it is the installer's job.
Unlike Terraform, explicit directories do not hide the implied ones; they are only searched first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from vocab.provider_errors import ProviderNotFound
from vocab.providers import ProviderSource, host_os_arch
from vocab.versions import Constraints, Version

PLUGIN_DIR_ENV = "CTL_PLUGIN_DIR"


@dataclass(frozen=True, slots=True)
class InstalledProvider:
    """One provider package found on disk. Its protocol version is known only once it runs."""

    source: ProviderSource
    version: Version
    path: Path  # the executable, or the .zip when packed
    os_arch: str
    packed: bool = False
    protocol: int | None = None


def search_directories(
    config_dir: Path | None = None,
    plugin_dirs: Iterable[str | Path] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Path]:
    """The directories searched, in order (existing or not: errors list them all)."""
    env = os.environ if env is None else env
    if plugin_dirs is None:
        plugin_dirs = [p for p in env.get(PLUGIN_DIR_ENV, "").split(os.pathsep) if p]
    home = Path(env.get("HOME") or Path.home())
    data_home = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    data_dirs = [p for p in (env.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share").split(os.pathsep) if p]
    dirs = [Path(p) for p in plugin_dirs]
    dirs.append(Path(config_dir or ".") / "terraform.d" / "plugins")
    dirs.append(home / ".terraform.d" / "plugins")
    dirs.append(data_home / "terraform" / "plugins")
    dirs.extend(Path(d) / "terraform" / "plugins" for d in data_dirs)
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _type_dir(directory: Path, source: ProviderSource) -> Path | None:
    """``directory/HOSTNAME/NAMESPACE/TYPE``, matching names case-insensitively as Terraform does."""
    current = directory
    for label in (source.hostname, source.namespace, source.type):
        if not current.is_dir():
            return None
        exact = current / label
        if exact.is_dir():
            current = exact
            continue
        match = next((c for c in current.iterdir() if c.name.lower() == label and c.is_dir()), None)
        if match is None:
            return None
        current = match
    return current


def installed_in(directory: Path, source: ProviderSource, os_arch: str) -> list[InstalledProvider]:
    """Every copy of ``source`` for ``os_arch`` in one directory, packed and unpacked."""
    type_dir = _type_dir(directory, source)
    if type_dir is None:
        return []
    found: list[InstalledProvider] = []
    prefix = f"terraform-provider-{source.type}"
    for entry in sorted(type_dir.iterdir()):
        if entry.is_dir():
            try:
                version = Version.parse(entry.name)
            except ValueError:
                continue
            platform_dir = entry / os_arch
            if not platform_dir.is_dir():
                continue
            binaries = sorted(
                p for p in platform_dir.iterdir()
                if p.is_file() and (p.name == prefix or p.name.startswith(prefix + "_"))
            )
            if binaries:
                found.append(InstalledProvider(source, version, binaries[0], os_arch))
        elif entry.name.startswith(prefix + "_") and entry.name.endswith(f"_{os_arch}.zip"):
            raw = entry.name[len(prefix) + 1 : -len(f"_{os_arch}.zip")]
            try:
                version = Version.parse(raw)
            except ValueError:
                continue
            found.append(InstalledProvider(source, version, entry, os_arch, packed=True))
    return found


def find_provider(
    source: str | ProviderSource,
    constraints: str | Constraints | None = None,
    *,
    config_dir: Path | None = None,
    plugin_dirs: Iterable[str | Path] | None = None,
    env: Mapping[str, str] | None = None,
    os_arch: str | None = None,
) -> InstalledProvider:
    """The newest installed copy of ``source`` meeting ``constraints``; ``ProviderNotFound`` if none."""
    address = source if isinstance(source, ProviderSource) else ProviderSource.parse(source)
    wanted = constraints if isinstance(constraints, Constraints) else Constraints.parse(constraints)
    platform_name = os_arch or host_os_arch()
    directories = search_directories(config_dir, plugin_dirs, env)
    candidates: list[tuple[Version, int, int, InstalledProvider]] = []
    for rank, directory in enumerate(directories):
        for item in installed_in(directory, address, platform_name):
            candidates.append((item.version, -rank, 0 if item.packed else 1, item))
    allowed = [c for c in candidates if wanted.allows(c[0])]
    if allowed:
        return max(allowed, key=lambda c: c[:3])[3]
    raise _not_found(address, wanted, platform_name, directories, [c[3] for c in candidates])


def _not_found(
    source: ProviderSource,
    constraints: Constraints,
    os_arch: str,
    directories: list[Path],
    seen: list[InstalledProvider],
) -> ProviderNotFound:
    if seen:
        versions = ", ".join(sorted({str(s.version) for s in seen}, key=Version.parse))
        what = f"no installed version of provider {source} matches {constraints} (installed: {versions})"
    else:
        what = f"provider {source} is not installed for {os_arch}"
    detail = "Searched:\n  " + "\n  ".join(
        f"{d}{'' if d.is_dir() else ' (does not exist)'}" for d in directories
    )
    hint = (
        f"Run `ctl init` to install it, or put the provider in one of these directories as "
        f"{source}/VERSION/{os_arch}/terraform-provider-{source.type}_vVERSION "
        f"(or set {PLUGIN_DIR_ENV} to a directory laid out that way)."
    )
    if seen:
        hint = "Change the version constraint, or install a matching version. " + hint
    return ProviderNotFound(f"Cannot find a provider: {what}", detail=detail, hint=hint)
