"""The ``configuration`` section of ``show -json PLANFILE``, as Terraform 1.0.3 and OpenTofu 1.12.6 write it.

Both references read each expression with no variables and no functions: a literal (and whatever
is built of literals: a template, a conditional, a ``for``, arithmetic) is a ``constant_value``, a
reference gives ``references``, and a function call gives ``{}`` (``tostring(null)``,
``"${upper("a")}"``), unless it sits in a branch not taken. ctl gave ``{"constant_value": null}``
for ``tostring(null)`` and the call's result for every other call. ``count`` and ``for_each``
expressions that say nothing are left out.

The configuration holds one output per shape and a module call with arguments of those shapes and a
``count``; OpenTofu also plans ``terraform_data`` resources with ``count`` and ``for_each`` (Terraform
1.0.3 has no ``terraform_data``). Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

SHAPES = {
    "lit_string": '"a"',
    "lit_number": "1.5",
    "lit_null": "null",
    "lit_tuple": '[1, "a", true]',
    "lit_object": '{ a = 1, "b" = [null] }',
    "call_tostring_null": "tostring(null)",
    "call_upper": 'upper("a")',
    "call_in_tuple": '[upper("a"), 1]',
    "call_try": 'try("a", 1)',
    "call_can": "can(1)",
    "ref_var": "var.x",
    "ref_local": "local.l",
    "ref_in_call": "upper(var.x)",
    "ref_index": 'var.m["k"]',
    "ref_index_escaped": 'try(var.m["a\\"b\\n"], null)',
    "ref_number_index": "var.l[0]",
    "ref_legacy_index": "var.l.0",
    "ref_computed_index": "try(var.m[var.x], null)",
    "ref_bool_index": "try(var.m[true], null)",
    "ref_attribute_chain": "local.o.a.b",
    "ref_repeated": '"${var.x}${var.x}"',
    "ref_module_instance": "module.m[0]",
    "ref_module_output": "module.m[0].o",
    "ref_path": "path.module",
    "tmpl_literal": '"a${"b"}c"',
    "tmpl_ref": '"x-${var.x}"',
    "tmpl_call": '"x-${upper("a")}"',
    "tmpl_directive": '"%{if true}y%{endif}"',
    "cond_literal": 'true ? "a" : "b"',
    "cond_call_not_taken": 'true ? "a" : upper("b")',
    "cond_call_taken": 'false ? "a" : upper("b")',
    "cond_ref": "var.b ? 1 : 2",
    "cond_unified": 'true ? 1 : "a"',
    "for_expr": "[for v in [1, 2] : v * 2]",
    "arith": "1 + 2 * 3",
    "splat": "[{ a = 1 }][*].a",
    "and_call_short_circuit": "false && can(1)",
}

# Terraform 1.0.3 evaluates both sides of && (so the call makes it unknown); OpenTofu and ctl stop at false.
# A bool key is var.m[] in Terraform 1.0.3's text, var.m[...] in OpenTofu's.
NEWER = {"and_call_short_circuit", "ref_bool_index"}

# Where ctl still differs: expected to fail, strictly, so that fixing it shows.
KNOWN_DIFFERENCES: dict[str, str] = {}

CONFIG = """\
variable "x" { default = "v" }
variable "b" { default = true }
variable "m" { default = { k = "v" } }
variable "l" { default = ["a"] }
locals {
  l = "loc"
  o = { a = { b = 1 } }
}

module "m" {
  source = "./m"
  count  = length(["a"])
  a      = tostring(null)
  b      = "lit"
  c      = "${var.x}-${upper("q")}"
}
""" + "".join(f"output {json.dumps(name)} {{ value = {text} }}\n" for name, text in SHAPES.items())

MODULE = """\
variable "a" {}
variable "b" {}
variable "c" {}
output "o" { value = upper(var.b) }
"""

RESOURCES = """\
resource "terraform_data" "counted" {
  count = length(["a"])
  input = tostring(null)
}

resource "terraform_data" "each_call" {
  for_each = toset(["a"])
  input    = [upper("a"), each.key]
}

resource "terraform_data" "each_literal" {
  for_each = { a = 1 }
  input    = "${"x"}y"
}

resource "terraform_data" "refs" {
  input      = [terraform_data.counted[0].output, terraform_data.each_call["a"].input[1], terraform_data.each_literal]
  depends_on = [terraform_data.each_call["a"], terraform_data.counted]
}

resource "terraform_data" "empty" {}
"""

NO_PLUGINS = Path("/nonexistent")  # nothing here needs a provider plugin


def _configuration(tool: str, workdir: Path, tofu: Path) -> dict[str, Any]:
    """``show -json`` of ``tool``'s saved plan of the configuration in ``workdir``: its ``configuration``."""
    if tool == "ctl":
        project = Project(workdir)
        planned = project.ctl("plan", "-input=false", "-no-color", "-out=saved.plan")
        assert planned.code == 0, str(planned)
        shown = project.ctl("show", "-json", "saved.plan")
        assert shown.code == 0, str(shown)
        text = shown.stdout
    else:
        reference = OpenTofuDir(workdir, NO_PLUGINS, tofu) if tool == "opentofu" else TerraformDir(workdir, NO_PLUGINS)
        (workdir / "tofurc").write_text("")
        reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # OpenTofu warns when there is none
        reference.run("init", "-input=false", "-no-color")
        reference.run("plan", "-input=false", "-no-color", "-out=saved.plan")
        text = reference.run("show", "-json", "saved.plan").stdout
    return json.loads(text)["configuration"]  # type: ignore[no-any-return]


def _write(workdir: Path, main_tf: str, module: bool) -> None:
    workdir.mkdir(parents=True)
    (workdir / "main.tf").write_text(main_tf)
    if module:
        (workdir / "m").mkdir()
        (workdir / "m" / "main.tf").write_text(MODULE)


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu-bin"))


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory, tofu: Path) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("plan-configuration")
    found = {}
    for tool in ("ctl", "opentofu", "terraform"):
        _write(root / tool, CONFIG, module=True)
        found[tool] = _configuration(tool, root / tool, tofu)
    return found


def _outputs(configuration: dict[str, Any]) -> dict[str, Any]:
    """Each output's expression, of the root module (given the whole section) or of a module."""
    module = configuration.get("root_module", configuration)
    return {name: out["expression"] for name, out in module["outputs"].items()}


def _shape(name: str) -> Any:
    reason = KNOWN_DIFFERENCES.get(name)
    return pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [])


@pytest.mark.parametrize("name", [_shape(name) for name in SHAPES])
def test_an_outputs_expression_is_described_as_the_references_describe_it(shown: dict[str, dict[str, Any]],
                                                                          name: str) -> None:
    ours = _outputs(shown["ctl"])[name]
    assert ours == _outputs(shown["opentofu"])[name], SHAPES[name]
    if name in NEWER:
        assert ours != _outputs(shown["terraform"])[name], "Terraform 1.0.3 agrees: drop it from NEWER"
    else:
        assert ours == _outputs(shown["terraform"])[name], SHAPES[name]


def test_a_function_call_is_no_constant(shown: dict[str, dict[str, Any]]) -> None:
    """What changed, written out."""
    ours = _outputs(shown["ctl"])
    assert ours["call_tostring_null"] == ours["call_upper"] == ours["tmpl_call"] == ours["call_try"] == {}
    assert ours["cond_call_not_taken"] == {"constant_value": "a"}
    assert ours["lit_null"] == {"constant_value": None}
    assert ours["ref_in_call"] == {"references": ["var.x"]}


def test_a_reference_lists_each_step_of_its_traversal(shown: dict[str, dict[str, Any]]) -> None:
    """What changed, written out: every leading part of a traversal, each repeat kept."""
    ours = _outputs(shown["ctl"])
    assert ours["ref_index"] == {"references": ['var.m["k"]', "var.m"]}
    assert ours["ref_attribute_chain"] == {"references": ["local.o.a.b", "local.o.a", "local.o"]}
    assert ours["ref_legacy_index"] == ours["ref_number_index"] == {"references": ["var.l[0]", "var.l"]}
    assert ours["ref_index_escaped"] == {"references": ['var.m["a\\"b\\n"]', "var.m"]}
    assert ours["ref_module_output"] == {"references": ["module.m[0].o", "module.m[0]"]}
    assert ours["ref_repeated"] == {"references": ["var.x", "var.x"]}


def test_a_module_calls_expressions_are_the_references(shown: dict[str, dict[str, Any]]) -> None:
    calls = {tool: shown[tool]["root_module"]["module_calls"]["m"] for tool in shown}
    for theirs in (calls["opentofu"], calls["terraform"]):
        assert calls["ctl"]["expressions"] == theirs["expressions"]
        assert ("count_expression" in calls["ctl"]) == ("count_expression" in theirs) is False
        assert _outputs(calls["ctl"]["module"]) == _outputs(theirs["module"])
    assert calls["ctl"]["expressions"]["a"] == {}


def test_resources_expressions_are_opentofus(tmp_path: Path, tofu: Path) -> None:
    found = {}
    for tool in ("ctl", "opentofu"):
        _write(tmp_path / tool, RESOURCES, module=False)
        resources = _configuration(tool, tmp_path / tool, tofu)["root_module"]["resources"]
        found[tool] = {r["address"]: {k: v for k, v in r.items()
                                      if k.endswith("expression") or k in ("expressions", "depends_on")}
                       for r in resources}
    assert found["ctl"] == found["opentofu"]
    assert found["ctl"]["terraform_data.counted"] == {"expressions": {"input": {}}}
    assert found["ctl"]["terraform_data.empty"] == {}
    assert found["ctl"]["terraform_data.refs"] == {
        "expressions": {"input": {"references": [
            "terraform_data.counted[0].output", "terraform_data.counted[0]", "terraform_data.counted",
            'terraform_data.each_call["a"].input[1]', 'terraform_data.each_call["a"].input',
            'terraform_data.each_call["a"]', "terraform_data.each_call",
            "terraform_data.each_literal"]}},
        "depends_on": ['terraform_data.each_call["a"]', "terraform_data.counted"],
    }
    assert found["ctl"]["terraform_data.each_literal"]["for_each_expression"] == {"constant_value": {"a": 1}}
