"""ctl at a real terminal: the approval prompt and the live progress view, driven through tmux.

Each test starts its own tmux server (a private socket, so a developer's sessions are never
touched), runs ``ctl`` in a pane with a colour terminal and no CI variables — as a person would —
types at the prompt with ``send-keys`` and reads the screen with ``capture-pane``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import CTL, Project, sleeps

TMUX = shutil.which("tmux")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

if TMUX is None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail("tmux is not installed (make venv installs it)", pytrace=False)
    pytest.skip("tmux is not installed", allow_module_level=True)


class Terminal:
    """One tmux server with one pane running a command; the pane stays after the command exits."""

    def __init__(self) -> None:
        self.socket = f"ctl-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        proc = subprocess.run([TMUX, "-u", "-L", self.socket, "-f", os.devnull, *args], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def run(self, cwd: Path, args: list[str], env: dict[str, str] | None = None) -> None:
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
                "TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
        base.update(env or {})
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in base.items()), CTL, *args])
        script = f'{command}; echo "[exit $?]"; sleep 600'
        self.tmux("new-session", "-d", "-s", "ctl", "-x", "140", "-y", "60", "-c", str(cwd), script)

    def screen(self, *, escapes: bool = False) -> str:
        """Everything in the pane, scrollback included."""
        return self.tmux("capture-pane", "-p", "-J", *(["-e"] if escapes else []), "-S", "-", "-t", "ctl")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "ctl", *keys)

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
        assert TMUX is not None
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=30)
        socket_dir = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (socket_dir / self.socket).unlink(missing_ok=True)  # the server is gone; so is its socket file


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
