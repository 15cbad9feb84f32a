"""Killed and interrupted applies lose nothing that finished, and say what may be left over."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import (
    FAST,
    FAST_AND_SLOW,
    SLOW,
    Project,
    background,
    communicate,
    finished,
    has_state_commands,
    journal_entries,
    release_lock,
    sleeps,
    started,
    unlock_command_id,
    wait_mid_apply,
    wait_until,
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_kill_9_mid_apply_then_plan_recovers_the_journal(project: Project) -> None:
    project.write(FAST_AND_SLOW)
    with background(project.start("apply", "--auto-approve")) as proc:
        wait_mid_apply(project)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert project.journal_file.exists()
    assert project.lock_file.exists()  # left behind by the killed process

    res = project.ctl("plan")
    assert res.code == 0, res
    assert "Recovered the results of an interrupted apply" in res.stderr
    for addr in sorted(SLOW):  # a sleep has nothing outside the state to find or import
        assert (f"{addr}: an interrupted apply started to create it; a time_sleep leaves nothing outside the "
                "state, so the next apply simply creates it") in res.stderr
    assert "ctl import" not in res.stderr
    for addr in sorted(FAST):
        assert f"{addr} will be created" not in res.stdout  # finished before the kill: kept
    assert "Plan: 2 to add, 0 to change, 0 to destroy." in res.stdout
    shown = json.loads(project.ok("show", "--json").stdout)
    in_state = {r["address"] for r in shown["values"]["root_module"]["resources"]}
    assert in_state == FAST
    fast_ids = {r["address"]: r["values"]["id"] for r in shown["values"]["root_module"]["resources"]}
    if has_state_commands():
        assert set(project.ok("state", "list").stdout.split()) == FAST

    # The next apply meets the lock the killed run left, described as such.
    res = project.ctl("apply", "--auto-approve", "--var", "slow=0s")
    assert res.code == 4, res
    assert "no longer runs" in res.stderr
    assert "Traceback" not in res.stderr
    release_lock(project, unlock_command_id(res.stderr))

    res = project.ctl("apply", "--auto-approve", "--var", "slow=0s")
    assert res.code == 0, res
    assert "Resources: 2 added, 0 changed, 0 destroyed." in res.stdout
    assert not project.journal_file.exists()
    assert not project.lock_file.exists()
    insts = project.instances()
    assert set(insts) == FAST | SLOW
    assert {a: insts[a]["attributes"]["id"] for a in FAST} == fast_ids


def test_first_sigint_finishes_running_operations_and_exits_130(project: Project) -> None:
    project.write(sleeps(5, "3s"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "2")) as proc:
        wait_until(lambda: len(started(project)) == 2, what="two sleeps to start")
        os.killpg(proc.pid, signal.SIGINT)
        res = communicate(proc)
    assert res.code == 130, res
    assert "Interrupt received" in res.stderr
    assert not project.journal_file.exists()  # folded into the state
    creating = [line for line in res.stdout.splitlines() if line.endswith(": Creating...")]
    assert len(creating) == 2, res  # nothing new started
    assert res.stdout.count("Creation complete") == 2
    assert "Traceback" not in res.stderr
    assert len(project.instances()) == 2  # both finished operations are in the state
    assert not project.lock_file.exists()

    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Plan: 3 to add, 0 to change, 0 to destroy." in res.stdout, res


def test_second_interrupt_stops_waiting(project: Project) -> None:
    """SIGTERM counts as an interrupt too: here it is the first one, Ctrl-C the second."""
    project.write(sleeps(4, "30s"))
    with background(project.start("apply", "--auto-approve", "--parallelism", "2")) as proc:
        wait_until(lambda: len(started(project)) == 2, what="two sleeps to start")
        os.killpg(proc.pid, signal.SIGTERM)
        time.sleep(0.3)
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        res = communicate(proc, timeout=20)
    assert time.monotonic() - sent < 5, "the second interrupt did not stop the wait"
    assert res.code == 130, res
    assert "Second interrupt" in res.stderr
    assert "Traceback" not in res.stderr
    state = project.state()  # persisted, and readable
    assert state["version"] == 4
    assert project.instances() == {}
    assert not project.lock_file.exists()
    assert project.ctl("plan", "--detailed-exitcode").code == 2


# A create that blocks where a test can kill it: reading `source` from a named pipe nobody writes to.
PIPED = """
resource "local_file" "piped" {
  filename = "${path.module}/out/piped.txt"
  source   = "${path.module}/pipe"
}
resource "local_file" "quick" {
  filename = "${path.module}/out/quick.txt"
  content  = "quick"
}
"""


def _kill_while_creating_the_piped_file(project: Project) -> None:
    """kill -9 with ``local_file.piped``'s intent journaled and its result not; lock left behind."""
    os.mkfifo(project.path("pipe"))
    project.write(PIPED)
    with background(project.start("apply", "--auto-approve")) as proc:
        wait_until(lambda: "local_file.piped" in started(project) and "local_file.quick" in finished(project),
                   what="the quick file to be written and the piped one to start")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    project.path("pipe").unlink()
    project.path("pipe").write_text("from the pipe")  # what the configuration asks the file to hold


def test_an_object_an_interrupted_create_made_is_found_and_adopted(project: Project) -> None:
    _kill_while_creating_the_piped_file(project)
    intent = next(e for e in journal_entries(project) if e["kind"] == "intent" and e["address"] == "local_file.piped")
    assert intent["planned_identity"]["filename"].endswith("out/piped.txt")  # what the lookup below goes by
    written = project.path("out", "piped.txt")
    written.write_text("from the pipe")  # as if the kill came after the write, before its result
    inode = written.stat().st_ino
    sha1 = hashlib.sha1(b"from the pipe").hexdigest()  # local_file's id: the digest of what it holds

    res = project.ctl("plan")
    assert res.code == 0, res
    assert (f"local_file.piped: found the object an interrupted apply created (id {sha1}); this plan counts "
            "it as existing; the next apply records it in the state") in res.stderr
    assert "ctl import" not in res.stderr
    assert "No changes." in res.stdout, res

    res = project.ctl("apply", "--auto-approve")
    assert res.code == 4, res  # the killed run's lock
    release_lock(project, unlock_command_id(res.stderr))
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 0, res
    assert f"local_file.piped: found the object an interrupted apply created (id {sha1}); adopted it into the " \
           "state" in res.stderr
    assert "No changes." in res.stdout
    assert project.instances()["local_file.piped"]["attributes"]["id"] == sha1
    assert written.stat().st_ino == inode  # adopted, not written again
    assert not project.journal_file.exists()
    res = project.ok("plan")
    assert "interrupted" not in res.stderr and "No changes." in res.stdout


def test_a_create_killed_before_it_made_anything_is_created_by_the_next_apply(project: Project) -> None:
    _kill_while_creating_the_piped_file(project)
    assert not project.path("out", "piped.txt").exists()

    res = project.ctl("plan")
    assert res.code == 0, res
    assert ("local_file.piped: an interrupted apply started to create it, but nothing was created; "
            "the next apply creates it") in res.stderr
    assert "Plan: 1 to add, 0 to change, 0 to destroy." in res.stdout

    release_lock(project, unlock_command_id(project.ctl("apply", "--auto-approve").stderr))
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 0, res
    assert "Resources: 1 added, 0 changed, 0 destroyed." in res.stdout
    assert project.path("out", "piped.txt").read_text() == "from the pipe"
    assert set(project.instances()) == {"local_file.piped", "local_file.quick"}


def test_a_damaged_journal_line_is_reported_not_silently_dropped(project: Project) -> None:
    project.write('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    project.apply()
    project.journal_file.write_bytes(b'{"kind": "intent", "address": "terraform_data.b", "op": "create", "seq": 1\n'
                                     b"\x00\x00 garbage\n")
    result = project.ctl("plan")
    assert result.code == 0, result
    assert "the apply journal has 2 unreadable entries (line 1, 2)" in result.stderr
    assert "check `ctl plan`" in result.stderr
