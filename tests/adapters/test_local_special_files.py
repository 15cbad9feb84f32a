"""A FIFO or a device where ctl expects a file: one clear error at once, never a blocked run.

``data "local_file"`` pointed at a named pipe used to wait for a writer for ever, and one pointed at
``/dev/zero`` read until memory ran out.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.helpers import Project


def test_data_local_file_on_a_fifo_is_an_error_naming_it(tmp_path: Path) -> None:
    project = Project(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    project.write('data "local_file" "f" { filename = "pipe" }\noutput "o" { value = data.local_file.f.content }\n')
    result = project.ctl("plan", "-no-color", timeout=30)
    assert result.code == 1, str(result)
    assert "data.local_file.f" in result.stderr and "named pipe" in result.stderr, str(result)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_data_local_file_on_a_device_is_an_error(tmp_path: Path) -> None:
    project = Project(tmp_path)
    (tmp_path / "zero").symlink_to("/dev/zero")
    project.write('data "local_file" "f" { filename = "zero" }\n')
    result = project.ctl("plan", "-no-color", timeout=30)
    assert result.code == 1, str(result)
    assert "device" in result.stderr, str(result)

