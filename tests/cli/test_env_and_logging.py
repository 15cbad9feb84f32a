"""Environment variables for global settings (``CTL_*``) and the structured logs of ``CTL_LOG``."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import typer

from cli import common, logging_setup, output
from cli.main import run, typer_app
from cli.options import env_args
from tests.e2e.helpers import Project, sleeps, take_lock
from vocab.errors import ExitCode, UsageError

GROUP = typer.main.get_command(typer_app)


# -- CTL_CLI_ARGS ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words", "end"),
    [
        (["plan", "--out", "x"], ["plan"], 1),
        (["--chdir", "infra", "--no-color", "plan"], ["plan"], 4),
        (["-C", "infra", "state", "list"], ["state", "list"], 4),
        (["--chdir=infra", "workspace", "new", "dev"], ["workspace", "new"], 3),
        (["--version"], [], 0),
        ([], [], 0),
        (["state"], [], 0),  # a group without its command names no command
        (["nosuch", "plan"], [], 0),
    ],
)
def test_command_words(args: list[str], words: list[str], end: int) -> None:
    assert env_args.command_words(args, GROUP) == (words, end)


def test_env_args_are_inserted_after_the_command() -> None:
    env = {"CTL_CLI_ARGS": "--parallelism=2", "CTL_CLI_ARGS_plan": "--var 'greeting=hello world' --lock=false",
           "CTL_CLI_ARGS_apply": "--auto-approve"}
    assert env_args.apply(["-C", "x", "plan", "--out", "p"], GROUP, env) == [
        "-C", "x", "plan", "--parallelism=2", "--var", "greeting=hello world", "--lock=false", "--out", "p"]
    assert env_args.apply(["state", "list"], GROUP, {"CTL_CLI_ARGS_state_list": "--id x"}) == [
        "state", "list", "--id", "x"]
    assert env_args.apply(["--version"], GROUP, env) == ["--version"]


def test_bad_quoting_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="CTL_CLI_ARGS_plan"):
        env_args.apply(["plan"], GROUP, {"CTL_CLI_ARGS_plan": "--var 'open"})
    monkeypatch.setenv("CTL_CLI_ARGS_validate", "--var 'open")
    assert run(["validate"]) == ExitCode.USAGE
    assert "Cannot read CTL_CLI_ARGS_validate" in capsys.readouterr().err


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.write('variable "n" {\n  default = 1\n}\nresource "terraform_data" "d" {\n  count = var.n\n}\n')
    return p


def test_cli_args_through_the_executable(project: Project) -> None:
    res = project.ctl("plan", env={"CTL_CLI_ARGS_plan": "--detailed-exitcode --var n=3"})
    assert res.code == ExitCode.CHANGES_PRESENT and "Plan: 3 to add" in res.stdout, res
    # the command line wins over the environment; the general variable applies to every command
    res = project.ctl("plan", "--var", "n=2", env={"CTL_CLI_ARGS": "--var n=5", "CTL_CLI_ARGS_plan": "--var n=4"})
    assert "Plan: 2 to add" in res.stdout, res
    res = project.ctl("plan", env={"CTL_CLI_ARGS": "--var n=5", "CTL_CLI_ARGS_plan": "--var n=4"})
    assert "Plan: 4 to add" in res.stdout, res
    project.ok("apply", env={"CTL_CLI_ARGS_apply": "-auto-approve=true"})
    assert len(project.instances()) == 1


# -- the other global settings ----------------------------------------------------------------------------


def test_ctl_parallelism(project: Project) -> None:
    project.write(sleeps(4, "1s"))
    started = time.monotonic()
    project.ok("apply", "--auto-approve", env={"CTL_PARALLELISM": "1"})
    assert time.monotonic() - started >= 4  # one at a time
    bad = project.ctl("plan", env={"CTL_PARALLELISM": "lots"})
    assert bad.code == ExitCode.USAGE and 'Invalid CTL_PARALLELISM "lots"' in bad.stderr, bad
    assert project.ctl("plan", env={"CTL_PARALLELISM": "0"}).code == ExitCode.USAGE


def test_ctl_lock_timeout(project: Project) -> None:
    project.apply()
    lock_id = take_lock(project, "holding for the test")
    started = time.monotonic()
    res = project.ctl("apply", "--auto-approve", env={"CTL_LOCK_TIMEOUT": "2s"})
    assert res.code == ExitCode.LOCK_HELD, res
    assert time.monotonic() - started >= 2  # it waited as asked
    bad = project.ctl("apply", "--auto-approve", env={"CTL_LOCK_TIMEOUT": "soon"})
    assert bad.code == ExitCode.USAGE and 'Invalid CTL_LOCK_TIMEOUT "soon"' in bad.stderr, bad
    assert lock_id


def test_ctl_input_false(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty())
    for name in ("CI", "CTL_INPUT", "TF_INPUT"):
        monkeypatch.delenv(name, raising=False)
    assert common.input_enabled(None) is True
    monkeypatch.setenv("CTL_INPUT", "false")
    assert common.input_enabled(None) is False
    monkeypatch.setenv("CTL_INPUT", "0")
    assert common.input_enabled(None) is False
    monkeypatch.setenv("CTL_INPUT", "true")
    assert common.input_enabled(None) is True and common.input_enabled(False) is False


def test_ctl_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("CTL_NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    output.configure(no_color=False, root=Path("."))
    assert output.color_enabled(Tty()) is True
    monkeypatch.setenv("CTL_NO_COLOR", "1")
    assert output.color_enabled(Tty()) is False


# -- CTL_LOG / CTL_LOG_PATH -------------------------------------------------------------------------------


def records(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def test_log_to_stderr_with_phase_and_operation_timings(project: Project) -> None:
    project.write(sleeps(2, "1s"))
    res = project.ctl("apply", "--auto-approve", env={"CTL_LOG": "info"})
    assert res.code == 0, res
    logs = records(res.stderr)
    assert logs and all({"@timestamp", "@level", "@module", "@message"} <= set(r) for r in logs)
    phases = {r["phase"]: r["seconds"] for r in logs if "phase" in r}
    assert {"load", "parse", "evaluate", "refresh", "plan", "apply", "persist"} <= set(phases)
    ops = [r for r in logs if r.get("address", "").startswith("time_sleep.s[")]
    assert {r["address"] for r in ops} == {"time_sleep.s[0]", "time_sleep.s[1]"}
    assert all(r["action"] == "create" and r["ok"] is True and r["seconds"] >= 1 for r in ops)
    assert not any(r["@level"] == "debug" for r in logs)
    assert "{" not in res.stdout.split("\n", 1)[0]  # logs never go to stdout


def test_log_path_and_levels(project: Project, tmp_path: Path) -> None:
    project.apply()
    log = tmp_path / "ctl.log"
    res = project.ctl("plan", env={"CTL_LOG": "debug", "CTL_LOG_PATH": str(log)})
    assert res.code == 0 and not records(res.stderr), res
    logs = records(log.read_text())
    assert any(r["@level"] == "debug" and r.get("address") == "terraform_data.d[0]" for r in logs)  # refresh
    project.ctl("plan", env={"CTL_LOG": "error", "CTL_LOG_PATH": str(log)})
    assert len(records(log.read_text())) == len(logs)  # nothing at error level in a good run
    quiet = project.ctl("plan")
    assert not records(quiet.stderr)
    bad = project.ctl("plan", env={"CTL_LOG": "loud"})
    assert bad.code == 0 and "CTL_LOG='loud' is not a log level" in bad.stderr


def test_only_debug_prints_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    from cli.commands import validate as validate_cmd

    def crash(*_a: Any, **_k: Any) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr("engine.validate.validate", crash)
    monkeypatch.chdir(tmp_path)
    assert validate_cmd  # the command imports engine.validate.validate lazily, so the patch applies
    for level in ("", "info", "error"):
        monkeypatch.setenv("CTL_LOG", level)
        assert run(["validate"]) == ExitCode.ERROR
        err = capsys.readouterr().err
        assert "internal error: RuntimeError: kaboom" in err and "Traceback" not in err
        logged = records(err)
        if level:
            assert logged[-1]["@level"] == "error" and "traceback" not in logged[-1]
    monkeypatch.setenv("CTL_LOG", "debug")
    with pytest.raises(RuntimeError, match="kaboom"):  # re-raised: Python prints the traceback
        run(["validate"])
    logged = records(capsys.readouterr().err)
    assert "Traceback" in logged[-1]["traceback"]
    monkeypatch.delenv("CTL_LOG")
    logging_setup.configure()


def test_formatter_keeps_structured_fields() -> None:
    formatter = logging_setup.JsonLinesFormatter(tracebacks=False)
    record = logging.LogRecord("engine.apply", logging.INFO, __file__, 1, "op %s", ("x",), None)
    record.address, record.seconds = "a.b", 1.5
    doc = json.loads(formatter.format(record))
    assert doc["@message"] == "op x" and doc["@module"] == "engine.apply" and doc["@level"] == "info"
    assert doc["address"] == "a.b" and doc["seconds"] == 1.5
    assert logging_setup.level_from_env({"CTL_LOG_PATH": "/tmp/x"}) == logging.INFO
    assert logging_setup.level_from_env({"CTL_LOG": "trace"}) == logging.DEBUG
    assert logging_setup.level_from_env({"CTL_LOG": "off", "CTL_LOG_PATH": "/tmp/x"}) is None


_CRASHING_CTL = """
import sys
import engine.validate

def crash(*_args, **_kwargs):
    raise RuntimeError("kaboom")

engine.validate.validate = crash
from cli.main import app
app(["validate"])
"""


@pytest.mark.parametrize("level", ["", "off", "info", "error"])
def test_an_internal_error_is_one_line_in_a_real_process(tmp_path: Path, level: str) -> None:
    """No pytest log capture here: the process's loggers are exactly what a user's ctl has."""
    import subprocess

    from tests.e2e.helpers import REPO, clean_env

    env = clean_env({"CTL_LOG": level, "PYTHONPATH": str(REPO)})
    proc = subprocess.run([sys.executable, "-c", _CRASHING_CTL], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == ExitCode.ERROR, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Error: internal error: RuntimeError: kaboom" in proc.stderr
    plain = [line for line in proc.stderr.splitlines() if not line.startswith("{")]
    assert plain == ["Error: internal error: RuntimeError: kaboom",
                     "Run again with CTL_LOG=debug to see the traceback, and please report it."]


# -- gRPC's own logging -----------------------------------------------------------------------------------

_GOAWAY = """
import time
from concurrent import futures

from cli import logging_setup

logging_setup.configure()  # what every run does first
import grpc

slow = grpc.unary_unary_rpc_method_handler(lambda request, context: (time.sleep(2), b"")[1])
server = grpc.server(futures.ThreadPoolExecutor(2))
server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("t.S", {"Slow": slow}),))
port = server.add_insecure_port("127.0.0.1:0")
server.start()
call = grpc.insecure_channel(f"127.0.0.1:{port}").unary_unary("/t.S/Slow").future(b"")
time.sleep(0.5)
server.stop(None)  # the server goes away under a call, as a provider's may
try:
    call.result()
except grpc.RpcError:
    pass
time.sleep(0.5)
"""


@pytest.mark.parametrize("ctl_log", ["", "info", "debug"])
def test_grpc_logging_reaches_stderr_only_under_debug(ctl_log: str) -> None:
    """gRPC's C core logs (``Got goaway`` when a server goes away under a call, and whatever a user's
    GRPC_TRACE asks for) through absl straight to stderr; after ctl's logging setup only
    ``CTL_LOG=debug`` lets them through. The ``api`` trace is asked for because it logs on every run,
    where ``Got goaway`` depends on when the server's stop meets the call."""
    env = {**os.environ, "CTL_LOG": ctl_log, "GRPC_VERBOSITY": "DEBUG", "GRPC_TRACE": "api"}
    done = subprocess.run([sys.executable, "-c", _GOAWAY], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    grpc_lines = [line for line in done.stderr.splitlines() if ".cc:" in line]
    if ctl_log == "debug":
        assert grpc_lines, done.stderr
    else:
        assert grpc_lines == []
