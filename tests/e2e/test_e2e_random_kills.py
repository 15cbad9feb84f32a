"""Crash consistency: an apply killed (SIGKILL) at 50 random moments still converges, losing nothing.

The configuration has 44 resources with dependencies: random IDs, local files named after them
(so a file written by a create that was killed before its result reached the state would be an
orphan on disk), and sleeps after the files. Every round changes the files' content (replacing
them) and the sleeps' triggers, so the kills land in creates, deletes and replacements alike.
After each kill the next run meets the dead run's lock, releases it as its message says, and
carries on from the journal. At the end one apply converges, the plan is empty, and the files on
disk are exactly the ones the state knows, and no lock or scratch of one is left.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, release_lock, unlock_command_id

KILLS = 50
FILES = 20
CONFIG = """
variable "round" {
  type    = number
  default = 0
}
resource "random_id" "tag" {
  count       = @FILES@
  byte_length = 4
}
resource "local_file" "f" {
  count    = @FILES@
  filename = "${path.module}/out/f-${random_id.tag[count.index].hex}.txt"
  content  = "round ${var.round % 2}, file ${count.index}"
}
resource "time_sleep" "gap" {
  count           = 4
  create_duration = "0.4s"
  destroy_duration = "0.2s"
  triggers        = { round = tostring(var.round % 3), files = join(",", local_file.f[*].id) }
}
""".replace("@FILES@", str(FILES))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _release_a_dead_runs_lock(project: Project) -> None:
    """A killed apply leaves its lock; the next run is refused (exit 4) naming the unlock command."""
    if not project.lock_file.exists():
        return
    res = project.ctl("apply", "--auto-approve", "--var", "round=0")
    assert res.code == 4 and "no longer runs" in res.stderr, res
    release_lock(project, unlock_command_id(res.stderr))


def _unlocked_run(project: Project, *args: str) -> None:
    """Run a command to its end; a lock left by a killed run is released as the message says."""
    res = project.ctl(*args)
    if res.code == 4:
        release_lock(project, unlock_command_id(res.stderr))
        res = project.ctl(*args)
    assert res.code == 0, res
    assert "Traceback" not in res.stderr


def test_fifty_random_kills_converge_with_nothing_lost_or_left_over(project: Project) -> None:
    project.write(CONFIG)
    (project.root / "out").mkdir()
    rng = random.Random(20261204)  # the kill moments are the same on every run
    killed = round_ = 0
    while killed < KILLS:  # an apply that finished before its kill moment does not count
        round_ += 1
        assert round_ <= 3 * KILLS, f"only {killed} kills landed in {round_ - 1} rounds"
        _release_a_dead_runs_lock(project)
        apply = ("apply", "--auto-approve", "--parallelism", "2", "--var", f"round={round_}")
        with background(project.start(*apply)) as proc:
            time.sleep(rng.uniform(0.2, 1.1))
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                killed += 1
            proc.wait()
            err = proc.stderr.read() if proc.stderr else ""
            assert "Traceback" not in err
            assert proc.returncode in (0, -signal.SIGKILL), err  # finished, or killed: nothing else

    _unlocked_run(project, "apply", "--auto-approve", "--var", f"round={round_}")
    res = project.ctl("plan", "--detailed-exitcode", "--var", f"round={round_}")
    assert res.code == 0, res  # converged: nothing left to do

    instances = project.instances()
    files = {Path(instances[f"local_file.f[{i}]"]["attributes"]["filename"]).name for i in range(FILES)}
    assert len(files) == FILES  # one file per instance, no two instances sharing one
    assert {p.name for p in (project.root / "out").iterdir()} == files  # no orphan left on disk
    for i in range(FILES):
        content = (project.root / "out" / Path(instances[f"local_file.f[{i}]"]["attributes"]["filename"]).name)
        assert content.read_text() == f"round {round_ % 2}, file {i}"
    assert not project.journal_file.exists() and not project.lock_file.exists()
    assert not project.lock_file.with_name(f".{project.lock_file.name}.new").exists()  # nor its scratch
