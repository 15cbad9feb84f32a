"""Provider source addresses (``registry.terraform.io/hashicorp/random``) and the platform a provider
package is built for: the names the installer, the lock file, the state and the plugin client share."""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass

from vocab.provider_errors import PluginError

DEFAULT_HOSTNAME = "registry.terraform.io"
DEFAULT_NAMESPACE = "hashicorp"
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_HOST = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?$")
_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
         "i686": "386", "armv7l": "arm", "armv6l": "arm"}


class InvalidProviderSource(PluginError):
    """A provider source address that is not HOSTNAME/NAMESPACE/TYPE."""


@dataclass(frozen=True, slots=True)
class ProviderSource:
    hostname: str
    namespace: str
    type: str

    @classmethod
    def parse(cls, text: str) -> ProviderSource:
        """``random``, ``hashicorp/random`` or ``registry.terraform.io/hashicorp/random``."""
        parts = text.strip().lower().split("/")
        if len(parts) == 1:
            parts = [DEFAULT_HOSTNAME, DEFAULT_NAMESPACE, *parts]
        elif len(parts) == 2:
            parts = [DEFAULT_HOSTNAME, *parts]
        if len(parts) != 3 or not _HOST.match(parts[0]) or not all(_LABEL.match(p) for p in parts[1:]):
            raise InvalidProviderSource(
                f"Invalid provider source address {text!r}",
                hint='Write it as TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE, e.g. "hashicorp/random".',
            )
        return cls(*parts)

    def __str__(self) -> str:
        return f"{self.hostname}/{self.namespace}/{self.type}"

    def for_display(self) -> str:
        """As Terraform shows it in messages: without the hostname when it is the public registry."""
        short = f"{self.namespace}/{self.type}"
        return short if self.hostname == DEFAULT_HOSTNAME else str(self)


def host_os_arch() -> str:
    """This machine's platform as provider packages name it (``linux_amd64``, ``darwin_arm64``)."""
    machine = platform.machine().lower()
    return f"{platform.system().lower()}_{_ARCH.get(machine, machine)}"
