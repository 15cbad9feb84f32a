"""Renaming a module call, re-keying it, or moving a resource into or out of a module with a ``moved``
block keeps every object: the real ``ctl`` and OpenTofu 1.12.6 (unpacked from ``../shared/peers``)
run the same two configurations side by side (apply the first, then plan, show and apply the second)
and must plan the same actions at the same addresses, with the same ``previous_address``, and leave
the same addresses in the state. Bad statements (a cycle, a source still declared, a module moved
to a resource) are refused by both with the same summary.

Terraform 1.0.3 predates ``moved`` blocks: the test checks that it refuses the block, which is why
OpenTofu is the reference here. HashiCorp's null and random providers come from
``../shared/providers``; ``terraform_data`` is built in. Under CI=true a missing reference is a
failure, never a skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import CTL, REPO, clean_env
from tests.plugin.terraform_cli import missing_oracle, opentofu_executable, terraform_executable

MIRROR = REPO.parent / "shared" / "providers"
TIMEOUT = 180.0

VERSIONS = """\
terraform {
  required_providers {
    null = {
      source = "registry.terraform.io/hashicorp/null"
    }
    random = {
      source = "registry.terraform.io/hashicorp/random"
    }
  }
}
"""

CHILD = """\
resource "terraform_data" "x" {
  input = "x"
}

resource "null_resource" "n" {
  triggers = { k = "v" }
}

resource "random_id" "r" {
  byte_length = 2
}
"""

CHILD_WITHOUT_NULL = """\
resource "terraform_data" "x" {
  input = "x"
}

resource "random_id" "r" {
  byte_length = 2
}
"""


def _calls(*blocks: str) -> str:
    return "\n".join(blocks) + "\n"


def _moved(src: str, dst: str) -> str:
    return f"moved {{\n  from = {src}\n  to   = {dst}\n}}"


def _module(name: str, extra: str = "", source: str = "./m") -> str:
    return f'module "{name}" {{\n  source = "{source}"\n{extra}}}'


ROOT_RES = 'resource "null_resource" "top" {\n  triggers = { k = "v" }\n}'

# name -> (root main.tf before, root main.tf after); the child module m/ is the same in both.
CASES: dict[str, tuple[str, str]] = {
    "rename_module": (_calls(_module("a")), _calls(_module("b"), _moved("module.a", "module.b"))),
    "module_to_count": (_calls(_module("a")),
                        _calls(_module("a", "  count = 1\n"), _moved("module.a", "module.a[0]"))),
    "count_to_for_each": (_calls(_module("a", "  count = 2\n")),
                          _calls(_module("a", '  for_each = toset(["x", "y"])\n'),
                                 _moved("module.a[0]", 'module.a["x"]'), _moved("module.a[1]", 'module.a["y"]'))),
    "chain": (_calls(_module("a")),
              _calls(_module("c"), _moved("module.a", "module.b"), _moved("module.b", "module.c"))),
    "resource_out_of_module": (
        _calls(_module("a")),
        _calls(_module("a", source="./m2"), 'resource "null_resource" "out" {\n  triggers = { k = "v" }\n}',
               _moved("module.a.null_resource.n", "null_resource.out"))),
    "resource_into_module": (_calls(ROOT_RES),
                             _calls(_module("m"), _moved("null_resource.top", "module.m.null_resource.n"))),
    "renamed_count_module": (_calls(_module("a", "  count = 2\n")),
                             _calls(_module("b", "  count = 2\n"), _moved("module.a", "module.b"))),
    "blocked_by_existing": (_calls(_module("a"), _module("b")), _calls(_module("b"), _moved("module.a", "module.b"))),
}

REFUSED: dict[str, tuple[str, str]] = {
    "cycle": (_calls(_module("a")),
              _calls(_module("c"), _moved("module.a", "module.b"), _moved("module.b", "module.a"))),
    "still_declared": (_calls(_module("a")), _calls(_module("a"), _moved("module.a", "module.a.module.b"))),
    "resource_still_declared_in_module": (
        _calls(_module("a")),
        _calls(_module("a"), 'resource "null_resource" "out" {\n  triggers = { k = "v" }\n}',
               _moved("module.a.null_resource.n", "null_resource.out"))),
    "two_destinations": (_calls(_module("a")), _calls(_module("b"), _module("c"), _moved("module.a", "module.b"),
                                                     _moved("module.a", "module.c"))),
    "two_sources": (_calls(_module("a"), _module("z")).replace('"z"', '"a2"'),
                    _calls(_module("b"), _moved("module.a", "module.b"), _moved("module.a2", "module.b"))),
    "module_to_resource": (_calls(_module("a")), _calls(_module("a"), ROOT_RES, _moved("module.a", "null_resource.top"))),
}



@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not MIRROR.is_dir():
        missing_oracle(f"the provider mirror is not at {MIRROR}")
    return opentofu_executable(tmp_path_factory.mktemp("tofu"))


def _write(work: Path, main_tf: str) -> None:
    (work / "m").mkdir(parents=True, exist_ok=True)
    (work / "main.tf").write_text(main_tf)
    (work / "versions.tf").write_text(VERSIONS)
    (work / "m" / "main.tf").write_text(CHILD)
    (work / "m" / "versions.tf").write_text(VERSIONS)
    (work / "m2").mkdir(exist_ok=True)  # the child without its null_resource (moved out of it)
    (work / "m2" / "main.tf").write_text(CHILD_WITHOUT_NULL)
    (work / "m2" / "versions.tf").write_text(VERSIONS)


class Tool:
    """One of the two programs, run the same way in its own directory."""

    def __init__(self, argv: list[str], env: dict[str, str], work: Path) -> None:
        self.argv, self.env, self.work = argv, env, work

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*self.argv, *args], cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert "Traceback" not in proc.stderr, proc.stderr
        if ok:
            assert proc.returncode == 0, f"{self.argv[0]} {args}:\n{proc.stdout}\n{proc.stderr}"
        return proc


def _tofu(binary: Path, work: Path) -> Tool:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_") and k != "HOME"}
    home = work.parent / f"{work.name}-home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    return Tool([str(binary)], env, work)


def _ctl(work: Path) -> Tool:
    return Tool([CTL], clean_env(), work)


def _init(tool: Tool) -> None:
    if tool.argv[0] == CTL:
        tool.run("init", "-plugin-dir", str(MIRROR))
    else:
        tool.run("init", "-input=false", "-no-color", f"-plugin-dir={MIRROR}")


def _first(tool: Tool, before: str, after: str) -> None:
    """Apply ``before``, then write ``after`` (and init again: a module call may be new)."""
    _write(tool.work, before)
    _init(tool)
    tool.run("apply", "-auto-approve", "-input=false", "-no-color")
    (tool.work / "main.tf").write_text(after)
    _init(tool)


def _changes(doc: dict[str, Any]) -> list[tuple[str, tuple[str, ...], str | None]]:
    return sorted((rc["address"], tuple(rc["change"]["actions"]), rc.get("previous_address"))
                  for rc in doc.get("resource_changes", []))


def _run(tool: Tool, before: str, after: str) -> tuple[list[Any], list[str], str]:
    _first(tool, before, after)
    plan = tool.run("plan", "-input=false", "-no-color", "-out=tfplan")
    shown = tool.run("show", "-json", "tfplan").stdout
    doc = json.loads(shown[shown.find("{"):])
    tool.run("apply", "-auto-approve", "-input=false", "-no-color", "tfplan")
    listed = tool.run("state", "list").stdout.split()
    return _changes(doc), sorted(listed), plan.stdout + plan.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_moves_match_opentofu(case: str, tofu: Path, tmp_path: Path) -> None:
    before, after = CASES[case]
    ref_changes, ref_state, ref_out = _run(_tofu(tofu, tmp_path / "tofu"), before, after)
    got_changes, got_state, got_out = _run(_ctl(tmp_path / "ctl"), before, after)
    assert got_changes == ref_changes
    assert got_state == ref_state
    for line in ref_out.splitlines():  # "# module.a.x has moved to module.b.x", as the reference prints it
        if "has moved to" in line:
            assert line.strip() in got_out, got_out
    if case != "blocked_by_existing":
        assert not any("delete" in actions for _, actions, _ in got_changes), got_changes  # nothing destroyed
        assert any(previous for _, _, previous in got_changes), got_changes
    else:
        assert "Unresolved resource instance address changes" in ref_out
        assert "Unresolved resource instance address changes" in got_out


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bad_moves_are_refused_as_opentofu_refuses_them(case: str, tofu: Path, tmp_path: Path) -> None:
    before, after = REFUSED[case]
    ref, got = _tofu(tofu, tmp_path / "tofu"), _ctl(tmp_path / "ctl")
    outs = []
    for tool in (ref, got):
        _write(tool.work, before)
        _init(tool)
        tool.run("apply", "-auto-approve", "-input=false", "-no-color")
        applied = tool.run("state", "list").stdout.split()
        (tool.work / "main.tf").write_text(after)
        # OpenTofu refuses some statements as soon as it reads the configuration (init), others when
        # it plans; either way the plan must not run.
        init = tool.run("init", "-input=false", "-no-color", f"-plugin-dir={MIRROR}", ok=False) \
            if tool is ref else tool.run("init", "-plugin-dir", str(MIRROR), ok=False)
        proc = tool.run("plan", "-input=false", "-no-color", ok=False) if init.returncode == 0 else init
        assert proc.returncode != 0
        outs.append(proc.stdout + proc.stderr)
    summary = next(line for line in outs[0].splitlines() if line.startswith("Error: "))[len("Error: "):]
    assert summary in outs[1], outs[1]
    assert "Traceback" not in outs[1]
    assert got.run("state", "list").stdout.split() == applied  # the state is untouched


def test_terraform_1_0_3_has_no_moved_blocks(tmp_path: Path) -> None:
    """Why OpenTofu is the reference above: Terraform 1.0.3 refuses the block outright."""
    binary = terraform_executable()
    _write(tmp_path, _calls(_module("b"), _moved("module.a", "module.b")))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    env.update(HOME=str(tmp_path), CHECKPOINT_DISABLE="1")
    proc = subprocess.run([str(binary), "init", "-backend=false", "-input=false", "-no-color",
                           f"-plugin-dir={MIRROR}"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert 'Blocks of type "moved" are not expected here' in proc.stdout + proc.stderr


def test_removed_without_lifecycle_destroys_as_terraform_documents(tofu: Path, tmp_path: Path) -> None:
    """Terraform's documented default for ``removed`` is ``destroy = true``; OpenTofu 1.12 forgets
    instead (with a warning). ctl follows Terraform: the reference is run to show the difference is
    OpenTofu's, and that both agree once ``lifecycle { destroy = false }`` is written."""
    before = 'resource "terraform_data" "g" {\n  input = "g"\n}\n'
    bare = 'removed {\n  from = terraform_data.g\n}\n'
    kept = 'removed {\n  from = terraform_data.g\n  lifecycle {\n    destroy = false\n  }\n}\n'
    for name, after, ctl_action in (("bare", bare, ("delete",)), ("kept", kept, ("forget",))):
        ref, got = _tofu(tofu, tmp_path / f"tofu-{name}"), _ctl(tmp_path / f"ctl-{name}")
        planned: dict[str, tuple[str, ...]] = {}
        for tool in (ref, got):
            _first(tool, before, after)
            tool.run("plan", "-input=false", "-no-color", "-out=tfplan")
            shown = tool.run("show", "-json", "tfplan").stdout
            (address, actions, _), = _changes(json.loads(shown[shown.find("{"):]))
            assert address == "terraform_data.g"
            planned[tool.argv[0]] = actions
        assert planned[CTL] == ctl_action
        assert planned[str(tofu)] == ("forget",)
