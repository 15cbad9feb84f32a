"""The first Ctrl-C asks running providers to stop (StopProvider), as Terraform's does.

The misbehaving provider's slow calls wait a minute unless StopProvider cancels them, and note both in
a file. Before, the first Ctrl-C of a plan printed nothing and the call ran on; in an apply, a create
that honours cancellation kept running until a second Ctrl-C abandoned it.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.plugin.misbehave import make_pair


def _config(trick: str) -> str:
    return f"""
resource "misbehave_thing" "a" {{
  name  = "a"
  trick = "{trick}"
}}
"""


def _wait_for(path: Path, word: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and word in path.read_text().split():
            return
        time.sleep(0.05)
    raise AssertionError(f"the provider never said {word!r}")


@pytest.mark.parametrize(("command", "trick", "started", "message"), [
    (("plan",), "slow_plan", "planning", "Interrupt received: stopping; the running providers were asked to stop"),
    (("apply", "--auto-approve"), "slow", "creating", "Interrupt received: waiting for running operations"),
])
def test_the_first_interrupt_stops_the_running_provider_call(
        tmp_path: Path, misbehave_plugins: Path, command: tuple[str, ...], trick: str, started: str,
        message: str) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, _config(trick), terraform=False)
    events = tmp_path / "events"
    process = pair.ctl.start(*command, env={"MISBEHAVE_EVENTS": str(events)})
    try:
        _wait_for(events, started)
        os.kill(process.pid, signal.SIGINT)  # once
        stdout, stderr = process.communicate(timeout=20)  # well before the call's own minute
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert "stopped" in events.read_text().split(), stdout + stderr
    assert message in stderr, stderr
    assert "Traceback" not in stderr
    assert process.returncode in (1, 130), stderr
    interrupted = "Plan interrupted" if trick == "slow_plan" else "Create interrupted"
    assert interrupted in stderr + stdout


def test_a_create_given_up_on_by_a_second_interrupt_is_possibly_created(tmp_path: Path,
                                                                       misbehave_plugins: Path) -> None:
    """A create that ignores StopProvider, abandoned by a second Ctrl-C: named now, and by the next run."""
    pair = make_pair(tmp_path, misbehave_plugins, _config("stubborn"), terraform=False)
    events = tmp_path / "events"
    process = pair.ctl.start("apply", "--auto-approve", env={"MISBEHAVE_EVENTS": str(events)})
    try:
        _wait_for(events, "creating")
        os.kill(process.pid, signal.SIGINT)
        time.sleep(0.5)
        os.kill(process.pid, signal.SIGINT)  # stop waiting for it
        stdout, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stdout + stderr
    assert "Warning: misbehave_thing.a: possibly created" in stderr, stdout + stderr
    planned = pair.ctl.ctl("plan")
    assert ("misbehave_thing.a: possibly created by an interrupted apply; if the object exists, adopt it "
            "with: ctl import 'misbehave_thing.a' ID") in planned.output, planned
