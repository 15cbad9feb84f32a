"""A function call that fails as a whole, as Terraform 1.0.3 and OpenTofu 1.12.6 report it.

``zipmap`` given a null key says "keys list has null value at index N", after checking that there
are as many keys as values; ctl said the first argument's element N was null. Such an error is
"Error in function call", its detail a sentence ending in a full stop, and its range the function's
name through the opening parenthesis, in both references; ``validate -json`` now gives the same
diagnostics from ctl.

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
    "null_key": 'zipmap(["a", null], [1, 2])',
    "typed_null_key_first": 'zipmap([tostring(null), "b", "c"], [1, 2, 3])',
    "null_key_in_a_list": 'zipmap(tolist(["a", "b", null]), [1, 2, 3])',
    "counts_before_nulls": 'zipmap(["a", null], ["x"])',
    "index_not_found": 'index(["a"], "b")',
}

CONFIG = "".join(f"output {json.dumps(name)} {{ value = {text} }}\n" for name, text in CASES.items())
NO_PLUGINS = Path("/nonexistent")  # nothing here needs a provider


def _validated(tool: str, workdir: Path, tofu: Path) -> dict[str, Any]:
    """``validate -json`` of CONFIG by ``tool``: each diagnostic by the output it is in."""
    workdir.mkdir()
    (workdir / "main.tf").write_text(CONFIG)
    if tool == "ctl":
        done = Project(workdir).ctl("validate", "-json")
        assert "Traceback" not in done.stderr, str(done)
        code, text = done.code, done.stdout
    else:
        reference = OpenTofuDir(workdir, NO_PLUGINS, tofu) if tool == "opentofu" else TerraformDir(workdir, NO_PLUGINS)
        (workdir / "tofurc").write_text("")
        reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # OpenTofu warns when there is none
        reference.run("init", "-input=false", "-no-color")
        ran = reference.run("validate", "-json", expect=None)
        code, text = ran.returncode, ran.stdout
    assert code == 1, f"{tool} validate: exit {code}\n{text}"
    names = list(CASES)
    return {names[d["range"]["start"]["line"] - 1]: (d["severity"], d["summary"], d["detail"], d["range"])
            for d in json.loads(text)["diagnostics"]}


@pytest.fixture(scope="module")
def diagnostics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("function-errors")
    tofu = opentofu_executable(root / "opentofu-bin")
    return {tool: _validated(tool, root / tool, tofu) for tool in ("ctl", "opentofu", "terraform")}


@pytest.mark.parametrize("name", list(CASES))
def test_a_failed_call_is_reported_as_the_references_report_it(diagnostics: dict[str, dict[str, Any]],
                                                                name: str) -> None:
    ours = diagnostics["ctl"][name]
    assert ours == diagnostics["opentofu"][name], CASES[name]
    assert ours == diagnostics["terraform"][name], CASES[name]


def test_the_null_keys_message_written_out(diagnostics: dict[str, dict[str, Any]]) -> None:
    _severity, summary, detail, where = diagnostics["ctl"]["null_key"]
    assert summary == "Error in function call"
    assert detail == 'Call to function "zipmap" failed: keys list has null value at index 1.'
    column = CONFIG.splitlines()[0].index("zipmap(") + 1
    assert (where["start"]["column"], where["end"]["column"]) == (column, column + len("zipmap("))
