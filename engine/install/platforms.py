"""``ctl providers lock`` and ``ctl providers mirror``: packages for other platforms than this one.

``lock`` records the hashes of every requested platform's package, so a lock file written on a
laptop verifies the Linux packages CI installs. ``mirror`` copies the packages into a directory laid
out as a filesystem mirror, with the network mirror's ``index.json`` and ``VERSION.json`` beside them,
so the same directory serves air-gapped machines either way.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.install.authenticate import fetch_package
from engine.install.cache import staging
from engine.install.hashes import archive_hash, directory_hash, zip_hash
from engine.install.installer import choose_version
from engine.install.lockfile import LockedProvider
from engine.install.sources import InstallError, Sources
from vocab.providers import ProviderSource
from vocab.versions import Version


@dataclass(frozen=True)
class Wanted:
    provider: ProviderSource
    constraints: str
    locked: LockedProvider | None


def lock_platforms(wanted: Wanted, sources: Sources, platforms: list[str], staging_root: Path) -> LockedProvider:
    """The lock entry with the hashes of ``platforms``' packages (and the entry's earlier ones).

    Downloads are staged under ``staging_root`` (``cache.scratch_root()``), where a run killed
    outright leaves nothing that the next one does not sweep."""
    version = choose_version(sources, wanted.provider, wanted.constraints, wanted.locked, platforms[0])
    hashes: set[str] = set()
    if wanted.locked is not None and wanted.locked.version == str(version):
        hashes.update(wanted.locked.hashes)
    with staging(staging_root, "ctl providers lock") as scratch:
        for os_arch in platforms:
            package = sources.package(wanted.provider, version, os_arch)
            if package.kind == "dir":
                hashes.add(directory_hash(Path(package.location)))
                continue
            fetched = fetch_package(package, Path(scratch) / os_arch)
            hashes.update({archive_hash(fetched.archive), *fetched.vouched})
            if not fetched.vouched:
                hashes.add(zip_hash(fetched.archive))
    return LockedProvider(str(wanted.provider), str(version), wanted.constraints, sorted(hashes))


def mirror_platforms(wanted: Wanted, sources: Sources, platforms: list[str], target: Path,
                     staging_root: Path) -> Version:
    """Copy the chosen version's packages for ``platforms`` into ``target``; returns the version.
    Downloads are staged under ``staging_root``, as for ``lock_platforms``."""
    version = choose_version(sources, wanted.provider, wanted.constraints, wanted.locked, platforms[0])
    p = wanted.provider
    type_dir = target / p.hostname / p.namespace / p.type
    type_dir.mkdir(parents=True, exist_ok=True)
    archives: dict[str, dict[str, object]] = {}
    with staging(staging_root, "ctl providers mirror") as scratch:
        for os_arch in platforms:
            package = sources.package(p, version, os_arch)
            if package.kind == "dir":
                raise InstallError(f"provider {p} v{version} for {os_arch} is an unpacked directory in "
                                   f"{package.origin}; a mirror holds release zips",
                                   hint="Mirror from the registry or from a mirror of zips.")
            fetched = fetch_package(package, Path(scratch) / os_arch)
            name = f"terraform-provider-{p.type}_{version}_{os_arch}.zip"
            hashes = sorted({archive_hash(fetched.archive), zip_hash(fetched.archive)})  # checks the zip first
            shutil.copyfile(fetched.archive, type_dir / name)
            archives[os_arch] = {"url": name, "hashes": hashes}
    version_file = type_dir / f"{version}.json"
    previous = _json(version_file).get("archives") or {}
    _write_json(version_file, {"archives": {**previous, **archives}})
    index = _json(type_dir / "index.json").get("versions") or {}
    _write_json(type_dir / "index.json", {"versions": {**index, str(version): {}}})
    return version


def _json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
