"""A provider that exits or panics inside a create, after it may have made the object.

Whether the object exists is unknown, so it must not be forgotten: the apply names it in a warning as
"possibly created", and its intent stays in the journal, as a killed apply's does, so the next run
reports it again with the ``ctl import`` to run. Before, the create was recorded as failed and nothing
said the object might exist.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugin.misbehave import make_pair


@pytest.mark.parametrize("trick", ["exit_in_create", "panic_in_create"])
def test_a_create_cut_short_by_the_provider_is_possibly_created(tmp_path: Path, misbehave_plugins: Path,
                                                               trick: str) -> None:
    config = f"""
resource "misbehave_thing" "crash" {{
  name  = "crash"
  trick = "{trick}"
}}
"""
    pair = make_pair(tmp_path, misbehave_plugins, config, terraform=False)
    applied = pair.ctl.ctl("apply", "--auto-approve")
    assert applied.code == 1, applied
    assert "Traceback" not in applied.output and "internal error" not in applied.output
    assert "Error: Provider registry.terraform.io/ctltest/misbehave: ApplyResourceChange: it exited" in applied.stderr
    assert "Warning: misbehave_thing.crash: possibly created" in applied.stderr, applied
    assert "ctl import 'misbehave_thing.crash' ID" in applied.stderr
    assert not pair.ctl.state_file.exists() or "misbehave_thing.crash" not in pair.ctl.instances()
    # The next run learns of it from the journal, as after a killed apply.
    planned = pair.ctl.ctl("plan")
    assert planned.code == 0, planned
    assert ("misbehave_thing.crash: possibly created by an interrupted apply; if the object exists, adopt it "
            "with: ctl import 'misbehave_thing.crash' ID") in planned.output, planned
