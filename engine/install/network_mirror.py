"""The provider network mirror protocol: ``HOST/NS/TYPE/index.json`` and ``HOST/NS/TYPE/VERSION.json``.

A mirror is trusted by being configured (over HTTPS); it states each archive's hashes, which the
downloaded package must match and which go into the lock file.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from engine.install.credentials import Credentials, refused
from engine.install.fetch import FetchError, get_json
from engine.install.sources import InstallError, Package, expect_object
from vocab.providers import ProviderSource
from vocab.versions import Version


@dataclass
class NetworkMirror:
    url: str
    credentials: Credentials = field(default_factory=Credentials)
    _docs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.url.startswith("https://"):
            raise InstallError(f"the network mirror {self.url} is not an https:// URL",
                               hint="Terraform's network mirror protocol runs over HTTPS only.")
        self.url = self.url.rstrip("/") + "/"

    def describe(self) -> str:
        return f"network mirror {self.url}"

    def _doc(self, path: str) -> Any:
        if path not in self._docs:
            host = urllib.parse.urlsplit(self.url).netloc
            try:
                self._docs[path] = get_json(self.url + path, self.credentials.token_for(host))
            except FetchError as exc:
                if exc.status != 404:
                    raise InstallError(f"the {self.describe()} failed: {exc.summary}",
                                       hint=refused(host, exc, self.credentials) or "") from None
                self._docs[path] = None
        return self._docs[path]

    def _prefix(self, provider: ProviderSource) -> str:
        return f"{provider.hostname}/{provider.namespace}/{provider.type}/"

    def versions(self, provider: ProviderSource, os_arch: str) -> list[Version]:
        path = self._prefix(provider) + "index.json"
        doc = self._doc(path)
        listed = expect_object(doc, "the index", self.url + path).get("versions") if doc is not None else None
        found = []
        for text in listed if isinstance(listed, dict) else {}:
            try:
                found.append(Version.parse(text))
            except ValueError:
                continue
        return sorted(found)  # the platform is checked when the version's archives are read

    def _archive(self, provider: ProviderSource, version: Version, os_arch: str) -> dict[str, Any] | None:
        path = f"{self._prefix(provider)}{version}.json"
        doc = self._doc(path)
        archives = expect_object(doc, "the version document", self.url + path).get("archives") if doc else None
        archive = archives.get(os_arch) if isinstance(archives, dict) else None
        return archive if isinstance(archive, dict) and isinstance(archive.get("url"), str) else None

    def package(self, provider: ProviderSource, version: Version, os_arch: str) -> Package | None:
        archive = self._archive(provider, version, os_arch)
        if archive is None:
            return None
        base = f"{self.url}{self._prefix(provider)}{version}.json"
        try:
            url = urllib.parse.urljoin(base, archive["url"])
        except ValueError as exc:  # a URL urllib cannot even split ("https://[oops")
            raise InstallError(f"the {self.describe()} names a malformed URL for {provider} v{version}: {exc}",
                               hint="Tell the mirror's operator.") from None
        listed = archive.get("hashes")
        hashes = tuple(h for h in listed if isinstance(h, str)) if isinstance(listed, list) else ()
        return Package(provider, version, os_arch, url, "url", self.describe(), mirror_hashes=hashes,
                       filename=url.rsplit("/", 1)[-1])
