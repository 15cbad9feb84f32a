"""The progress views: plain lines for logs and pipes, the live view for a terminal, and which is chosen."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from cli import output, progress
from cli.progress import ProgressView
from cli.progress.live import LiveProgress
from cli.progress.plain import PlainProgress
from cli.progress.words import format_elapsed, shown_id
from tests.e2e.helpers import CTL, clean_env
from vocab.values import SENSITIVE, Marked, Unknown


def _apply_events(view: ProgressView, *, fail: bool = False) -> None:
    view("apply_begin", "", {"total": 3})
    view("apply_start", "aws_s3_bucket.logs", {"action": "create"})
    view("apply_start", "time_sleep.s[0]", {"action": "delete"})
    view("apply_complete", "aws_s3_bucket.logs", {"action": "create", "elapsed": 2.4, "id": "logs"})
    if fail:
        view("apply_errored", "time_sleep.s[0]", {"action": "delete", "elapsed": 1.0, "error": "boom"})
    else:
        view("apply_complete", "time_sleep.s[0]", {"action": "delete", "elapsed": 65, "id": None})


def test_plain_lines_match_terraform() -> None:
    out = io.StringIO()
    view = PlainProgress(out)
    _apply_events(view)
    view.close()
    assert out.getvalue().splitlines() == [
        "aws_s3_bucket.logs: Creating...",
        "time_sleep.s[0]: Destroying...",
        "aws_s3_bucket.logs: Creation complete after 2s [id=logs]",
        "time_sleep.s[0]: Destruction complete after 1m5s",
    ]


def test_plain_failure_and_refresh_lines() -> None:
    out = io.StringIO()
    view = PlainProgress(out)
    view("refresh_begin", "", {"total": 2})
    view("refresh_start", "local_file.a", {"id": "abc"})
    view("refresh_complete", "local_file.a", {"id": "abc", "elapsed": 0.1})
    view("refresh_start", "local_file.b", {"id": Marked("secret", frozenset({SENSITIVE}))})
    view("refresh_errored", "local_file.b", {"error": "denied", "elapsed": 3.2})
    view.end_phase()
    _apply_events(view, fail=True)
    view.close()
    lines = out.getvalue().splitlines()
    assert lines[:4] == [
        "local_file.a: Refreshing state... [id=abc]",
        "local_file.b: Refreshing state... [id=(sensitive value)]",
        "local_file.b: Refresh failed after 3s",
        "",  # the plan printed next stands apart, as in Terraform
    ]
    assert "time_sleep.s[0]: Destruction failed after 1s" in lines
    assert "secret" not in out.getvalue()


def test_plain_still_running_lines() -> None:
    out = io.StringIO()
    view = PlainProgress(out, interval=0.3)
    view("apply_start", "time_sleep.slow", {"action": "create"})
    deadline = time.monotonic() + 5
    while "Still creating" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    view("apply_complete", "time_sleep.slow", {"action": "create", "elapsed": 1})
    view.close()
    assert re.search(r"^time_sleep\.slow: Still creating\.\.\. \[\d+s elapsed\]$", out.getvalue(), re.M)


def _live(width: int = 100) -> tuple[LiveProgress, io.StringIO]:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width, color_system="standard")
    return LiveProgress(console), buf


def _plain_text(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_live_view_leaves_a_clean_summary() -> None:
    view, buf = _live()
    _apply_events(view, fail=True)
    view.close()
    text = _plain_text(buf.getvalue())
    assert "✓ aws_s3_bucket.logs: Creation complete after 2s [id=logs]" in text
    assert "✗ time_sleep.s[0]: Destruction failed after 1s" in text and "boom" in text
    assert "Applied 1 of 3 operations" in text and "1 failed" in text and "1 not finished" in text


def test_live_view_shows_operations_in_flight() -> None:
    view, buf = _live()
    view("apply_begin", "", {"total": 2})
    view("apply_start", "time_sleep.a", {"action": "create"})
    view("apply_start", "time_sleep.b", {"action": "update"})
    time.sleep(0.4)  # the live region refreshes 8 times a second
    during = _plain_text(buf.getvalue())
    view("apply_complete", "time_sleep.a", {"action": "create", "elapsed": 0.4})
    view("apply_complete", "time_sleep.b", {"action": "update", "elapsed": 0.4})
    view.close()
    assert "Applying" in during and "0/2" in during and "2 in flight" in during
    assert "time_sleep.a" in during and "creating" in during and "modifying" in during
    assert "Applied 2 operations in" in _plain_text(buf.getvalue())


def test_live_refresh_phase_ends_by_itself() -> None:
    view, buf = _live()
    view("refresh_begin", "", {"total": 1})
    view("refresh_start", "local_file.a", {"id": "x"})
    view("refresh_complete", "local_file.a", {"id": "x", "elapsed": 0.0})
    text = _plain_text(buf.getvalue())
    assert "Refreshed 1 object in" in text
    view.close()


def test_elapsed_and_ids() -> None:
    assert [format_elapsed(s) for s in (0, 2.9, 60, 3725)] == ["0s", "2s", "1m0s", "62m5s"]
    assert shown_id(Marked("x", frozenset({SENSITIVE}))) == "(sensitive value)"
    assert shown_id(Unknown()) is None and shown_id("") is None and shown_id(7) == "7"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("env", "no_color", "expected"),
    [
        ({}, False, LiveProgress),
        ({"NO_COLOR": "1"}, False, PlainProgress),
        ({"CTL_NO_COLOR": "1"}, False, PlainProgress),
        ({"TERM": "dumb"}, False, PlainProgress),
        ({}, True, PlainProgress),
    ],
)
def test_view_choice(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], no_color: bool, expected: type) -> None:
    for name in ("NO_COLOR", "CTL_NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(sys, "stdout", _Tty())
    output.configure(no_color=no_color, root=Path("."))
    try:
        view = progress.for_terminal()
        assert type(view) is expected
        view.close()
    finally:
        output.configure(no_color=False, root=Path("."))


def test_view_choice_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert type(progress.for_terminal()) is PlainProgress


def test_piped_output_is_plain(tmp_path: Path) -> None:
    """Through the real executable, colour-capable TERM, stdout a pipe: no escape byte anywhere."""
    (tmp_path / "main.tf").write_text(
        'resource "time_sleep" "s" {\n  count = 2\n  create_duration = "1s"\n}\n'
        'resource "terraform_data" "d" {\n  input = "x"\n}\n'
    )
    env = clean_env({"TERM": "xterm-256color"})
    env.pop("NO_COLOR")
    proc = subprocess.run([CTL, "apply", "--auto-approve"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"\x1b" not in proc.stdout and b"\x1b" not in proc.stderr
    text = proc.stdout.decode()
    assert re.search(r"^time_sleep\.s\[0\]: Creation complete after 1s \[id=[^\]]+\]$", text, re.M)
    assert re.search(r"^terraform_data\.d: Creation complete after 0s \[id=[0-9a-f-]+\]$", text, re.M)
    assert "Apply complete! Resources: 3 added, 0 changed, 0 destroyed." in text
    again = subprocess.run([CTL, "plan"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
    assert b"\x1b" not in again.stdout
    assert "terraform_data.d: Refreshing state... [id=" in again.stdout.decode()
    assert os.path.exists(tmp_path / "ctl.tfstate")
