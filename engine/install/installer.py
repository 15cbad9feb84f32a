"""Installing one provider requirement: choose the version, reuse or fetch the package, check the lock.

The version is the lock file's when it has one within the constraints (``-upgrade`` chooses anew),
else the newest the sources offer. A package already under ``.ctl/providers`` or in the shared cache
is reused when it matches the lock file's hashes, so a re-init needs no network at all; otherwise it
is fetched, authenticated, checked against the lock file and unpacked. Nothing is put in place
before every check has passed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.install import cache
from engine.install.authenticate import fetch_package
from engine.install.fetch import Progress
from engine.install.hashes import digests_hash, directory_hash, file_digests, zip_hash
from engine.install.lockfile import LOCK_FILE, LockedProvider
from engine.install.sources import InstallError, Package, Sources
from engine.install.unpack import executable_in, unpack
from vocab.providers import ProviderSource
from vocab.versions import Constraints, Version

INSTALL_DIR = Path(".ctl") / "providers"
DownloadProgress = Callable[[str, int, int | None], None]  # (what, bytes so far, total or None)


@dataclass
class Installed:
    """A provider ready to run, and what the lock file should say about it."""

    provider: ProviderSource
    version: Version
    executable: Path
    origin: str
    hashes: list[str] = field(default_factory=list)
    signed_by: str = ""
    executable_sha256: str = ""  # hex SHA-256 of ``executable`` when hashing the package gave it

    def locked(self, constraints: str, previous: LockedProvider | None) -> LockedProvider:
        keep = previous.hashes if previous is not None and previous.version == str(self.version) else []
        return LockedProvider(str(self.provider), str(self.version), constraints, sorted({*keep, *self.hashes}))


@dataclass
class Installer:
    root_dir: Path
    sources: Sources
    os_arch: str
    cache_dir: Path | None = None
    upgrade: bool = False
    progress: DownloadProgress | None = None

    _checked_root: bool = field(default=False, init=False, repr=False)

    def install(self, provider: ProviderSource, constraint_text: str, locked: LockedProvider | None) -> Installed:
        self._check_root()
        if self.upgrade:
            locked = None
        version = self.choose(provider, constraint_text, locked)
        pinned = locked if locked is not None and locked.version == str(version) else None
        reused = self._reuse(provider, version, pinned)
        if reused is not None:
            return reused
        package = self.sources.package(provider, version, self.os_arch)
        if package.kind == "dir":
            return self._in_place(package, pinned)
        root = self._packages_root()
        target = cache.package_path(root, provider, version, self.os_arch)
        with self._entry(provider, version), cache.staging(root) as scratch:
            fetched = fetch_package(package, scratch, self._reporter(f"{provider} v{version}"))
            # Unpacked once, into scratch, and hashed from there: inflating a large provider a second
            # time only to hash it doubled the time init spends on it. The zip's own hash is computed
            # only when the lock file lists hashes for this version but not the package's h1:.
            unpacked = scratch / "unpacked"
            unpack(fetched.archive, unpacked)
            digests = file_digests(unpacked)
            h1 = digests_hash(digests)
            own = {h1}
            if pinned is not None and pinned.hashes and h1 not in pinned.hashes:
                own.add(zip_hash(fetched.archive))
            _check_lock(pinned, own, provider, version, package.origin)
            executable_in(unpacked, provider)
            # A parallel init may have filled the entry with this very package meanwhile: keep it
            # rather than pull it from under a process about to run it.
            if not (target.is_dir() and directory_hash(target) == h1):
                cache.place(unpacked, target)
            self._link(target, provider, version)
            executable = executable_in(target, provider)
        # As Terraform records: the package's h1: and what its source vouched for (a signed release's
        # zh: hashes, a network mirror's); a zip from a filesystem mirror vouches for nothing more.
        hashes = {h1, *fetched.vouched}
        return Installed(provider, version, executable, package.origin, sorted(hashes), fetched.signed_by,
                         digests.get(executable.name, ""))

    def _check_root(self) -> None:
        """Once per run: the shared cache must be a usable directory, and staging that a killed run
        left behind (in the cache or under ``.ctl/providers``) is removed."""
        if self._checked_root:
            return
        if self.cache_dir is not None:
            cache.ready(self.cache_dir, "the plugin cache directory")
        root = self._packages_root()
        if root.is_dir():
            cache.sweep(root)
        self._checked_root = True

    def choose(self, provider: ProviderSource, constraint_text: str, locked: LockedProvider | None) -> Version:
        return choose_version(self.sources, provider, constraint_text, locked, self.os_arch)

    def _reporter(self, label: str) -> Progress | None:
        report = self.progress
        if report is None:
            return None
        return lambda done, total: report(label, done, total)

    def _packages_root(self) -> Path:
        """Where fetched packages are unpacked: the shared cache when there is one (linked from here)."""
        return self.cache_dir if self.cache_dir is not None else self.root_dir / INSTALL_DIR

    @contextlib.contextmanager
    def _entry(self, provider: ProviderSource, version: Version) -> Iterator[None]:
        if self.cache_dir is None:
            yield
            return
        with cache.entry_lock(self.cache_dir, provider, version, self.os_arch):
            yield

    def _link(self, target: Path, provider: ProviderSource, version: Version) -> None:
        if self.cache_dir is not None:
            cache.link(target, cache.package_path(self.root_dir / INSTALL_DIR, provider, version, self.os_arch))

    def _reuse(self, provider: ProviderSource, version: Version, pinned: LockedProvider | None) -> Installed | None:
        """The package already installed here or in the cache, when the lock file vouches for it."""
        if pinned is None or not pinned.hashes:
            return None
        places = [("already installed", cache.package_path(self.root_dir / INSTALL_DIR, provider, version, self.os_arch))]
        if self.cache_dir is not None:
            places.append(("the plugin cache", cache.package_path(self.cache_dir, provider, version, self.os_arch)))
        for origin, directory in places:
            with self._entry(provider, version):
                if not directory.is_dir():
                    continue
                digests = file_digests(directory)
                h1 = digests_hash(digests)
                if h1 not in pinned.hashes:
                    continue
                if origin == "the plugin cache":
                    self._link(directory, provider, version)
                executable = executable_in(directory, provider)
                return Installed(provider, version, executable, origin, [h1],
                                 executable_sha256=digests.get(executable.name, ""))
        return None

    def _in_place(self, package: Package, pinned: LockedProvider | None) -> Installed:
        """An unpacked filesystem-mirror package, used where it is."""
        directory = Path(package.location)
        digests = file_digests(directory)
        h1 = digests_hash(digests)
        _check_lock(pinned, {h1}, package.provider, package.version, package.origin)
        executable = executable_in(directory, package.provider)
        return Installed(package.provider, package.version, executable, package.origin, [h1],
                         executable_sha256=digests.get(executable.name, ""))


def choose_version(sources: Sources, provider: ProviderSource, constraint_text: str,
                   locked: LockedProvider | None, os_arch: str) -> Version:
    """The locked version (which must meet the constraints), else the newest the sources offer."""
    constraints = Constraints.parse(constraint_text or None)
    if locked is not None:
        version = Version.parse(locked.version)
        if not constraints.allows(version):
            raise InstallError(
                f"provider {provider} is locked at {version} in {LOCK_FILE}, which the constraints "
                f"{constraints} do not allow",
                hint="Run `ctl init -upgrade` to choose a version within the new constraints.",
            )
        return version
    available = sources.versions(provider, os_arch)
    chosen = constraints.newest(available)
    if chosen is None:
        listed = ", ".join(str(v) for v in available) or "none"
        raise InstallError(
            f"no available version of provider {provider} matches {constraints or 'any version'} for {os_arch}",
            detail=f"Available versions: {listed}\nLooked in: " + "; ".join(sources.describe(provider)),
            hint="Change the version constraint in required_providers.",
        )
    return chosen


def _check_lock(pinned: LockedProvider | None, own: set[str], provider: ProviderSource, version: Version,
                origin: str) -> None:
    if pinned is None or not pinned.hashes or own & set(pinned.hashes):
        return
    raise InstallError(
        f"the package of provider {provider} v{version} from {origin} matches none of the checksums "
        f"recorded in {LOCK_FILE}",
        detail="Its hashes: " + ", ".join(sorted(own)),
        hint="Nothing was installed. If the lock file is right, the package was altered; if the provider was "
             "legitimately re-released, remove its entry from the lock file and run `ctl init` again.",
    )
