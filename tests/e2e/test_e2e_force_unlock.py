"""``ctl force-unlock``: Terraform's name for releasing a state lock by hand, with its confirmation."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.helpers import Project


def test_force_unlock_releases_the_held_lock_by_its_id(tmp_path: Path) -> None:
    project = Project(tmp_path)
    (tmp_path / "main.tf").write_text('resource "terraform_data" "x" {}\n')
    project.ok("init")
    project.ok("state", "lock")
    held = project.ok("state", "lock-status", "--json")
    lock_id = json.loads(held.stdout)["lock"]["ID"]
    unasked = project.ctl("force-unlock", lock_id)  # no terminal: it cannot ask, and says how not to
    assert unasked.code == 1 and "-force" in unasked.stderr
    wrong = project.ctl("force-unlock", "-force", "another-id")
    assert wrong.code != 0 and lock_id in wrong.stderr  # the ID must be the held lock's, which it names
    done = project.ok("force-unlock", "-force", lock_id)
    assert "successfully unlocked" in done.stdout
    assert json.loads(project.ok("state", "lock-status", "--json").stdout)["locked"] is False
