"""The shared plugin cache (``plugin_cache_dir``): unpacked packages reused across configurations.

Laid out as an unpacked mirror (``HOST/NS/TYPE/VERSION/OS_ARCH/``). Every entry is filled under an
exclusive lock of its own, into a temporary directory renamed into place, so parallel inits sharing
one cache either find a complete entry or wait for the one filling it; none sees half a package.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from adapters.plugin.discovery import ProviderSource
from adapters.plugin.versions import Version


def package_path(root: Path, provider: ProviderSource, version: Version, os_arch: str) -> Path:
    return root / provider.hostname / provider.namespace / provider.type / str(version) / os_arch


@contextlib.contextmanager
def entry_lock(root: Path, provider: ProviderSource, version: Version, os_arch: str) -> Iterator[None]:
    """Hold the entry's lock file (``.locks/…``) for the duration."""
    locks = root / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    name = f"{provider.hostname}_{provider.namespace}_{provider.type}_{version}_{os_arch}.lock".replace(":", "_")
    with (locks / name).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def staging(root: Path) -> Iterator[Path]:
    """A scratch directory beside the entries (same filesystem, so the final rename is atomic)."""
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def place(unpacked: Path, target: Path) -> None:
    """Move a verified package into ``target``, replacing what was there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    os.replace(unpacked, target)


def link(target: Path, link_path: Path) -> None:
    """Point ``link_path`` at a cache entry (replacing an earlier copy or link)."""
    link_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = link_path.with_name(f".{link_path.name}.{os.getpid()}.link")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    tmp.symlink_to(target.resolve(), target_is_directory=True)
    if link_path.exists() and not link_path.is_symlink():
        shutil.rmtree(link_path)
    os.replace(tmp, link_path)
