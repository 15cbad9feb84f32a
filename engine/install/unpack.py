"""Unpacking a release zip safely, and finding the provider executable in a package directory."""

from __future__ import annotations

import stat
from pathlib import Path

from engine.install.archive import extract, umask
from engine.install.sources import InstallError
from vocab.providers import ProviderSource


def unpack(archive: Path, target: Path) -> None:
    """Extract ``archive`` into ``target`` (see engine/install/archive.py for what is refused)."""
    extract(archive, target)


def executable_in(directory: Path, provider: ProviderSource) -> Path:
    """The package's ``terraform-provider-TYPE[_vVERSION]``, made executable as far as the umask allows."""
    prefix = f"terraform-provider-{provider.type}"
    found = sorted(p for p in directory.iterdir() if p.is_file() and (p.name == prefix or p.name.startswith(prefix + "_")))
    if not found:
        raise InstallError(f"the package of provider {provider} in {directory} holds no {prefix} executable",
                           hint="This is not a release of that provider.")
    binary = found[0]
    wanted = (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH) & ~umask() | stat.S_IXUSR
    mode = binary.stat().st_mode
    if mode & wanted != wanted:
        binary.chmod(mode | wanted)
    return binary
