"""Running the real ``ctl`` executable against Azurite, and reading back what it did.

Tests drive ctl as a user would (configuration directory, console script, the connection string
in ``AZURE_STORAGE_CONNECTION_STRING``) and check each step in ctl's plan and state and on the
server through azure-storage-blob / azure-storage-queue.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.e2e.helpers import CTL, Project, Result, clean_env
from tests.servers import Azurite

PROVIDER_BLOCK = """
provider "azurerm" {
  features {}
}
"""
ACCOUNT = Azurite.account_name


class AzureProject(Project):
    """A configuration directory whose ctl runs see Azurite's connection string."""

    def __init__(self, root: Path, server: Azurite) -> None:
        super().__init__(root)
        self.server = server
        self.blobs = server.blob_service()
        self.queues = server.queue_service()

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 120) -> Result:
        return super().ctl(*args, env={**self.server.env, **(env or {})}, timeout=timeout)

    def configure(self, body: str) -> None:
        """Write main.tf: the provider block and ``body``."""
        self.write(PROVIDER_BLOCK + body)

    def plan_json(self) -> dict[str, Any]:
        """``ctl plan --out`` then ``ctl show --json``: Terraform's machine-readable plan."""
        self.ok("plan", "--out", "ctl.plan")
        return json.loads(self.ok("show", "--json", "ctl.plan").stdout)

    def actions(self) -> dict[str, list[str]]:
        return {c["address"]: c["change"]["actions"] for c in self.plan_json()["resource_changes"]}

    def no_changes(self) -> None:
        """``ctl plan --detailed-exitcode`` exits 0: the configuration matches the real objects."""
        res = self.ctl("plan", "--detailed-exitcode")
        assert res.code == 0, str(res)

    def attributes(self, address: str) -> dict[str, Any]:
        return self.instances()[address]["attributes"]


@functools.cache
def without_builtin_policies() -> tuple[str, ...]:
    """Options that leave the built-in policy pack out of a run, where this ctl has one.

    The pack denies public containers; the adapter tests need one to exercise the attribute.
    """
    import subprocess

    out = subprocess.run([CTL, "apply", "--help"], env=clean_env(), capture_output=True, text=True,
                         timeout=60).stdout
    return ("--no-builtin-policies",) if "--no-builtin-policies" in out else ()
