"""A provider that never completes its handshake is started once per run, not once per instance.

The misbehaving provider, told to hang (``MISBEHAVE_HANG=1``), counts its starts in a file. Before, every
instance started it again and waited out the start timeout, one after the other (1,000 instances at 10 s
each: 2.8 hours); one failed start must end the run with one clear error. A thousand instances here.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.plugin.misbehave import make_pair

CONFIG = """
resource "misbehave_thing" "a" {
  count = 500
  name  = "a${count.index}"
}

resource "misbehave_thing" "b" {
  count = 500
  name  = "b${count.index}"
}
"""


@pytest.mark.parametrize("command", [("plan",), ("apply", "--auto-approve")])
def test_a_provider_that_never_starts_is_tried_once(tmp_path: Path, misbehave_plugins: Path,
                                                    command: tuple[str, ...]) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, CONFIG, terraform=False)
    starts = tmp_path / "starts"
    began = time.monotonic()
    result = pair.ctl.ctl(*command, env={"MISBEHAVE_HANG": "1", "MISBEHAVE_STARTS": str(starts),
                                         "CTL_PLUGIN_START_TIMEOUT": "2"})
    elapsed = time.monotonic() - began
    assert result.code == 1, result
    assert starts.read_text().count("start") == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: Provider registry.terraform.io/ctltest/misbehave: it did not finish starting "
                      "within 2 s"], result
    assert "Traceback" not in result.output
    assert elapsed < 15, elapsed  # one timeout, not one per instance
    assert not pair.ctl.state_file.exists() or not pair.ctl.instances()
