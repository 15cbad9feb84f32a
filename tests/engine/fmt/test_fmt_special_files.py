"""``ctl fmt`` on names that are not ordinary files, on files shared through a hard link, and on a
NUL byte.

A FIFO named ``x.tf`` and a ``zero.tf`` symlinked to ``/dev/zero`` are refused at once, each with
one error naming it, while the other files are still formatted. A hard-linked file is rewritten in
place, keeping its inode, as ``terraform fmt`` (1.0.3) does: both names show the formatted text. A
NUL byte inside a string is kept; anywhere else it is "Invalid character" at its own line and
column (not at 1:1), and the file is left as it was, again as with ``terraform fmt``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.e2e.helpers import CTL, clean_env
from tests.plugin.terraform_cli import terraform_executable

UNFORMATTED = "locals {\na=1\n}\n"
FORMATTED = "locals {\n  a = 1\n}\n"


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)


def test_fifo_and_device_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.tf")
    (tmp_path / "zero.tf").symlink_to("/dev/zero")
    (tmp_path / "main.tf").write_text(UNFORMATTED)
    done = _run([str(CTL), "fmt", "."], tmp_path)  # timeout=30: a blocked read fails the test
    assert done.returncode == 1, done.stderr
    assert "main.tf" in done.stdout
    assert (tmp_path / "main.tf").read_text() == FORMATTED
    assert "x.tf" in done.stderr and "named pipe" in done.stderr
    assert "zero.tf" in done.stderr and "device" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_fifo_named_as_target_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.tf")
    done = _run([str(CTL), "fmt", "x.tf"], tmp_path)
    assert done.returncode == 1
    assert "named pipe" in done.stderr


def test_hard_link_keeps_its_inode_as_with_terraform(tmp_path: Path) -> None:
    results = {}
    for tool, argv in (("ctl", [str(CTL), "fmt", "."]), ("terraform", [str(terraform_executable()), "fmt", "."])):
        work = tmp_path / tool
        work.mkdir()
        (work / "main.tf").write_text(UNFORMATTED)
        os.link(work / "main.tf", tmp_path / f"{tool}-other-name.tf")
        inode = (work / "main.tf").stat().st_ino
        done = _run(argv, work)
        assert done.returncode == 0, done.stderr
        assert (work / "main.tf").stat().st_ino == inode
        results[tool] = ((tmp_path / f"{tool}-other-name.tf").read_text(), sorted(p.name for p in work.iterdir()))
    assert results["ctl"] == results["terraform"] == (FORMATTED, ["main.tf"])


def test_read_only_directory_still_formats_in_place(tmp_path: Path) -> None:
    work = tmp_path / "ro"
    work.mkdir()
    (work / "main.tf").write_text(UNFORMATTED)
    work.chmod(0o555)
    try:
        done = _run([str(CTL), "fmt", "."], work)
        assert done.returncode == 0, done.stderr
        assert (work / "main.tf").read_text() == FORMATTED
    finally:
        work.chmod(0o755)
        shutil.rmtree(work)


def _both_fmt(tmp_path: Path, src: bytes) -> dict[str, tuple[subprocess.CompletedProcess[str], bytes]]:
    """``fmt .`` by ctl and by Terraform 1.0.3, each in a directory of its own holding ``src``."""
    results = {}
    for tool, argv in (("ctl", [str(CTL), "fmt", "-no-color", "."]),
                       ("terraform", [str(terraform_executable()), "fmt", "-no-color", "."])):
        work = tmp_path / tool
        work.mkdir()
        (work / "main.tf").write_bytes(src)
        done = _run(argv, work)
        results[tool] = (done, (work / "main.tf").read_bytes())
    return results


def test_nul_in_a_string_is_formatted_and_kept_as_by_terraform(tmp_path: Path) -> None:
    results = _both_fmt(tmp_path, b'locals {\na="x\0y"\n}\n')
    for done, _ in results.values():
        assert done.returncode == 0, done.stderr
    assert results["ctl"][1] == results["terraform"][1] == b'locals {\n  a = "x\0y"\n}\n'


def test_a_stray_nul_is_reported_at_its_line_and_column(tmp_path: Path) -> None:
    src = b"locals {\n  a = 1\n  b\0c = 2\n}\n"
    results = _both_fmt(tmp_path, src)
    done, after = results["ctl"]
    assert done.returncode == 1, done.stderr
    assert "Error: main.tf:3:4: Invalid character" in done.stderr, done.stderr  # the NUL's own place
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert after == src
    tf_done, tf_after = results["terraform"]
    assert tf_done.returncode != 0 and "Invalid character" in tf_done.stderr and "line 3" in tf_done.stderr
    assert tf_after == src
