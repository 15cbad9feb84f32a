"""Null outputs, typed and untyped, as Terraform 1.0.3 and OpenTofu 1.12.6 plan, store and show them.

One configuration holds a null output (``null``), typed nulls (``tostring(null)``, a ``string`` and a
``list(number)`` variable left null, a sensitive null bool), typed nulls inside an object and a
tuple, and a plain string. Each tool plans it into a plan file and shows it with ``show -json``,
once against no state and once against the state of a configuration where every output had a value:

- the planned outputs (value, type, sensitivity) and the output changes are OpenTofu's, and
  Terraform 1.0.3's where its older plan format has the field (it gives no ``type``). Both references'
  plan files keep only the prior value of an unchanged output, so a null output that was absent is
  ``dynamic`` whatever its type, while one that becomes null has its own type; a null inside a value
  keeps the type the value gives it. A null output that was absent is a no-op, not a creation.
- Applied, neither reference records a null output in its state; ``output NAME`` then says it is not
  found (exit 1) and ``output -json`` leaves it out. ctl does the same, and each tool's state read by
  the others plans no change. What ``output -json`` prints of the other outputs is the references'
  text byte for byte: one output's value on one line, the map laid out, both with Go's escapes.

OpenTofu (unpacked from ``../shared/peers``) and Terraform 1.0.3 (the test extra) are the references;
under CI=true a missing one is a failure, never a skip.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

VARIABLES = """\
variable "maybe" {
  type    = string
  default = null
}

variable "maybe_list" {
  type    = list(number)
  default = null
}
"""

CONFIG = VARIABLES + """
output "untyped" { value = null }
output "typed" { value = tostring(null) }
output "typed_variable" { value = var.maybe }
output "typed_list_variable" { value = var.maybe_list }
output "object_with_typed_null" { value = { a = tostring(null), b = 1 } }
output "tuple_with_typed_nulls" { value = [tolist(null), tonumber(null), var.maybe] }
output "secret_typed_null" {
  value     = sensitive(tobool(null))
  sensitive = true
}
output "plain" { value = "a<b>&é" }
"""

# The same outputs, each with a value: the state the second plan starts from.
BEFORE = VARIABLES + """
output "untyped" { value = "was" }
output "typed" { value = "was" }
output "typed_variable" { value = "was" }
output "typed_list_variable" { value = [1] }
output "object_with_typed_null" { value = { a = "was", b = 1 } }
output "tuple_with_typed_nulls" { value = [[1], 2, "was"] }
output "secret_typed_null" {
  value     = true
  sensitive = true
}
output "plain" { value = "a<b>&é" }
"""

NULL_OUTPUTS = ("untyped", "typed", "typed_variable", "typed_list_variable", "secret_typed_null")
NO_PLUGINS = Path("/nonexistent")  # outputs need no provider
TOOLS = ("ctl", "opentofu", "terraform")


class Tool:
    """One of the three tools in a directory of its own: ctl, OpenTofu or Terraform 1.0.3."""

    def __init__(self, name: str, workdir: Path, tofu: Path) -> None:
        self.name = name
        workdir.mkdir(parents=True)
        self.project = Project(workdir)
        self.reference: TerraformDir | None = None
        if name == "opentofu":
            self.reference = OpenTofuDir(workdir, NO_PLUGINS, tofu)
        elif name == "terraform":
            self.reference = TerraformDir(workdir, NO_PLUGINS)

    @property
    def state_file(self) -> Path:
        return self.project.root / ("ctl.tfstate" if self.reference is None else "terraform.tfstate")

    def run(self, *args: str) -> tuple[int, str, str]:
        if self.reference is None:
            done = self.project.ctl(*args)
            assert "Traceback" not in done.stderr, str(done)
            return done.code, done.stdout, done.stderr
        ran = self.reference.run(*args, expect=None)
        return ran.returncode, ran.stdout, ran.stderr

    def ok(self, *args: str) -> str:
        code, out, err = self.run(*args)
        assert code == 0, f"{self.name} {' '.join(args)}: exit {code}\n{out}{err}"
        return out

    def configure(self, source: str) -> None:
        self.project.write(source)
        if self.reference is not None and not (self.project.root / ".terraform").exists():
            self.ok("init", "-input=false", "-no-color")

    def shown_plan(self) -> dict[str, Any]:
        self.ok("plan", "-input=false", "-no-color", "-out=saved.plan")
        shown = self.ok("show", "-json", "saved.plan")
        return json.loads(shown[shown.find("{"):])  # type: ignore[no-any-return]

    def apply(self) -> None:
        self.ok("apply", "-auto-approve", "-input=false", "-no-color")

    def plan_exit_code(self) -> int:
        code, out, err = self.run("plan", "-detailed-exitcode", "-input=false", "-no-color")
        assert code in (0, 2), f"{self.name} plan: exit {code}\n{out}{err}"
        return code


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu-bin"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, tofu: Path) -> dict[str, dict[str, Any]]:
    """For each tool: ``show -json`` of its plan of CONFIG against no state (``fresh``), its state and
    ``output -json`` after applying it, then ``show -json`` of its plan of CONFIG against the state of
    BEFORE (``updated``), and its ``Tool`` in the directory applied with CONFIG."""
    root = tmp_path_factory.mktemp("null-outputs")
    found: dict[str, dict[str, Any]] = {}
    for name in TOOLS:
        tool = Tool(name, root / name, tofu)
        tool.configure(CONFIG)
        fresh = tool.shown_plan()
        tool.apply()
        state = json.loads(tool.state_file.read_text())
        outputs_text = tool.ok("output", "-json")
        again = Tool(name, root / f"{name}-updated", tofu)
        again.configure(BEFORE)
        again.apply()
        again.configure(CONFIG)
        found[name] = {"fresh": fresh, "state": state, "outputs": json.loads(outputs_text),
                       "outputs_text": outputs_text, "updated": again.shown_plan(), "tool": tool}
    return found


def _without_types(outputs: dict[str, Any]) -> dict[str, Any]:
    return {name: {k: v for k, v in out.items() if k != "type"} for name, out in outputs.items()}


@pytest.mark.parametrize("against", ["fresh", "updated"])
def test_planned_outputs_are_the_references(runs: dict[str, dict[str, Any]], against: str) -> None:
    ours = runs["ctl"][against]["planned_values"]["outputs"]
    assert ours == runs["opentofu"][against]["planned_values"]["outputs"]
    assert _without_types(ours) == runs["terraform"][against]["planned_values"]["outputs"]


def test_planned_output_types_written_out(runs: dict[str, dict[str, Any]]) -> None:
    """What the configuration is for: the types OpenTofu gives, written out."""
    fresh, updated = runs["ctl"]["fresh"]["planned_values"]["outputs"], runs["ctl"]["updated"]["planned_values"]["outputs"]
    assert fresh["typed"]["type"] == fresh["typed_variable"]["type"] == "dynamic"
    assert updated["typed"]["type"] == updated["typed_variable"]["type"] == "string"
    assert updated["typed_list_variable"]["type"] == ["list", "number"]
    assert fresh["object_with_typed_null"]["type"] == ["object", {"a": "string", "b": "number"}]
    assert fresh["tuple_with_typed_nulls"]["type"] == ["tuple", [["list", "dynamic"], "number", "string"]]


def _masked(changes: dict[str, Any]) -> dict[str, Any]:
    """The references' output changes with their secrets masked, as ctl masks them everywhere."""
    out = {}
    for name, change in changes.items():
        change = dict(change)
        for side in ("before", "after"):
            if change[f"{side}_sensitive"] and change[side] is not None:
                change[side] = "(sensitive value)"
        out[name] = change
    return out


@pytest.mark.parametrize("against", ["fresh", "updated"])
def test_output_changes_are_the_references(runs: dict[str, dict[str, Any]], against: str) -> None:
    ours = runs["ctl"][against]["output_changes"]
    assert ours == _masked(runs["opentofu"][against]["output_changes"])
    assert ours == _masked(runs["terraform"][against]["output_changes"])
    expected = {"fresh": ["no-op"], "updated": ["update"]}[against]
    assert all(ours[name]["actions"] == expected for name in NULL_OUTPUTS)


def test_null_outputs_are_not_recorded_in_state(runs: dict[str, dict[str, Any]]) -> None:
    ours = runs["ctl"]["state"]["outputs"]
    assert ours == runs["opentofu"]["state"]["outputs"]
    assert sorted(ours) == sorted(runs["terraform"]["state"]["outputs"]) == ["object_with_typed_null", "plain",
                                                                            "tuple_with_typed_nulls"]
    # Terraform 1.0.3 has no typed nulls: what it records for them is ``dynamic``.
    assert {n: o["value"] for n, o in ours.items()} == {n: o["value"] for n, o in runs["terraform"]["state"]["outputs"].items()}


def test_output_json_leaves_null_outputs_out(runs: dict[str, dict[str, Any]]) -> None:
    ours = runs["ctl"]["outputs"]
    assert sorted(ours) == sorted(runs["terraform"]["outputs"])
    assert runs["ctl"]["outputs_text"] == runs["opentofu"]["outputs_text"]  # byte for byte: Go's escapes


@pytest.mark.parametrize("name", [*NULL_OUTPUTS, "plain", "object_with_typed_null"])
@pytest.mark.parametrize("flags", [(), ("-json",), ("-raw",)], ids=["text", "json", "raw"])
def test_output_of_one_name_as_the_references(runs: dict[str, dict[str, Any]], name: str,
                                              flags: tuple[str, ...]) -> None:
    answers = {tool: runs[tool]["tool"].run("output", "-no-color", *flags, name) for tool in TOOLS}
    code, out, err = answers["ctl"]
    assert code == answers["opentofu"][0] == answers["terraform"][0], answers
    if name in NULL_OUTPUTS:
        assert code == 1 and f'Output "{name}" not found' in err
        assert f'Output "{name}" not found' in answers["opentofu"][2]
    elif flags == ("-json",):  # one line, Go's escapes: byte for byte
        assert out == answers["opentofu"][1] == answers["terraform"][1]


def test_listing_leaves_null_outputs_out(runs: dict[str, dict[str, Any]]) -> None:
    listed = runs["ctl"]["tool"].ok("output")
    assert [line.split(" ")[0] for line in listed.splitlines() if line and not line.startswith(" ")
            and line[0] not in "}]"] == ["object_with_typed_null", "plain", "tuple_with_typed_nulls"]


@pytest.mark.parametrize("writer", ["opentofu", "terraform"])
def test_a_references_state_plans_no_change_in_ctl(runs: dict[str, dict[str, Any]], writer: str,
                                                   tmp_path: Path) -> None:
    ours = Tool("ctl", tmp_path / "ctl", Path())
    ours.configure(CONFIG)
    shutil.copyfile(runs[writer]["tool"].state_file, ours.state_file)
    assert ours.plan_exit_code() == 0


@pytest.mark.parametrize("reader", ["opentofu", "terraform"])
def test_ctls_state_plans_no_change_in_a_reference(runs: dict[str, dict[str, Any]], reader: str, tmp_path: Path,
                                                   tofu: Path) -> None:
    theirs = Tool(reader, tmp_path / reader, tofu)
    config = CONFIG
    if reader == "terraform":  # 1.0.3 has no typed nulls: its object and tuple here have other types
        config = config.replace("a = tostring(null)", "a = null").replace("[tolist(null), tonumber(null), var.maybe]",
                                                                          "[null, null, null]")
        ours = Tool("ctl", tmp_path / "ctl", tofu)
        ours.configure(config)
        ours.apply()
        state = ours.state_file
    else:
        state = runs["ctl"]["tool"].state_file
    theirs.configure(config)
    shutil.copyfile(state, theirs.state_file)
    assert theirs.plan_exit_code() == 0
