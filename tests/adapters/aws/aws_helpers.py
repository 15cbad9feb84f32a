"""Running the real ``ctl`` executable against the shared moto server, and looking at the result.

Every step of the AWS tests is checked twice: through what ctl prints or exits with, and against
the server itself with boto3 (``AwsProject.client``), never only through ctl's own view.
"""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.e2e.helpers import CTL, Project, Result, clean_env
from tests.servers import MotoServer

PROVIDER = """
provider "aws" {
  region = "us-east-1"
}
"""

NOOP = "No changes."
DRIFT = "Objects have changed outside of ctl"


class AwsProject(Project):
    """A configuration directory whose ctl runs talk to the moto server."""

    def __init__(self, root: Path, server: MotoServer) -> None:
        super().__init__(root)
        self.server = server

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 120,
            without: tuple[str, ...] = (), policies: bool = False) -> Result:
        """Run ctl with the server's AWS_* variables (minus ``without``) and ``env`` on top."""
        merged = {k: v for k, v in self.server.env.items() if k not in without}
        if not policies and args and args[0] in ("plan", "apply", "destroy") and builtin_policies_switch():
            # The built-in policy pack judges configurations (encryption, tags …); these tests
            # exercise the adapter on deliberately small ones, so the pack stays out of the way.
            args = (args[0], "--no-builtin-policies", *args[1:])
        return super().ctl(*args, env={**merged, **(env or {})}, timeout=timeout)

    def client(self, service: str, **kwargs: Any) -> Any:
        return self.server.client(service, **kwargs)

    def setup(self, config: str, *, provider: str = PROVIDER) -> None:
        """Write the configuration, provider block first (plan and apply need no ``init``)."""
        self.write(provider + config)

    def plan_code(self) -> tuple[int, str]:
        """``ctl plan --detailed-exitcode``: (exit code, output); never a traceback."""
        res = self.ctl("plan", "--detailed-exitcode")
        assert "Traceback" not in res.output, str(res)
        assert res.code in (0, 2), str(res)
        return res.code, res.stdout

    def assert_noop(self) -> None:
        code, out = self.plan_code()
        assert code == 0, out
        assert NOOP in out

    def attrs(self, address: str) -> dict[str, Any]:
        """The attributes of ``address`` in the state file."""
        return dict(self.instances()[address]["attributes"])

    def reimport(self, address: str, resource_id: str) -> Result:
        """Forget ``address`` (the object stays) and adopt it again by its import ID."""
        self.ok("state", "rm", address)
        assert address not in self.instances()
        res = self.ok("import", address, resource_id)
        assert "Import successful" in res.stdout
        return res


@functools.cache
def builtin_policies_switch() -> bool:
    """Whether this ctl has ``--no-builtin-policies`` on plan/apply/destroy (asked once)."""
    proc = subprocess.run([CTL, "apply", "--help"], env=clean_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    return "--no-builtin-policies" in proc.stdout


def tags_of(tag_list: list[dict[str, str]] | None) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in tag_list or []}


def compact(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"))
