"""Ctrl-C during a ``local-exec`` command, sent to ctl alone as a supervisor or CI runner sends it.

The first interrupt cancels the command as Terraform cancels its provisioners: the command's whole
process group gets SIGTERM, so a trap runs, and ctl ends without waiting for the command's sleep.
A command that ignores SIGTERM is killed once a second interrupt makes ctl stop waiting, and a
``kill -9`` of ctl, which runs no handler of ctl's, takes the command with it: it never outlives
ctl as an orphan of init.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, communicate, wait_until


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead: only its parent has not collected it yet
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_first_interrupt_tells_the_command_and_ctl_does_not_wait_for_it(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      provisioner "local-exec" {
        command = "trap 'echo term > told; exit 3' TERM; sleep 120 & echo $! > sleep.pid; touch started; wait"
      }
    }
    """)
    with background(project.start("apply", "-auto-approve")) as proc:
        wait_until(lambda: project.path("started").exists(), what="the provisioner to start")
        began = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)  # ctl only, not its process group
        res = communicate(proc, timeout=60)
    assert time.monotonic() - began < 30, res
    assert project.path("told").read_text() == "term\n"
    sleep = int(project.path("sleep.pid").read_text())
    wait_until(lambda: not _alive(sleep), timeout=10, what=f"the command's sleep to be gone ({res})")
    assert res.code == 130, res
    assert "cancelled" in res.stderr, res
    assert "Traceback" not in res.stderr


def test_a_command_ignoring_sigterm_does_not_outlive_ctl(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      provisioner "local-exec" {
        command = "trap '' TERM; echo $$ > shell.pid; sleep 120 & echo $! > child.pid; touch started; wait"
      }
    }
    """)
    with background(project.start("apply", "-auto-approve")) as proc:
        wait_until(lambda: project.path("started").exists(), what="the provisioner to start")
        os.kill(proc.pid, signal.SIGINT)
        time.sleep(2)
        assert proc.poll() is None, "ctl ended though the command ignores SIGTERM and runs on"
        os.kill(proc.pid, signal.SIGINT)
        res = communicate(proc, timeout=60)
    assert res.code == 130, res
    pids = [int(project.path(name).read_text()) for name in ("shell.pid", "child.pid")]
    wait_until(lambda: not any(_alive(pid) for pid in pids), timeout=30, what=f"the command to be gone ({res})")


def test_a_command_does_not_outlive_a_kill_of_ctl(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      provisioner "local-exec" {
        command = "echo $$ > shell.pid; sleep 120 & echo $! > child.pid; touch started; wait"
      }
    }
    """)
    with background(project.start("apply", "-auto-approve")) as proc:
        wait_until(lambda: project.path("started").exists(), what="the provisioner to start")
        os.kill(proc.pid, signal.SIGKILL)  # no handler of ctl's runs
        proc.communicate(timeout=30)
    pids = [int(project.path(name).read_text()) for name in ("shell.pid", "child.pid")]
    try:
        wait_until(lambda: not any(_alive(pid) for pid in pids), timeout=30, what="the command to be gone")
    except AssertionError:
        # Never leave the test's own orphans behind when it fails; only then, and only those still
        # running: a number freed once they are gone may already be another process's.
        for pid in filter(_alive, pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        raise
