"""Where provider packages come from: the source interface, filesystem mirrors, and several in order.

A source answers two questions, which versions of a provider it has for a platform, and where the
package of one version is (with whatever the source vouches for: a checksum, signed hashes).
Several sources combine as Terraform's ``provider_installation`` does: the versions of every source
whose include/exclude patterns admit the provider are pooled, the newest allowed one is chosen,
and it is fetched from the first source that has it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.install.discovery import installed_in
from vocab.errors import CtlError
from vocab.providers import ProviderSource
from vocab.versions import Version


class InstallError(CtlError):
    """A provider that cannot be installed as asked; nothing was installed for it."""


def expect_object(doc: object, what: str, url: str) -> dict[str, Any]:
    """``doc`` when it is a JSON object; a registry or mirror that answers anything else is refused
    (its documents come from a remote party: a list or a number must not become a crash)."""
    if isinstance(doc, dict):
        return doc
    raise InstallError(f"{what} at {url} is not a JSON object",
                       hint="The server does not follow the provider registry protocol; tell its operator.")


def objects(value: object) -> list[dict[str, Any]]:
    """The JSON objects in ``value`` when it is a list (anything else in a document is skipped)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


@dataclass(frozen=True)
class Package:
    """One version of a provider for one platform, as a source offers it."""

    provider: ProviderSource
    version: Version
    os_arch: str
    location: str  # a URL, a zip's path, or an unpacked directory's path
    kind: str  # "url", "zip" or "dir"
    origin: str  # the source, for messages and init's report
    sha256: str = ""  # the zip's checksum the source vouches for (registry)
    signed_hashes: tuple[str, ...] = ()  # zh: hashes of every platform, from a signed SHA256SUMS
    mirror_hashes: tuple[str, ...] = ()  # hashes a network mirror states for this archive
    shasums_url: str = ""
    signature_url: str = ""
    signing_keys: tuple[str, ...] = ()  # armored OpenPGP keys
    filename: str = ""


class Source(Protocol):
    def describe(self) -> str: ...

    def versions(self, provider: ProviderSource, os_arch: str) -> list[Version]: ...

    def package(self, provider: ProviderSource, version: Version, os_arch: str) -> Package | None: ...


@dataclass
class Patterns:
    """``include``/``exclude`` of a ``provider_installation`` method: ``HOST/NS/TYPE`` with ``*`` parts."""

    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)

    def admits(self, provider: ProviderSource) -> bool:
        address = str(provider)
        if self.include and not any(_matches(address, p) for p in self.include):
            return False
        return not any(_matches(address, p) for p in self.exclude)


def _matches(address: str, pattern: str) -> bool:
    try:
        wanted = str(ProviderSource.parse(pattern.replace("*", "x"))).split("/")
    except CtlError:
        return False
    parts = pattern.lower().split("/")
    if len(parts) > 3:
        return False
    parts = [*wanted[: 3 - len(parts)], *parts]  # fill defaults for NS/TYPE or TYPE patterns
    return all(fnmatch.fnmatchcase(a, p) for a, p in zip(address.split("/"), parts, strict=True))


@dataclass
class FilesystemMirror:
    """A directory laid out as Terraform's mirrors are: unpacked ``HOST/NS/TYPE/VERSION/OS_ARCH/``
    directories or packed ``HOST/NS/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`` files."""

    path: Path

    def describe(self) -> str:
        return str(self.path)

    def versions(self, provider: ProviderSource, os_arch: str) -> list[Version]:
        return sorted({p.version for p in installed_in(self.path, provider, os_arch)})

    def package(self, provider: ProviderSource, version: Version, os_arch: str) -> Package | None:
        found = [p for p in installed_in(self.path, provider, os_arch) if p.version == version]
        if not found:
            return None
        best = min(found, key=lambda p: p.packed)  # an unpacked copy is used in place
        if best.packed:
            return Package(provider, version, os_arch, str(best.path), "zip", str(self.path),
                           filename=best.path.name)
        return Package(provider, version, os_arch, str(best.path.parent), "dir", str(self.path))


@dataclass
class Method:
    """One installation method with the providers it may serve."""

    source: Source
    patterns: Patterns = field(default_factory=Patterns)


@dataclass
class Sources:
    """The methods in order; see the module docstring for how they combine."""

    methods: list[Method]

    def admitting(self, provider: ProviderSource) -> list[Source]:
        return [m.source for m in self.methods if m.patterns.admits(provider)]

    def versions(self, provider: ProviderSource, os_arch: str) -> list[Version]:
        admitted = self.admitting(provider)
        if not admitted:
            raise InstallError(f"no installation method may install provider {provider}",
                               hint="Add it to an include pattern of provider_installation in the CLI "
                                    "configuration (or remove the exclude that names it).")
        found: set[Version] = set()
        for source in admitted:
            found.update(source.versions(provider, os_arch))
        return sorted(found)

    def package(self, provider: ProviderSource, version: Version, os_arch: str) -> Package:
        for source in self.admitting(provider):
            if version in source.versions(provider, os_arch):
                package = source.package(provider, version, os_arch)
                if package is not None:
                    return package
        raise InstallError(f"provider {provider} v{version} is not available for {os_arch}",
                           detail="Looked in:\n  " + "\n  ".join(s.describe() for s in self.admitting(provider)),
                           hint="Choose a version that is published for this platform.")

    def describe(self, provider: ProviderSource) -> list[str]:
        return [s.describe() for s in self.admitting(provider)]
