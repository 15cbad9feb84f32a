"""A resource pointed at ctl's own files is refused, and the state survives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project


@pytest.mark.parametrize("filename", ["ctl.tfstate", "ctl.tfstate.backup", ".ctl/plugins.json",
                                      "ctl.tfstate.history/1.tfstate"])
def test_a_local_file_over_ctls_own_files_is_refused(tmp_path: Path, filename: str) -> None:
    project = Project(tmp_path)
    project.write('resource "local_file" "keep" {\n  filename = "kept.txt"\n  content  = "k"\n}\n')
    project.apply()
    state_before = project.state()
    project.write('resource "local_file" "keep" {\n  filename = "kept.txt"\n  content  = "k"\n}\n'
                  f'resource "local_file" "bad" {{\n  filename = "${{path.module}}/{filename}"\n'
                  '  content  = "oops"\n}\n')
    result = project.ctl("apply", "--auto-approve")
    assert result.code == 1, result
    assert "local_file.bad" in result.stderr and "one of ctl's own files" in result.stderr
    state_after = project.state()
    assert state_after["lineage"] == state_before["lineage"]
    assert [r["name"] for r in state_after["resources"]] == ["keep"]
    assert "No changes" not in project.ctl("plan").stdout  # bad is still to be created, nothing lost
