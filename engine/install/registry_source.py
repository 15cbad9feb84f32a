"""The provider registry protocol (``direct`` installation): service discovery, versions, downloads.

``https://HOST/.well-known/terraform.json`` names the ``providers.v1`` base; under it,
``NAMESPACE/TYPE/versions`` lists versions with their platforms and
``NAMESPACE/TYPE/VERSION/download/OS/ARCH`` names the zip, its SHA-256, the ``SHA256SUMS`` file,
its detached signature and the keys that may sign it. Answers are kept for the run, so resolving
and fetching a provider asks each question once.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from engine.install.credentials import Credentials, refused
from engine.install.fetch import FetchError, get_json
from engine.install.sources import InstallError, Package, expect_object, objects
from vocab.providers import ProviderSource
from vocab.versions import Version

SERVICE = "providers.v1"
_DOWNLOAD_FIELDS = ("download_url", "shasum", "shasums_url", "shasums_signature_url", "filename")


@dataclass
class RegistrySource:
    """Direct installation from each provider's own registry host."""

    credentials: Credentials = field(default_factory=Credentials)
    _bases: dict[str, str] = field(default_factory=dict)
    _listed: dict[str, Any] = field(default_factory=dict)

    def _get(self, url: str, hostname: str) -> Any:
        """``url`` on the registry ``hostname``, with its token; a refusal says how to give one."""
        try:
            return get_json(url, self.credentials.token_for(hostname))
        except FetchError as exc:
            hint = refused(hostname, exc, self.credentials)
            if hint is not None:
                raise InstallError(f"the registry {hostname} refused the request: {exc.summary}", hint=hint) from None
            raise

    def describe(self) -> str:
        return "the provider's registry"

    def base(self, hostname: str) -> str:
        if hostname not in self._bases:
            discovery = f"https://{hostname}/.well-known/terraform.json"
            try:
                services = self._get(discovery, hostname)
            except FetchError as exc:
                if not exc.unreachable:  # it answered, but too much, too slowly or with an error
                    raise InstallError(f"the registry {hostname} could not be used: {exc.summary}",
                                       hint=exc.hint) from None
                raise InstallError(f"cannot reach the registry {hostname}: {exc.summary}",
                                   hint="Check the network, or install from a mirror "
                                        "(provider_installation in the CLI configuration).") from None
            base = expect_object(services, "the service discovery document", discovery).get(SERVICE)
            if not isinstance(base, str):
                raise InstallError(f"{hostname} is not a provider registry (its {discovery} has no {SERVICE})")
            try:
                self._bases[hostname] = urllib.parse.urljoin(discovery, base).rstrip("/") + "/"
            except ValueError:
                raise InstallError(f"{hostname} names a malformed {SERVICE} address in {discovery}") from None
        return self._bases[hostname]

    def _versions_doc(self, provider: ProviderSource) -> list[dict[str, Any]]:
        key = str(provider)
        if key not in self._listed:
            url = f"{self.base(provider.hostname)}{provider.namespace}/{provider.type}/versions"
            try:
                doc = self._get(url, provider.hostname)
            except FetchError as exc:
                if exc.status == 404:
                    raise InstallError(f"provider {provider} does not exist in its registry",
                                       hint="Check the source address in required_providers.") from None
                raise
            self._listed[key] = objects(expect_object(doc, "the versions document", url).get("versions"))
        return list(self._listed[key])

    def versions(self, provider: ProviderSource, os_arch: str) -> list[Version]:
        os_name, _, arch = os_arch.partition("_")
        found = []
        for entry in self._versions_doc(provider):
            platforms = objects(entry.get("platforms"))
            if not any(p.get("os") == os_name and p.get("arch") == arch for p in platforms):
                continue
            try:
                found.append(Version.parse(str(entry.get("version"))))
            except ValueError:
                continue
        return sorted(found)

    def package(self, provider: ProviderSource, version: Version, os_arch: str) -> Package | None:
        os_name, _, arch = os_arch.partition("_")
        url = f"{self.base(provider.hostname)}{provider.namespace}/{provider.type}/{version}/download/{os_name}/{arch}"
        try:
            doc = self._get(url, provider.hostname)
        except FetchError as exc:
            if exc.status == 404:
                return None
            raise
        doc = expect_object(doc, "the download document", url)
        signing = doc.get("signing_keys")
        keys = objects(signing.get("gpg_public_keys")) if isinstance(signing, dict) else []
        armored = tuple(k["ascii_armor"] for k in keys if isinstance(k.get("ascii_armor"), str))
        fields = {name: doc.get(name) for name in _DOWNLOAD_FIELDS}
        wrong = [name for name, value in fields.items() if not isinstance(value, str) or not value]
        if wrong:
            raise InstallError(f"the registry's download answer for {provider} v{version} lacks "
                               f"{', '.join(wrong)} (or gives something other than text)",
                               hint="The registry does not follow the provider registry protocol.")
        try:
            return Package(
                provider, version, os_arch, urllib.parse.urljoin(url, str(fields["download_url"])), "url",
                f"registry {provider.hostname}", sha256=str(fields["shasum"]).lower(),
                shasums_url=urllib.parse.urljoin(url, str(fields["shasums_url"])),
                signature_url=urllib.parse.urljoin(url, str(fields["shasums_signature_url"])),
                signing_keys=armored, filename=str(fields["filename"]),
            )
        except ValueError as exc:  # a URL urllib cannot even split ("https://[oops")
            raise InstallError(f"the registry's download answer for {provider} v{version} holds a "
                               f"malformed URL: {exc}",
                               hint="The registry does not follow the provider registry protocol.") from None
