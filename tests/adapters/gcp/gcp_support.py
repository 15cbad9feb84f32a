"""Running the real ``ctl`` executable against fake-gcs-server, and reading back what it did.

Tests drive ctl exactly as a user would (a configuration directory, the console script, the
emulator's environment) and check each step twice: in ctl's plan and state, and on the server
through google-cloud-storage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.e2e.helpers import Project, Result
from tests.servers import FakeGcsServer

PROVIDER_BLOCK = """
provider "google" {
  project = "test"
  region  = "us-central1"
}
"""


class GcsProject(Project):
    """A configuration directory whose ctl runs see the emulator's environment."""

    def __init__(self, root: Path, server: FakeGcsServer) -> None:
        super().__init__(root)
        self.server = server
        self.storage = server.client()

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
        """Planned actions by address (no-ops included)."""
        return {c["address"]: c["change"]["actions"] for c in self.plan_json()["resource_changes"]}

    def no_changes(self) -> None:
        """``ctl plan --detailed-exitcode`` exits 0: the configuration matches the real objects."""
        res = self.ctl("plan", "--detailed-exitcode")
        assert res.code == 0, str(res)

    def attributes(self, address: str) -> dict[str, Any]:
        return self.instances()[address]["attributes"]
