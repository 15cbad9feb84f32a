"""The remote backends through the real ``ctl`` executable, against moto (s3), fake-gcs-server (gcs) and
Azurite (azurerm): the whole life cycle with workspaces in Terraform's object layout, an apply killed
with ``kill -9`` and recovered from the remote journal by a process on "another machine" (a fresh
copy of the configuration, nothing local carried over), eight processes racing for the lock, and the
migration chain local -> s3 -> azurerm -> gcs keeping every byte of every workspace's state.

What lands in the buckets is read back with each cloud's own SDK, not through ctl.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    FAST,
    FAST_AND_SLOW,
    SLOW,
    Project,
    Result,
    background,
    communicate,
    instances_of,
    wait_until,
)
from tests.servers import Azurite, FakeGcsServer, MotoServer

pytestmark = pytest.mark.slow

S3_KEY = "team/app.tfstate"
GCS_PREFIX = "team/app"
AZURE_KEY = "app.tfstate"


@dataclass
class Remote:
    """One backend on its test server: the block to write, how to init, and an SDK view of the objects."""

    kind: str
    env: dict[str, str]
    block: str  # the body of backend "<kind>" { … }
    init_args: list[str]  # --backend-config for what the block leaves out
    state_key: Callable[[str], str]
    get: Callable[[str], bytes | None]
    keys: Callable[[], list[str]] = field(default_factory=lambda: list)

    def write_backend(self, project: Project) -> None:
        project.write(f'terraform {{\n  backend "{self.kind}" {{\n{self.block}  }}\n}}\n', "backend.tf")

    def lock_key(self, workspace: str = "default") -> str:
        """``<state>.tflock`` (s3, azurerm) or ``<prefix>/<workspace>.tflock`` (gcs), as Terraform names it."""
        key = self.state_key(workspace)
        return (key.removesuffix(".tfstate") if self.kind == "gcs" else key) + ".tflock"

    def state(self, workspace: str = "default") -> dict[str, Any]:
        data = self.get(self.state_key(workspace))
        assert data is not None, f"no state object {self.state_key(workspace)}"
        return dict(json.loads(data))

    def journal(self, workspace: str = "default") -> list[dict[str, Any]]:
        prefix = self.state_key(workspace) + ".journal/"
        entries = []
        for key in sorted(k for k in self.keys() if k.startswith(prefix)):
            data = self.get(key)
            if data:
                entries.append(json.loads(data))
        return entries


def s3_remote(moto: MotoServer) -> Remote:
    bucket = f"ctl-e2e-{uuid.uuid4().hex[:8]}"
    s3 = moto.client("s3")
    s3.create_bucket(Bucket=bucket)

    def get(key: str) -> bytes | None:
        try:
            return bytes(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
        except s3.exceptions.NoSuchKey:
            return None

    def keys() -> list[str]:
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]

    return Remote(
        "s3", dict(moto.env), f'    key = "{S3_KEY}"\n    use_path_style = true\n', ["--backend-config", f"bucket={bucket}"],
        lambda ws: S3_KEY if ws == "default" else f"env:/{ws}/{S3_KEY}", get, keys,
    )  # fmt: skip


def gcs_remote(gcs: FakeGcsServer) -> Remote:
    name = f"ctl-e2e-{uuid.uuid4().hex[:8]}"
    client = gcs.client()
    bucket = client.create_bucket(name)

    def get(key: str) -> bytes | None:
        blob = bucket.get_blob(key)
        return None if blob is None else bytes(blob.download_as_bytes())

    def keys() -> list[str]:
        return [b.name for b in client.list_blobs(name)]

    return Remote(
        "gcs", dict(gcs.env), f'    prefix = "{GCS_PREFIX}"\n', ["--backend-config", f"bucket={name}"],
        lambda ws: f"{GCS_PREFIX}/{ws}.tfstate", get, keys,
    )  # fmt: skip


def azure_remote(azurite: Azurite) -> Remote:
    name = f"ctl-e2e-{uuid.uuid4().hex[:8]}"
    container = azurite.blob_service().create_container(name)

    def get(key: str) -> bytes | None:
        from azure.core.exceptions import ResourceNotFoundError

        try:
            return bytes(container.download_blob(key).readall())
        except ResourceNotFoundError:
            return None

    def keys() -> list[str]:
        return [b.name for b in container.list_blobs()]

    return Remote(
        "azurerm", dict(azurite.env), f'    key = "{AZURE_KEY}"\n', ["--backend-config", f"container_name={name}"],
        lambda ws: AZURE_KEY if ws == "default" else f"{AZURE_KEY}env:{ws}", get, keys,
    )  # fmt: skip


_MAKERS = {"s3": ("moto_server_clean", s3_remote), "gcs": ("fake_gcs_clean", gcs_remote),
           "azurerm": ("azurite_clean", azure_remote)}  # fmt: skip


@pytest.fixture(params=sorted(_MAKERS))
def remote(request: pytest.FixtureRequest) -> Remote:
    fixture, make = _MAKERS[request.param]
    return make(request.getfixturevalue(fixture))


class RemoteProject(Project):
    """A configuration directory whose every ctl run sees the test servers' client variables."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        super().__init__(root)
        self.env = env

    def ctl(self, *args: str, env: Any = None, timeout: float = 120) -> Result:
        return super().ctl(*args, env={**self.env, **(env or {})}, timeout=timeout)

    def start(self, *args: str, env: Any = None) -> subprocess.Popen[str]:
        return super().start(*args, env={**self.env, **(env or {})})


def project_for(root: Path, remote: Remote, config: str) -> RemoteProject:
    root.mkdir(parents=True, exist_ok=True)
    project = RemoteProject(root, remote.env)
    project.write(config)
    remote.write_backend(project)
    return project


def resources(state: dict[str, Any]) -> set[str]:
    return set(instances_of(state))


_UNLOCK = re.compile(r"ctl state unlock (?:--force )?([0-9a-fA-F-]{36})")

LIFECYCLE = """
resource "time_sleep" "a" {
  create_duration = "0s"
}
resource "terraform_data" "b" {
  input = time_sleep.a.id
}
output "b" {
  value = terraform_data.b.output
}
"""


def test_lifecycle_with_workspaces_in_terraforms_layout(remote: Remote, tmp_path: Path) -> None:
    project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
    res = project.ok("init", *remote.init_args)
    assert f"Backend: {remote.kind}" in res.stdout
    assert "Traceback" not in res.output

    project.apply()
    state = remote.state()
    assert resources(state) == {"time_sleep.a", "terraform_data.b"}
    assert state["serial"] >= 1 and state["lineage"]
    assert project.ctl("plan", "--detailed-exitcode").code == 0
    assert project.ok("state", "list").stdout.split() == ["terraform_data.b", "time_sleep.a"]
    assert not project.state_file.exists()  # nothing kept locally

    project.ok("workspace", "new", "staging")
    assert remote.state("staging")["resources"] == []  # at <prefix>env:/staging/<key> and the like
    assert project.ok("workspace", "list").stdout.split() == ["default", "*", "staging"]
    project.apply()
    assert resources(remote.state("staging")) == {"time_sleep.a", "terraform_data.b"}
    assert remote.state()["serial"] == state["serial"]  # the default workspace was not touched

    project.ok("workspace", "select", "default")
    project.ok("destroy", "--auto-approve")
    assert remote.state()["resources"] == []
    assert resources(remote.state("staging")) == {"time_sleep.a", "terraform_data.b"}
    assert remote.get(remote.lock_key()) is None
    assert remote.get(remote.lock_key("staging")) is None



def test_kill_9_is_recovered_from_the_remote_journal_by_another_process(remote: Remote, tmp_path: Path) -> None:
    first = project_for(tmp_path / "laptop", remote, FAST_AND_SLOW)
    first.ok("init", *remote.init_args)

    def progress() -> bool:
        entries = remote.journal()
        done = {e["address"] for e in entries if e.get("kind") == "result" and e.get("op") == "create"}
        begun = {e["address"] for e in entries if e.get("kind") == "intent"}
        return done >= FAST and begun >= SLOW

    with background(first.start("apply", "--auto-approve")) as proc:
        wait_until(progress, timeout=60, what="the fast sleeps to finish and the slow ones to start")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    fast_ids = {e["address"]: e["attributes"]["id"] for e in remote.journal()
                if e.get("kind") == "result" and e.get("address") in FAST}
    assert remote.get(remote.lock_key()) is not None  # left by the killed run

    other = tmp_path / "ci-runner"  # another machine: the configuration only, no .ctl, no local files
    other.mkdir()
    for name in ("main.tf", "backend.tf"):
        shutil.copy(first.path(name), other / name)
    second = RemoteProject(other, remote.env)
    second.ok("init", *remote.init_args)
    res = second.ctl("plan")
    assert res.code == 0, res
    assert "Recovered the results of an interrupted apply" in res.stderr
    for addr in sorted(SLOW):  # nothing outside the state to look for: created again
        assert f"{addr}: an interrupted apply started to create it; a time_sleep leaves nothing" in res.stderr
    assert "Plan: 2 to add, 0 to change, 0 to destroy." in res.stdout

    res = second.ctl("apply", "--auto-approve", "--var", "slow=0s")
    assert res.code == 4, res  # the killed run's lock is still there, and named
    match = _UNLOCK.search(res.stderr)
    assert match, res
    second.ok("state", "unlock", "--force", match.group(1))

    res = second.ctl("apply", "--auto-approve", "--var", "slow=0s")
    assert res.code == 0, res
    assert "Resources: 2 added, 0 changed, 0 destroyed." in res.stdout
    state = remote.state()
    insts = instances_of(state)
    assert set(insts) == FAST | SLOW
    assert {a: insts[a]["attributes"]["id"] for a in FAST} == fast_ids  # kept, not created again
    assert remote.journal() == []
    assert remote.get(remote.lock_key()) is None


def test_eight_processes_race_for_the_lock_and_exactly_one_wins(remote: Remote, tmp_path: Path) -> None:
    project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
    project.ok("init", *remote.init_args)
    racers = [project.start("state", "lock", "--reason", f"racer {i}") for i in range(8)]
    results = []
    for proc in racers:
        with background(proc):
            results.append(communicate(proc, timeout=120))
    codes = sorted(r.code for r in results)
    assert codes == [0] + [4] * 7, "\n".join(str(r) for r in results)
    winner = next(r for r in results if r.code == 0)
    lock_id = winner.stdout.strip()
    held = json.loads(remote.get(remote.lock_key()) or b"{}")
    assert held["ID"] == lock_id
    for loser in (r for r in results if r.code == 4):
        assert lock_id in loser.stderr and "Traceback" not in loser.stderr
    project.ok("state", "unlock", lock_id)
    assert remote.get(remote.lock_key()) is None


def test_migration_chain_local_s3_azurerm_gcs_keeps_every_workspace(
    tmp_path: Path, moto_server_clean: MotoServer, fake_gcs_clean: FakeGcsServer, azurite_clean: Azurite
) -> None:
    chain = [s3_remote(moto_server_clean), azure_remote(azurite_clean), gcs_remote(fake_gcs_clean)]
    env = {k: v for r in chain for k, v in r.env.items()}
    project = RemoteProject(tmp_path / "cfg", env)
    project.root.mkdir()
    project.write(LIFECYCLE)
    project.ok("init")
    project.apply()
    project.ok("workspace", "new", "staging")
    project.apply()
    project.ok("workspace", "select", "default")
    local = {"default": project.state_file.read_bytes(),
             "staging": (project.root / "ctl.tfstate.d" / "staging" / "ctl.tfstate").read_bytes()}  # fmt: skip
    facts = {ws: json.loads(data) for ws, data in local.items()}
    assert facts["default"]["lineage"] != facts["staging"]["lineage"]

    for remote in chain:
        remote.write_backend(project)
        res = project.ctl("init", *remote.init_args)
        assert res.code == 1 and "--migrate-state" in res.stderr, res  # a change is never silent
        res = project.ok("init", "--migrate-state", "--force-copy", *remote.init_args)
        for ws in ("default", "staging"):
            assert f'Workspace "{ws}"' in res.stdout
            data = remote.get(remote.state_key(ws))
            assert data == local[ws], f"{remote.kind}/{ws}: not the same bytes"
            doc = json.loads(data or b"{}")
            assert (doc["lineage"], doc["serial"]) == (facts[ws]["lineage"], facts[ws]["serial"])
            assert resources(doc) == {"time_sleep.a", "terraform_data.b"}
            assert remote.get(remote.lock_key(ws)) is None

    assert project.ctl("plan", "--detailed-exitcode").code == 0
    assert project.ok("state", "list").stdout.split() == ["terraform_data.b", "time_sleep.a"]
    project.ok("workspace", "select", "staging")
    assert project.ctl("plan", "--detailed-exitcode").code == 0
    assert project.ok("workspace", "list").stdout.split() == ["default", "*", "staging"]
