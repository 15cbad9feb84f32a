"""Unpacking a release zip safely, and finding the provider executable in a package directory."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath

from adapters.plugin.discovery import ProviderSource
from engine.install.sources import InstallError


def unpack(archive: Path, target: Path) -> None:
    """Extract ``archive`` into ``target``, refusing members that would land outside it."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.infolist():
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
                    raise InstallError(f"{archive.name} holds an unsafe path: {member.filename}",
                                       hint="This is not a provider release; nothing was installed.")
            zipped.extractall(target)
            for member in zipped.infolist():
                mode = (member.external_attr >> 16) & 0o777
                if mode and not member.is_dir():
                    (target / member.filename).chmod(mode)
    except zipfile.BadZipFile:
        raise InstallError(f"{archive.name} is not a valid zip archive",
                           hint="Replace it with the provider's release package.") from None


def executable_in(directory: Path, provider: ProviderSource) -> Path:
    """The package's ``terraform-provider-TYPE[_vVERSION]``, made executable."""
    prefix = f"terraform-provider-{provider.type}"
    found = sorted(p for p in directory.iterdir() if p.is_file() and (p.name == prefix or p.name.startswith(prefix + "_")))
    if not found:
        raise InstallError(f"the package of provider {provider} in {directory} holds no {prefix} executable",
                           hint="This is not a release of that provider.")
    binary = found[0]
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary
