"""Which journal lines an apply fsyncs: those of objects outside ctl, not those living only in state.

A line is in the journal file as soon as it is recorded, so a killed ctl never loses one
(tests/e2e/test_e2e_random_kills.py); the fsync guards only against a power cut. The lines of an
object that lives only in state (terraform_data, random_*, time_sleep) without provisioners are not
fsynced: lost to a power cut, they make the next apply create the object again. Here a real apply
runs through ``engine.operations``, and every fsync is traced to the file it was made on.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.operations import RunOptions, apply_run
from engine.plan.planner import PlanOptions

STATE_ONLY = """
resource "terraform_data" "d" {
  count = 30
  input = { n = count.index }
}

resource "random_id" "r" {
  count       = 5
  byte_length = 4
}
"""

REACHING_OUT = """
resource "local_file" "f" {
  count    = 2
  filename = "${path.module}/out-${count.index}-${random_id.r[count.index].hex}.txt"
  content  = "x"
}

resource "terraform_data" "p" {
  input = "p"

  provisioner "local-exec" {
    command = "true"
  }
}
"""


def _apply_counting_journal_fsyncs(root: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    fsync = os.fsync
    journal_fsyncs = 0

    def traced(fd: int) -> None:
        nonlocal journal_fsyncs
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".journal"):
            journal_fsyncs += 1
        fsync(fd)

    monkeypatch.setattr(os, "fsync", traced)
    _, result = apply_run(RunOptions(root=root, plan=PlanOptions(), policy=None), saved_plan=None,
                          confirm=lambda _plan: True)
    monkeypatch.setattr(os, "fsync", fsync)
    assert result is not None and result.ok, result and result.failed
    return journal_fsyncs


def test_an_apply_of_objects_living_only_in_state_fsyncs_no_journal_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(STATE_ONLY)
    assert _apply_counting_journal_fsyncs(tmp_path, monkeypatch) == 0
    assert not (tmp_path / "ctl.tfstate.journal").exists()  # the final state holds all 35


def test_objects_outside_ctl_and_provisioned_ones_still_have_their_lines_fsynced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(STATE_ONLY + REACHING_OUT)
    # Three intents fsynced one by one (the two files' and the provisioned object's), then at least
    # one batch of results and, after the provisioner, the batch that clears the taint: 5 or more,
    # however the results fall into batches. Without the provisioned object's lines, at most 4.
    assert _apply_counting_journal_fsyncs(tmp_path, monkeypatch) >= 5
    assert len(list(tmp_path.glob("out-*.txt"))) == 2
