"""The state lock: one writer at a time, a clear message for the others, and ways around it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import (
    Project,
    background,
    communicate,
    release_lock,
    sleeps,
    take_lock,
    unlock_command_id,
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_two_racing_applies_one_wins_one_exits_4(project: Project) -> None:
    project.write(sleeps(3, "3s"))
    with background(project.start("apply", "--auto-approve")) as one, \
            background(project.start("apply", "--auto-approve")) as two:
        results = [communicate(one), communicate(two)]
    codes = sorted(r.code for r in results)
    assert codes == [0, 4], "\n".join(map(str, results))
    winner = next(r for r in results if r.code == 0)
    loser = next(r for r in results if r.code == 4)

    assert "Apply complete! Resources: 3 added" in winner.stdout
    err = loser.stderr
    assert "The state is locked by" in err
    lock_id = unlock_command_id(err)
    assert f"Lock ID:   {lock_id}" in err
    assert "Operation: OperationTypeApply" in err
    assert "Held by:" in err and "@" in err
    assert "Since:" in err
    assert "Traceback" not in err
    assert "Creating..." not in loser.stdout  # the loser changed nothing

    state = project.state()
    assert state["serial"] == 1
    assert sorted(project.instances()) == ["time_sleep.s[0]", "time_sleep.s[1]", "time_sleep.s[2]"]
    assert not project.lock_file.exists()
    assert not project.journal_file.exists()


def test_lock_false_warns_and_plan_does_not_lock(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = 1\n}\n')
    lock_id = take_lock(project, "maintenance window")
    try:
        assert project.lock_file.exists()
        # plan reads one snapshot without the lock, unless asked to take it
        assert project.ctl("plan").code == 0
        res = project.ctl("plan", "--lock")
        assert res.code == 4, res
        assert "Reason:    maintenance window" in res.stderr
        assert f"ctl state unlock {lock_id}" in res.stderr

        res = project.ctl("apply", "--auto-approve", "--lock=false")
        assert res.code == 0, res
        assert "Warning: Not locking the state" in res.stderr
        assert "terraform_data.a" in project.instances()
        assert json.loads(project.lock_file.read_text())["ID"] == lock_id  # untouched
    finally:
        release_lock(project, lock_id)
    assert not project.lock_file.exists()


def test_ctl_lock_id_runs_under_a_held_lock(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = 1\n}\n')
    lock_id = take_lock(project, "pipeline 42")
    try:
        started = time.monotonic()
        res = project.ctl("apply", "--auto-approve", "--lock-timeout", "1s")
        assert res.code == 4, res
        assert time.monotonic() - started >= 1  # it kept trying for a second
        assert "pipeline 42" in res.stderr

        res = project.ctl("apply", "--auto-approve", env={"CTL_LOCK_ID": lock_id})
        assert res.code == 0, res
        assert "terraform_data.a" in project.instances()
        assert json.loads(project.lock_file.read_text())["ID"] == lock_id  # still held for the wrapper

        res = project.ctl("plan", "--lock", env={"CTL_LOCK_ID": lock_id})
        assert res.code == 0, res

        wrong = "00000000-0000-4000-8000-000000000000"
        res = project.ctl("destroy", "--auto-approve", env={"CTL_LOCK_ID": wrong})
        assert res.code in (1, 4), res
        assert f"ctl state unlock {lock_id}" in res.stderr  # the lock actually held is described
        assert "Traceback" not in res.stderr
        assert "terraform_data.a" in project.instances()  # nothing destroyed
    finally:
        release_lock(project, lock_id)

    res = project.ctl("apply", "--auto-approve", env={"CTL_LOCK_ID": lock_id})
    assert res.code == 1, res
    assert "not locked" in res.stderr
