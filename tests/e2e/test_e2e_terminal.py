"""ctl at a real terminal: the approval prompt and the live progress view, driven through a pty.

Each test runs ``ctl`` on a pseudo-terminal of its own (pexpect) with a colour terminal and no CI
variables — as a person would — types at the prompt, and reads the screen through a terminal
emulator (pyte), so what the assertions see is what a person's terminal would show, cursor
movements and redraws of the live view included. Nothing outside Python packages is needed.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.e2e.helpers import CTL, Project, sleeps

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COLUMNS, ROWS = 140, 60


class Terminal:
    """One command on a pty, its output fed to an emulated screen that keeps its scrollback."""

    def __init__(self) -> None:
        self.child: pexpect.spawn | None = None
        self.screen_model = pyte.HistoryScreen(COLUMNS, ROWS, history=5000)
        self.screen_model.set_mode(pyte.modes.LNM)  # a newline also returns the cursor, as a tty does
        self.stream = pyte.Stream(self.screen_model)
        self.raw = ""  # every byte the command wrote, escapes included
        self.exit_code: int | None = None

    def run(self, cwd: Path, args: list[str], env: dict[str, str] | None = None) -> None:
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
                "TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
        base.update(env or {})
        self.child = pexpect.spawn(CTL, args, cwd=str(cwd), env=base, encoding="utf-8",
                                   codec_errors="replace", dimensions=(ROWS, COLUMNS))

    def _drain(self) -> None:
        assert self.child is not None
        while not self.child.closed:
            try:
                data = self.child.read_nonblocking(65536, timeout=0)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.raw += data
            self.stream.feed(data)

    def screen(self, *, escapes: bool = False) -> str:
        """Everything on the screen, scrollback included; ``[exit N]`` once the command has ended."""
        self._drain()
        assert self.child is not None
        if self.exit_code is None and not self.child.isalive():
            self._drain()  # what it wrote just before it ended
            self.child.close()
            self.exit_code = self.child.exitstatus
        if escapes:
            return self.raw
        lines = ["".join(line[x].data for x in range(COLUMNS)).rstrip()
                 for line in self.screen_model.history.top]
        lines += [line.rstrip() for line in self.screen_model.display]
        text = "\n".join(lines).rstrip("\n")
        return text if self.exit_code is None else f"{text}\n[exit {self.exit_code}]"

    def send(self, *keys: str) -> None:
        assert self.child is not None
        for key in keys:
            self.child.send("\r" if key == "Enter" else key)

    def wait_for(self, pattern: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if re.search(pattern, text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {pattern!r}; the screen shows:\n{text}")
            time.sleep(0.1)

    def close(self) -> None:
        if self.child is not None and not self.child.closed and self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    try:
        yield term
    finally:
        term.close()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.write(sleeps(3, "3s") + """
    resource "time_sleep" "last" {
      create_duration = "1s"
      depends_on      = [time_sleep.s]
    }
    """)
    return p


def test_approve_at_the_prompt_and_watch_the_live_view(terminal: Terminal, project: Project) -> None:
    terminal.run(project.root, ["apply"])
    terminal.wait_for(r"Enter a value:")
    assert not project.state_file.exists()  # nothing happens before the answer
    terminal.send("yes", "Enter")

    during = terminal.wait_for(r"in flight")
    assert re.search(r"Applying .*0/4 · 3 in flight", during), during
    for i in range(3):
        assert re.search(rf"time_sleep\.s\[{i}\]\s+creating\s+\d+s", during), during
    assert "\x1b[" in terminal.screen(escapes=True)  # colour at a real terminal

    done = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 0]" in done, done
    assert "in flight" not in done and "Applying" not in done  # the live region is gone
    for i in range(3):
        assert re.search(rf"✓ time_sleep\.s\[{i}\]: Creation complete after 3s \[id=", done), done
    assert re.search(r"✓ time_sleep\.last: Creation complete after 1s", done)
    assert re.search(r"Applied 4 operations in \d+\.\ds", done)
    assert "Apply complete! Resources: 4 added, 0 changed, 0 destroyed." in done
    assert len(project.instances()) == 4


def test_any_other_answer_cancels(terminal: Terminal, project: Project) -> None:
    terminal.run(project.root, ["apply"])
    terminal.wait_for(r"Enter a value:")
    terminal.send("no", "Enter")
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "Apply cancelled." in done and "[exit 1]" in done, done
    assert "Creating" not in done and "Applying" not in done
    assert not project.state_file.exists() or not project.instances()


def test_failures_show_while_others_still_run(terminal: Terminal, tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""
    resource "time_sleep" "slow" {
      create_duration = "6s"
    }
    resource "local_file" "bad" {
      filename = "${path.module}/\\u0000/x"
      content  = "x"
    }
    """)
    terminal.run(project.root, ["apply", "--auto-approve"])
    during = terminal.wait_for(r"✗ local_file\.bad: Creation failed after 0s")
    assert "in flight" in during and re.search(r"time_sleep\.slow\s+creating", during), during
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 1]" in done and "in flight" not in done
    assert re.search(r"Applied 1 of 2 operations in \d+\.\ds: 1 failed", done), done
    assert "Apply failed." in done


def test_input_disabled_never_prompts(terminal: Terminal, project: Project) -> None:
    terminal.run(project.root, ["apply"], env={"CTL_INPUT": "false"})
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "Enter a value" not in done and "[exit 1]" in done
    assert "Apply needs confirmation, but input is disabled" in done


@pytest.mark.parametrize("setting", [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"CTL_NO_COLOR": "1"}, {"--no-color": ""}])
def test_plain_lines_at_a_terminal_when_asked(terminal: Terminal, project: Project, setting: dict[str, str]) -> None:
    args = ["--no-color", "apply", "--auto-approve"] if "--no-color" in setting else ["apply", "--auto-approve"]
    terminal.run(project.root, args, env={k: v for k, v in setting.items() if not k.startswith("-")})
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 0]" in done, done
    assert re.search(r"^time_sleep\.s\[0\]: Creating\.\.\.$", done, re.M), done
    assert re.search(r"^time_sleep\.s\[0\]: Creation complete after 3s \[id=[^\]]+\]$", done, re.M), done
    assert "in flight" not in done and "✓" not in done
    assert not ANSI.search(terminal.screen(escapes=True).replace("\x1b[0m", "").replace("\x1b[m", ""))


def test_a_large_plan_is_counted_past_its_first_changes_at_a_terminal_only(terminal: Terminal, tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""
    resource "terraform_data" "n" {
      count = 230
      input = count.index
    }
    """)
    terminal.run(project.root, ["plan", "--no-input"])
    shown = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 0]" in shown, shown
    assert shown.count("will be created") == 200
    assert re.search(r"\.\.\. and 30 more changes, not shown in full:\n\s+\+ 30 terraform_data to create", shown)
    assert "Plan: 230 to add, 0 to change, 0 to destroy." in shown

    piped = project.ok("plan")  # a CI log or a pipe: every change
    assert piped.stdout.count("will be created") == 230 and "not shown in full" not in piped.stdout

    full = Terminal()
    try:
        full.run(project.root, ["plan", "--no-input", "--full-plan"])
        everything = full.wait_for(r"\[exit \d+\]")
    finally:
        full.close()
    assert everything.count("will be created") == 230 and "not shown in full" not in everything
