"""``-parallelism`` is one limit for the whole run: refresh, planning and apply alike, as in Terraform.

A native adapter plug-in, installed the way a third-party one is (an entry point on the path of the
real ``ctl`` executable), sleeps in every operation and logs how many of its operations were in
flight as each began. The limit holds across every walk of a run, and the default stays 10.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, Project, Result

ADAPTER = '''
"""Every operation sleeps, logging the operations in flight as it begins (INFLIGHT_LOG)."""

import os
import threading
import time
import uuid

from adapters.base import Provider, ResourceType

_lock = threading.Lock()
_in_flight = 0


def _call(op):
    global _in_flight
    log = os.environ.get("INFLIGHT_LOG")
    with _lock:
        _in_flight += 1
        if log:
            with open(log, "a") as f:
                f.write(f"{op} {_in_flight}\\n")
    try:
        time.sleep(float(os.environ.get("INFLIGHT_PAUSE", "0.2")))
    finally:
        with _lock:
            _in_flight -= 1


class Call(ResourceType):
    name = "inflight_call"
    schema = {"type": "object", "additionalProperties": False, "required": ["input"],
              "properties": {"input": {"type": "string"}, "id": {"type": ["string", "null"], "readOnly": True}}}
    computed = frozenset({"id"})
    remote_plan = True  # its instances plan concurrently, as a plugin's do

    def read(self, ctx, attrs):
        _call("read")
        return dict(attrs)

    def plan(self, ctx, prior, planned):
        _call("plan")
        return super().plan(ctx, prior, planned)

    def create(self, ctx, planned):
        _call("create")
        return {**planned, "id": str(uuid.uuid4())}

    def update(self, ctx, prior, planned):
        _call("update")
        return {**planned, "id": prior["id"]}

    def delete(self, ctx, prior):
        _call("delete")


PROVIDER = Provider(name="inflight", source="example.com/test/inflight", resources={"inflight_call": Call()},
                    config_schema={"type": "object", "properties": {}, "additionalProperties": False})
'''

CONFIG = """
variable "round" {{
  type = string
}}
resource "inflight_call" "x" {{
  count = {count}
  input = "${{var.round}}-${{count.index}}"
}}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The adapter as an installed distribution: a module and its entry point in the ctl.adapters group."""
    site = tmp_path_factory.mktemp("inflight-site")
    (site / "ctl_inflight.py").write_text(textwrap.dedent(ADAPTER).lstrip())
    info = site / "ctl_inflight-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ctl-inflight\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ctl.adapters]\ninflight = ctl_inflight:PROVIDER\n")
    return site


class InflightProject(Project):
    """ctl runs that see the adapter, each operation logged to ``log``."""

    def __init__(self, root: Path, site: Path) -> None:
        super().__init__(root)
        self.site = site
        self.log = root / "inflight.log"

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 120) -> Result:
        env = {"PYTHONPATH": f"{self.site}:{REPO}", "INFLIGHT_LOG": str(self.log), **(env or {})}
        return super().ctl(*args, env=env, timeout=timeout)

    def in_flight(self) -> dict[str, int]:
        """The most operations in flight as one of each kind began, by kind, since the log was last read."""
        most: dict[str, int] = {}
        for line in self.log.read_text().splitlines():
            op, count = line.split()
            most[op] = max(most.get(op, 0), int(count))
        self.log.unlink()
        return most


@pytest.fixture
def project(tmp_path: Path, site: Path) -> InflightProject:
    return InflightProject(tmp_path, site)


def test_parallelism_limits_refresh_planning_and_apply_together(project: InflightProject) -> None:
    project.write(CONFIG.format(count=6))
    project.apply("-parallelism=2", "-var", "round=1")  # plans and creates 6
    assert project.in_flight() == {"plan": 2, "create": 2}
    project.ok("plan", "-parallelism=2", "-var", "round=1")  # refreshes 6, plans 6
    assert project.in_flight() == {"read": 2, "plan": 2}
    project.apply("-parallelism=2", "-var", "round=2")  # refreshes, plans and updates 6
    assert project.in_flight() == {"read": 2, "plan": 2, "update": 2}
    project.ok("destroy", "--auto-approve", "-parallelism=2", "-var", "round=2")
    assert max(project.in_flight().values()) == 2


def test_the_default_parallelism_is_10(project: InflightProject) -> None:
    project.write(CONFIG.format(count=12))
    project.apply("-var", "round=1")
    assert project.in_flight() == {"plan": 10, "create": 10}
    project.apply("-var", "round=2")
    assert project.in_flight() == {"read": 10, "plan": 10, "update": 10}
