"""The lock heartbeat through the real ``ctl``: renewed while an apply runs, a broken lock stops the apply
cleanly, and an abandoned lock is reported with the command that breaks it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    Project,
    Result,
    background,
    communicate,
    finished,
    instances_of,
    sleeps,
    take_lock,
    wait_until,
)
from tests.servers import MotoServer
from vocab.locks import LockInfo

FAST = {"CTL_LOCK_HEARTBEAT_SECONDS": "0.2"}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _lock(project: Project) -> dict[str, Any] | None:
    try:
        return json.loads(project.lock_file.read_text())
    except (FileNotFoundError, ValueError):  # absent, or being replaced at this very moment
        return None


def test_the_heartbeat_advances_while_an_apply_runs(project: Project) -> None:
    project.write(sleeps(2, "1500ms"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "1", env=FAST)) as proc:
        first = wait_until(lambda: _lock(project), what="the lock file")
        assert first["Heartbeat"] == first["Created"]  # as taken
        later = wait_until(lambda: (lock := _lock(project)) and lock["Heartbeat"] > first["Heartbeat"] and lock,
                           what="a renewed heartbeat")
        assert later["ID"] == first["ID"] and later["Created"] == first["Created"]
        res = communicate(proc)
    assert res.code == 0, res
    assert len(project.instances()) == 2
    assert not project.lock_file.exists()


def test_a_lock_broken_mid_apply_stops_new_work_and_exits_1(project: Project) -> None:
    project.write(sleeps(5, "1500ms"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "1", env=FAST)) as proc:
        wait_until(lambda: "time_sleep.s[0]" in finished(project), what="the first sleep to finish")
        lock_id = _lock(project)["ID"]
        broke = project.ok("state", "unlock", "--force", lock_id)
        res = communicate(proc)
    assert "Broke the state lock" in broke.stderr
    assert res.code == 1, res
    assert f"the lock {lock_id} on" in res.stderr and "was removed (force-unlocked)" in res.stderr
    assert "starts nothing new" in res.stderr
    assert "Traceback" not in res.stderr
    created = project.instances()  # what finished is persisted, the rest was never started
    assert 1 <= len(created) < 5, res
    started_lines = re.findall(r"time_sleep\.s\[\d\]: Creating\.\.\.", res.stdout)
    assert len(started_lines) == len(created), res  # everything started also finished and was saved
    assert not project.journal_file.exists()
    assert not project.lock_file.exists()  # nobody's lock was recreated or left behind
    assert project.ok("apply", "--auto-approve").code == 0  # the next run picks up the rest
    assert len(project.instances()) == 5


def test_a_lock_taken_over_mid_apply_names_the_new_holder(project: Project) -> None:
    project.write(sleeps(4, "1500ms"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "1", env=FAST)) as proc:
        wait_until(lambda: _lock(project), what="the lock file")
        # Broken and taken by someone else between two heartbeats (one atomic replacement here, so
        # no beat can fall in between and see the lock merely removed).
        theirs = LockInfo(Operation="OperationTypeStateLock", Who="ops@laptop", Info="hotfix", PID=0)
        scratch = project.path("new.tflock")
        scratch.write_bytes(theirs.to_json())
        os.replace(scratch, project.lock_file)
        res = communicate(proc)
    assert res.code == 1, res
    assert f"was replaced by lock {theirs.ID} of ops@laptop (OperationTypeStateLock)" in res.stderr
    assert _lock(project)["ID"] == theirs.ID  # their lock is left in place
    project.ok("state", "unlock", theirs.ID)


def test_a_wrappers_lock_is_renewed_while_a_command_uses_it(project: Project) -> None:
    project.write(sleeps(1, "1500ms"))
    lock_id = take_lock(project, "pipeline 7")
    before = _lock(project)
    assert before is not None
    res = project.ok("apply", "--auto-approve", env={**FAST, "CTL_LOCK_ID": lock_id})
    after = _lock(project)
    assert after is not None and after["ID"] == lock_id, res  # still held for the wrapper …
    assert after["Heartbeat"] > before["Heartbeat"]  # … and renewed while the apply ran
    project.ok("state", "unlock", lock_id)


def test_an_abandoned_lock_is_reported_with_the_force_command(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = 1\n}\n')
    beat = (datetime.now(UTC) - timedelta(minutes=12)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    created = (datetime.now(UTC) - timedelta(minutes=40)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    lock_id = "5b0f3c1e-9a3d-4c55-8f0e-7d2a1b6c4e90"
    project.lock_file.write_text(json.dumps({
        "ID": lock_id, "Operation": "OperationTypeApply", "Info": "", "Who": "ci@runner-7", "Version": "0.1.0",
        "Created": created, "Path": "", "PID": 0, "Heartbeat": beat,
    }))
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 4, res
    assert "apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)" in res.stderr
    assert f"ctl state unlock --force {lock_id}" in res.stderr

    status = project.ok("state", "lock-status")
    assert "apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)" in status.stdout

    res = project.ok("state", "unlock", "--force", lock_id, env={"CTL_LOG": "warn"})
    log = [json.loads(line) for line in res.stderr.splitlines() if line.startswith("{")]
    (broken,) = [r for r in log if r.get("broken_by")]
    assert broken["lock_who"] == "ci@runner-7" and broken["lock_id"] == lock_id and broken["@level"] == "warn"
    assert project.ok("apply", "--auto-approve").code == 0


# -- the same through an S3 backend (moto) ------------------------------------------------------------

S3_KEY = "team/hb.tfstate"


class EnvProject(Project):
    """A project whose every ctl run also gets ``env`` (the test server's credentials and endpoint)."""

    def __init__(self, root: Path, env: Mapping[str, str]) -> None:
        super().__init__(root)
        self.env = dict(env)

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> Result:
        return super().ctl(*args, env={**self.env, **(env or {})}, timeout=timeout)

    def start(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        return super().start(*args, env={**self.env, **(env or {})})


@pytest.fixture
def s3_project(tmp_path: Path, moto_server_clean: MotoServer) -> tuple[Project, Any, str]:
    """A configuration whose state lives in a fresh moto bucket, initialised; (project, s3 client, bucket)."""
    bucket = f"ctl-hb-{uuid.uuid4().hex[:8]}"
    s3 = moto_server_clean.client("s3")
    s3.create_bucket(Bucket=bucket)
    project = EnvProject(tmp_path, moto_server_clean.env)
    project.write(f'terraform {{\n  backend "s3" {{\n    bucket = "{bucket}"\n    key = "{S3_KEY}"\n'
                  '    use_path_style = true\n  }\n}\n', "backend.tf")
    project.ok("init")
    return project, s3, bucket


def _s3_json(s3: Any, bucket: str, key: str) -> dict[str, Any] | None:
    try:
        return json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    except s3.exceptions.NoSuchKey:
        return None


def test_s3_heartbeat_and_a_lock_broken_mid_apply(s3_project: tuple[Project, Any, str]) -> None:
    project, s3, bucket = s3_project
    project.write(sleeps(5, "1500ms"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "1", env=FAST)) as proc:
        first = wait_until(lambda: _s3_json(s3, bucket, S3_KEY + ".tflock"), what="the lock object")
        wait_until(lambda: (lock := _s3_json(s3, bucket, S3_KEY + ".tflock")) and
                   lock["Heartbeat"] > first["Heartbeat"], what="a renewed heartbeat")
        wait_until(lambda: len([k for k in _keys(s3, bucket) if ".journal/" in k]) >= 2,
                   what="the first operation in the remote journal")
        broke = project.ok("state", "unlock", "--force", first["ID"])
        res = communicate(proc)
    assert "Broke the state lock" in broke.stderr
    assert res.code == 1, res
    assert f"the lock {first['ID']} on s3://{bucket}/{S3_KEY} was removed (force-unlocked)" in res.stderr
    state = _s3_json(s3, bucket, S3_KEY)
    assert state is not None
    assert 1 <= len(instances_of(state)) < 5, res  # what finished is persisted, the rest never started
    assert _s3_json(s3, bucket, S3_KEY + ".tflock") is None


def test_s3_history_and_rollback_through_ctl(s3_project: tuple[Project, Any, str]) -> None:
    project, s3, bucket = s3_project
    project.write('resource "terraform_data" "a" {\n  input = 1\n}\n')
    project.ok("apply", "--auto-approve")
    project.write('resource "terraform_data" "a" {\n  input = 1\n}\nresource "terraform_data" "b" {\n  input = 2\n}\n')
    project.ok("apply", "--auto-approve")
    rows = json.loads(project.ok("state", "history", "--json").stdout)
    assert [(r["serial"], r["resources"], r["current"]) for r in rows] == [(1, 1, False), (2, 2, True)]

    res = project.ctl("state", "rollback", "1")
    assert res.code == 1 and "--auto-approve" in res.stderr, res  # no terminal: asks for --auto-approve
    res = project.ok("state", "rollback", "1", "--auto-approve")
    assert "- terraform_data.b  (no longer in the state)" in res.stdout
    state = _s3_json(s3, bucket, S3_KEY)
    assert state is not None and state["serial"] == 3 and sorted(instances_of(state)) == ["terraform_data.a"]
    assert _s3_json(s3, bucket, f"{S3_KEY}.history/2.tfstate") is not None  # the replaced version is kept


def _keys(s3: Any, bucket: str) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
