"""``type()`` is a function of the console only, as in OpenTofu 1.12.6 (and Terraform 1.0.3 has none).

A configuration calling it in a local, inside a ``for`` expression and inside a template is told
three times that there is no function named "type": ``validate -json`` gives the references'
diagnostics (summary, detail, and the range of the name alone) and ``plan`` fails with them, where
ctl used to accept the configuration and plan ``"number"``. The console still answers ``type(1)``.

OpenTofu (unpacked from ``../shared/peers``) and Terraform 1.0.3 (the test extra) are the references;
under CI=true a missing one is a failure, never a skip.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import CTL, Project, clean_env
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CONFIG = """\
locals {
  t = type(1)
  u = [for s in ["a"] : type(s)]
}

output "o" { value = "${type(1)}!" }
"""

NO_PLUGINS = Path("/nonexistent")  # nothing here needs a provider
TOOLS = ("ctl", "opentofu", "terraform")
DETAIL = 'There is no function named "type".'


def _reference(name: str, workdir: Path, tofu: Path) -> TerraformDir:
    if name == "terraform":
        return TerraformDir(workdir, NO_PLUGINS)
    reference = OpenTofuDir(workdir, NO_PLUGINS, tofu)
    (workdir / "tofurc").write_text("")
    reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # else it warns that there is none
    return reference


def _run(name: str, workdir: Path, tofu: Path, *args: str) -> tuple[int, str, str]:
    if name == "ctl":
        done = Project(workdir).ctl(*args)
        assert "Traceback" not in done.stderr, str(done)
        return done.code, done.stdout, done.stderr
    ran = _reference(name, workdir, tofu).run(*args, expect=None)
    return ran.returncode, ran.stdout, ran.stderr


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu-bin"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, tofu: Path) -> dict[str, dict[str, Any]]:
    """For each tool, in a directory of its own holding CONFIG: ``validate -json`` and ``plan``."""
    root = tmp_path_factory.mktemp("console-only-type")
    found: dict[str, dict[str, Any]] = {}
    for name in TOOLS:
        workdir = root / name
        workdir.mkdir()
        (workdir / "main.tf").write_text(CONFIG)
        if name != "ctl":
            code, out, err = _run(name, workdir, tofu, "init", "-input=false", "-no-color")
            assert code == 0, f"{name} init: exit {code}\n{out}{err}"
        code, out, _err = _run(name, workdir, tofu, "validate", "-json")
        found[name] = {"validate_code": code, "validate": json.loads(out)}
        code, out, err = _run(name, workdir, tofu, "plan", "-input=false", "-no-color")
        found[name].update(plan_code=code, plan_stderr=err)
    return found


def _diagnostics(shown: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Each diagnostic's severity, summary, detail and range, in the order of their positions."""
    found = [(d["severity"], d["summary"], d["detail"], d["range"]) for d in shown["diagnostics"]]
    return sorted(found, key=lambda d: (d[3]["start"]["line"], d[3]["start"]["column"]))


def test_validate_says_there_is_no_such_function_as_the_references_say(runs: dict[str, dict[str, Any]]) -> None:
    ours = runs["ctl"]
    assert ours["validate_code"] == runs["opentofu"]["validate_code"] == runs["terraform"]["validate_code"] == 1
    assert ours["validate"]["valid"] is False
    assert _diagnostics(ours["validate"]) == _diagnostics(runs["opentofu"]["validate"])
    assert _diagnostics(ours["validate"]) == _diagnostics(runs["terraform"]["validate"])
    # Written out: the name alone, where it is written, three times.
    assert [(d[1], d[2], d[3]["start"]["line"], d[3]["start"]["column"], d[3]["end"]["column"])
            for d in _diagnostics(ours["validate"])] == [
        ("Call to unknown function", DETAIL, 2, 7, 11),
        ("Call to unknown function", DETAIL, 3, 25, 29),
        ("Call to unknown function", DETAIL, 6, 25, 29),
    ]


def test_plan_fails_with_the_same_errors(runs: dict[str, dict[str, Any]]) -> None:
    for name in TOOLS:
        assert runs[name]["plan_code"] == 1, (name, runs[name]["plan_stderr"])
        assert runs[name]["plan_stderr"].count(DETAIL) == 3, (name, runs[name]["plan_stderr"])
    ours = runs["ctl"]["plan_stderr"]
    assert "main.tf:2:7: Call to unknown function" in ours
    assert "ctl console" in ours  # the hint: where type() is


def test_the_console_keeps_type(tmp_path: Path, tofu: Path) -> None:
    lines = "type(1)\ntype({a = [1]})\n"
    ours = subprocess.run([CTL, "console"], cwd=tmp_path, env=clean_env(), input=lines, capture_output=True,
                          text=True, timeout=60)
    (tmp_path / "opentofu").mkdir()
    reference = _reference("opentofu", tmp_path / "opentofu", tofu)
    theirs = [subprocess.run([str(reference.binary), "console"], cwd=reference.workdir, env=reference.env, input=line,
                             capture_output=True, text=True, timeout=60).stdout for line in lines.splitlines()]
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == "".join(theirs) == "number\nobject({\n    a: tuple([\n        number,\n    ]),\n})\n"
