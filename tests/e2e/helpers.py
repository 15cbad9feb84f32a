"""Running the real ``ctl`` executable the way a user or a CI job does.

Every run gets a clean environment (``CI=true``, no ``CTL_*``/``TF_*`` variables, colour off), no
terminal on stdin, and a configuration directory of its own. Helpers read back what a user would
look at: files on disk, the state file as JSON, exit codes and output lines.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def ctl_executable() -> str:
    """The console script installed next to the running interpreter (the project's venv)."""
    beside = Path(sys.executable).parent / "ctl"
    if beside.exists():
        return str(beside)
    venv = REPO / ".venv" / "bin" / "ctl"
    if venv.exists():
        return str(venv)
    found = shutil.which("ctl")
    if found is None:
        raise RuntimeError("the ctl executable is not installed (pip install -e .)")
    return found


CTL = ctl_executable()
# PYTHONPATH passes through so that a checkout run with PYTHONPATH pointing at it (a git worktree
# beside the virtualenv's editable install) runs its own ctl, not the install's.
_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "LOGNAME", "SYSTEMROOT", "PYTHONPATH")


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A CI-like environment: nothing of the caller's ctl/Terraform settings leaks in."""
    env = {k: v for k, v in os.environ.items() if k in _KEEP}
    env.update({"CI": "true", "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


@dataclass
class Result:
    args: list[str]
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def __str__(self) -> str:  # what an assertion failure shows
        return (f"ctl {' '.join(self.args)} -> exit {self.code}\n--- stdout ---\n{self.stdout}"
                f"\n--- stderr ---\n{self.stderr}")

    __repr__ = __str__


class Project:
    """A configuration directory and the ctl runs made in it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # -- configuration -------------------------------------------------------------------------

    def write(self, text: str, name: str = "main.tf") -> None:
        """Replace the configuration file ``name`` (other files stay)."""
        (self.root / name).write_text(textwrap.dedent(text).lstrip())

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    # -- running ctl ----------------------------------------------------------------------------

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> Result:
        proc = subprocess.run([CTL, *args], cwd=self.root, env=clean_env(env), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
        return Result(list(args), proc.returncode, proc.stdout, proc.stderr)

    def ok(self, *args: str, env: Mapping[str, str] | None = None) -> Result:
        """Run ctl and insist on exit 0."""
        res = self.ctl(*args, env=env)
        assert res.code == 0, str(res)
        assert "Traceback" not in res.stderr, str(res)
        return res

    def apply(self, *args: str) -> Result:
        return self.ok("apply", "--auto-approve", *args)

    def start(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        """Start ctl in the background (its own process group, so signals reach only it)."""
        return subprocess.Popen([CTL, *args], cwd=self.root, env=clean_env(env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    # -- what a user looks at ---------------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.root / "ctl.tfstate"

    @property
    def lock_file(self) -> Path:
        return self.root / "ctl.tfstate.tflock"

    @property
    def journal_file(self) -> Path:
        return self.root / "ctl.tfstate.journal"

    def state(self) -> dict[str, Any]:
        return json.loads(self.state_file.read_text())

    def instances(self) -> dict[str, dict[str, Any]]:
        """Address -> instance object, from the state file."""
        return instances_of(self.state())


def instances_of(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for res in state.get("resources", []):
        prefix = (res["module"] + ".") if res.get("module") else ""
        if res["mode"] == "data":
            prefix += "data."
        base = f"{prefix}{res['type']}.{res['name']}"
        for inst in res["instances"]:
            key = inst.get("index_key")
            if key is None:
                addr = base
            elif isinstance(key, int):
                addr = f"{base}[{key}]"
            else:
                addr = f"{base}[{json.dumps(key)}]"
            if inst.get("deposed"):
                addr += f" (deposed {inst['deposed']})"
            out[addr] = inst
    return out


@contextlib.contextmanager
def background(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """Make sure a ctl started with ``Project.start`` is gone when the block ends, whatever happens."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def communicate(proc: subprocess.Popen[str], timeout: float = 60) -> Result:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"ctl did not finish within {timeout}s\n{out}\n{err}") from None
    return Result([str(a) for a in proc.args[1:]] if isinstance(proc.args, list) else [], proc.returncode,
                  out, err)


def wait_until(condition: Callable[[], Any], timeout: float = 20, what: str = "condition") -> Any:
    """Poll until ``condition()`` is truthy and return its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


def journal_entries(project: Project) -> list[dict[str, Any]]:
    try:
        lines = project.journal_file.read_bytes().split(b"\n")
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def finished(project: Project) -> set[str]:
    """Addresses whose create/update result the running apply has journaled."""
    return {e["address"] for e in journal_entries(project)
            if e.get("kind") == "result" and not e.get("failed") and e.get("op") in ("create", "update")}


def started(project: Project) -> set[str]:
    return {e["address"] for e in journal_entries(project) if e.get("kind") == "intent"}


def sleeps(count: int, duration: str, *, name: str = "s") -> str:
    """``count`` independent ``time_sleep`` resources (``time_sleep.s[0]`` …)."""
    return f"""
    resource "time_sleep" "{name}" {{
      count           = {count}
      create_duration = "{duration}"
    }}
    """


# An apply that holds the state lock while it works, for tests that kill or interrupt one: two sleeps
# finish at once, two run for ``var.slow`` (60s unless set), so a run can be caught with FAST made
# and SLOW under way, and the next run given ``--var slow=0s`` to finish quickly.
FAST_AND_SLOW = """
variable "slow" {
  type    = string
  default = "60s"
}
resource "time_sleep" "fast" {
  count           = 2
  create_duration = "0s"
}
resource "time_sleep" "slow" {
  count           = 2
  create_duration = var.slow
}
"""
FAST = {"time_sleep.fast[0]", "time_sleep.fast[1]"}
SLOW = {"time_sleep.slow[0]", "time_sleep.slow[1]"}


def wait_mid_apply(project: Project) -> None:
    """Until the running ``FAST_AND_SLOW`` apply has journaled the fast sleeps and begun the slow ones."""
    wait_until(lambda: finished(project) >= FAST and started(project) >= SLOW,
               what="the fast sleeps to finish and the slow ones to start")


_UNLOCK_RE = re.compile(r"ctl state unlock ([0-9a-fA-F-]{36})")


def unlock_command_id(text: str) -> str:
    """The lock ID in the ``ctl state unlock <ID>`` command an error message tells the user to run."""
    m = _UNLOCK_RE.search(text)
    assert m, f"no `ctl state unlock <ID>` command in:\n{text}"
    return m.group(1)


@functools.cache
def has_state_commands() -> bool:
    """Whether this ctl has ``ctl state lock|unlock`` (else tests use the store API directly)."""
    proc = subprocess.run([CTL, "state", "lock", "--help"], env=clean_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode == 0


def take_lock(project: Project, reason: str) -> str:
    """Hold the state lock as a wrapper script would; returns its ID."""
    if has_state_commands():
        return project.ok("state", "lock", "--reason", reason).stdout.strip()
    from backends.base import LockInfo
    from backends.local.store import LocalStore

    info = LockInfo(Operation="OperationTypeInvalid", Info=reason)
    LocalStore(project.state_file).lock("default", info)
    return info.ID


def release_lock(project: Project, lock_id: str) -> None:
    """Run the unlock command a lock error prints (the store API where ``ctl state`` is missing)."""
    if has_state_commands():
        project.ok("state", "unlock", lock_id)
        return
    from backends.local.store import LocalStore

    LocalStore(project.state_file).unlock("default", lock_id)


class SharedWithOpenTofu:
    """A configuration directory that OpenTofu and ctl both run in, each given the same variables.

    OpenTofu runs with a home of its own beside the directory (no user CLI configuration) and ctl in
    ``clean_env``; every run is checked for a traceback and, unless ``code`` is None, its exit status.
    """

    timeout = 180.0

    def __init__(self, root: Path, tofu: Path) -> None:
        self.root, self.tofu_binary = root, tofu
        root.mkdir(parents=True, exist_ok=True)

    def run_tofu(self, args: tuple[str, ...], variables: Mapping[str, str], code: int | None) -> Result:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TF_") and k != "HOME"}
        home = self.root.parent / f"{self.root.name}-home"
        home.mkdir(exist_ok=True)
        (home / ".terraformrc").touch()
        env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1", **variables)
        flags = ["-input=false", "-no-color"] if args[0] != "state" else []
        return self.run([str(self.tofu_binary), *args, *flags], env, code)

    def run_ctl(self, args: tuple[str, ...], variables: Mapping[str, str], code: int | None) -> Result:
        return self.run([CTL, *args], clean_env(variables), code)

    def run(self, argv: list[str], env: dict[str, str], code: int | None) -> Result:
        proc = subprocess.run(argv, cwd=self.root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=self.timeout)
        result = Result(argv[1:], proc.returncode, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, str(result)
        if code is not None:
            assert proc.returncode == code, f"{argv[0]} {argv[1:]}:\n{result}"
        return result

    @property
    def state(self) -> bytes:
        return (self.root / "terraform.tfstate").read_bytes()


def validate_diagnostics(tool: str, workdir: Path, config: str, tofu: Path,
                         files: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The diagnostics ``validate -json`` gives for ``config`` (a ``main.tf`` needing no provider, with
    ``files`` beside it) in a new ``workdir``, by ``tool``: "ctl", or a reference, "opentofu" (the
    binary ``tofu``) or "terraform" (1.0.3), each initialised first with no user CLI configuration.
    Exit 1 is required: every configuration given here is refused."""
    from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir

    workdir.mkdir()
    (workdir / "main.tf").write_text(config)
    for name, text in (files or {}).items():
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_text(text)
    if tool == "ctl":
        done = Project(workdir).ctl("validate", "-json")
        assert "Traceback" not in done.stderr, str(done)
        code, text = done.code, done.stdout
    else:
        nothing = Path("/nonexistent")  # no provider is needed
        reference = OpenTofuDir(workdir, nothing, tofu) if tool == "opentofu" else TerraformDir(workdir, nothing)
        (workdir / "tofurc").write_text("")
        reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # OpenTofu warns when there is none
        reference.run("init", "-input=false", "-no-color", expect=None)  # init refuses a bad configuration too
        ran = reference.run("validate", "-json", expect=None)
        code, text = ran.returncode, ran.stdout
    assert code == 1, f"{tool} validate: exit {code}\n{text}"
    diagnostics: list[dict[str, Any]] = json.loads(text)["diagnostics"]
    return diagnostics
