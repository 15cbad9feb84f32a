"""The ``snippet`` of ``validate -json`` and ``plan -json`` diagnostics, as Terraform 1.0.3 and OpenTofu 1.12.6 give it.

Each diagnostic with a source range carries ``snippet``: the top-level block it is in (``context``:
its type and labels, Go-quoted), the whole lines shown (``code``, from ``start_line``: those of a
function call around its bad argument, an empty line left out), the highlighted range's byte offsets
in that text, and ``values``. ctl gave none. Each configuration below fails once (the references
stop at the first kind of error); ctl's snippet is Terraform 1.0.3's byte for byte, and OpenTofu's
but for OpenTofu's ``function_call`` (the called function's signature), which ctl does not give.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CASES = {
    "unsupported_argument": 'module "m" {\n  source = "./m"\n  nope   = 1\n}\n',
    "undeclared_variable": 'output "bad_ref" { value = var.nope }\n',
    "undeclared_local_in_a_block": 'locals {\n  a = 1\n}\n\noutput "o" {\n  value = {\n    k = local.nope\n  }\n}\n',
    "function_error_in_locals": "locals {\n  x = upper([])\n}\n",
    "call_over_lines": 'output "multi" {\n  value = one([\n    1, 2,\n  ])\n}\n',
    "empty_line_in_a_call": 'output "gap" {\n  value = one([\n    1,\n\n    2,\n  ])\n}\n',
    "missing_argument": 'output "missing" {\n  value = lookup({ a = 1 })\n}\n',
    "call_failed_as_a_whole": 'output "w" {\n  value = range(1, 2, 0)\n}\n',
    "call_in_a_module_block": 'module "m" {\n  source = "./m"\n  a = one(\n[1, 2])\n}\n',
    "crlf_lines": "locals {\r\n  x = upper([])\r\n}\r\n",
}
MODULE = 'variable "a" {\n  default = 1\n}\n'
NO_PLUGINS = Path("/nonexistent")  # nothing here needs a provider plugin


def _write(workdir: Path, main_tf: str) -> None:
    (workdir / "m").mkdir(parents=True)
    (workdir / "main.tf").write_bytes(main_tf.encode())
    (workdir / "m" / "main.tf").write_text(MODULE)


def _diagnostics(tool: str, workdir: Path, tofu: Path, command: str) -> list[dict[str, Any]]:
    """The diagnostics of ``validate -json`` (or of ``plan -json``'s stream) by ``tool``."""
    if tool == "ctl":
        project = Project(workdir)
        assert project.ctl("init", "-input=false", "-no-color").code == 0
        args = ("validate", "-json") if command == "validate" else ("plan", "-json", "-input=false")
        done = project.ctl(*args)
        assert "Traceback" not in done.stderr, str(done)
        text = done.stdout
    else:
        reference = OpenTofuDir(workdir, NO_PLUGINS, tofu) if tool == "opentofu" else TerraformDir(workdir, NO_PLUGINS)
        (workdir / "tofurc").write_text("")
        reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # OpenTofu warns when there is none
        reference.run("init", "-input=false", "-no-color")
        args = ("validate", "-json") if command == "validate" else ("plan", "-json", "-input=false")
        text = reference.run(*args, expect=None).stdout
    if command == "validate":
        return json.loads(text)["diagnostics"]  # type: ignore[no-any-return]
    return [json.loads(line)["diagnostic"] for line in text.splitlines() if '"diagnostic"' in line]


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu-bin"))


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory, tofu: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    root = tmp_path_factory.mktemp("snippets")
    found: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name, main_tf in CASES.items():
        for tool in ("ctl", "opentofu", "terraform"):
            _write(root / name / tool, main_tf)
            found.setdefault(name, {})[tool] = _diagnostics(tool, root / name / tool, tofu, "validate")
    return found


def _snippets(diagnostics: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each diagnostic's range and snippet, OpenTofu's ``function_call`` set apart."""
    out = []
    for d in diagnostics:
        snippet = dict(d.get("snippet") or {})
        snippet.pop("function_call", None)
        out.append((d["range"], snippet))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_a_snippet_is_the_references_snippet(validated: dict[str, dict[str, list[dict[str, Any]]]],
                                             name: str) -> None:
    ours = validated[name]["ctl"]
    assert len(ours) == 1, ours
    assert "snippet" in ours[0], ours
    assert _snippets(ours) == _snippets(validated[name]["terraform"])
    assert _snippets(ours) == _snippets(validated[name]["opentofu"])
    assert ours[0]["snippet"] == validated[name]["terraform"][0]["snippet"]  # byte for byte, parsed


def test_a_snippet_written_out(validated: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    (call,) = validated["call_in_a_module_block"]["ctl"]
    assert call["snippet"] == {"context": 'module "m"', "code": "  a = one(\n[1, 2])", "start_line": 3,
                               "highlight_start_offset": 11, "highlight_end_offset": 12, "values": []}
    (gap,) = validated["empty_line_in_a_call"]["ctl"]
    assert gap["snippet"]["code"] == "  value = one([\n    1,\n    2,\n  ])"  # the empty line left out


def test_plan_json_diagnostics_carry_the_snippet(tmp_path: Path, tofu: Path) -> None:
    found = {}
    for tool in ("ctl", "opentofu", "terraform"):
        _write(tmp_path / tool, CASES["function_error_in_locals"])
        found[tool] = _snippets(_diagnostics(tool, tmp_path / tool, tofu, "plan"))
    assert found["ctl"] == found["terraform"] == found["opentofu"]
    assert found["ctl"][0][1]["context"] == "locals"
