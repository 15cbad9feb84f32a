"""The shared plugin cache (``plugin_cache_dir``): unpacked packages reused across configurations.

Laid out as an unpacked mirror (``HOST/NS/TYPE/VERSION/OS_ARCH/``). Every entry is filled under an
exclusive lock of its own, into a temporary directory renamed into place, so parallel inits sharing
one cache either find a complete entry or wait for the one filling it; none sees half a package.

A staging directory is held under an exclusive ``flock`` on the directory itself for as long as its
process uses it, and removed when the process is done with it, also when it is stopped by SIGINT or
SIGTERM. One left by a process killed outright (SIGKILL, a lost machine) holds no lock any more, so
the next staging in the same root sweeps it away.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from engine.install.sources import InstallError
from vocab.errors import Interrupted
from vocab.providers import ProviderSource
from vocab.versions import Version

STAGING_PREFIX = ".staging-"


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


def ready(root: Path, what: str) -> None:
    """Make sure ``root`` is a directory packages can go in (creating it), else one clear error."""
    reason = "it is not a directory"
    try:
        root.mkdir(parents=True, exist_ok=True)
        usable = root.is_dir()
    except FileExistsError:  # something that is not a directory has the name
        usable = False
    except OSError as exc:
        usable, reason = False, exc.strerror or str(exc)
    if not usable:
        raise InstallError(
            f"cannot install providers into {what} {root}: {reason}",
            hint="Point it at a directory (TF_PLUGIN_CACHE_DIR, CTL_PLUGIN_CACHE_DIR or plugin_cache_dir in "
                 "the CLI configuration), or unset it.",
        )


@contextlib.contextmanager
def _staging_lock(root: Path) -> Iterator[None]:
    """Serialise creating and sweeping staging directories under ``root`` (never held for a download)."""
    locks = root / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / "staging.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _claim(directory: Path, *, wait: bool) -> int | None:
    """A descriptor holding ``directory``'s flock, or None when another process holds it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def sweep(root: Path) -> list[Path]:
    """Remove the staging directories under ``root`` that no live process holds; returns them."""
    swept = []
    with _staging_lock(root):
        for entry in root.iterdir():
            if not entry.name.startswith(STAGING_PREFIX) or entry.is_symlink() or not entry.is_dir():
                continue
            descriptor = _claim(entry, wait=False)
            if descriptor is None:
                continue
            try:
                shutil.rmtree(entry, ignore_errors=True)
                swept.append(entry)
            finally:
                os.close(descriptor)
    return swept


@contextlib.contextmanager
def stopped_by_sigterm(what: str, hint: str = "Nothing was installed; run the command again.") -> Iterator[None]:
    """While held (on the main thread), SIGTERM ends the command as Ctrl-C does, as ``Interrupted``,
    so every ``finally`` on the way out runs and no staging directory is left behind. Held around a
    whole command too, so a SIGTERM while a registry is being asked is one message and exit 130, not
    a silent death; the innermost holder's message is the one shown."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(f"{what} was stopped by SIGTERM", hint=hint)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


@contextlib.contextmanager
def staging(root: Path, what: str = "ctl init") -> Iterator[Path]:
    """A scratch directory beside the entries (same filesystem, so the final rename is atomic)."""
    ready(root, "the provider directory")
    with stopped_by_sigterm(what):
        sweep(root)
        with _staging_lock(root):
            scratch = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
            descriptor = _claim(scratch, wait=True)
        try:
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            if descriptor is not None:
                os.close(descriptor)


def scratch_root() -> Path:
    """Where commands that install nothing (``providers lock``, ``providers mirror``) stage downloads:
    one directory per user under the system's temporary directory, so their leftovers are swept like
    init's. One that is not this user's private directory (another user made it first) is not used."""
    root = Path(tempfile.gettempdir()) / f"ctl-staging-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(root)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
            return root
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="ctl-staging-"))


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
