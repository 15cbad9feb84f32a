"""The "Changes to Outputs" of a text plan, as OpenTofu 1.12.6 and Terraform 1.0.3 print them.

An output's value has no schema, so a null inside it is a value like any other: a created
``{ a = null, b = 1 }`` is ``+ a = null`` and ``+ b = 1``, a null list element is ``+ null,``. ctl
left the nulls out (``+ obj = { + "b" = 1 }``, an all-null object as an empty one), as it rightly
leaves out a resource's unset attributes. Keys are bare where they are identifiers (quoted
otherwise), an object's unchanged entries are "unchanged attributes", and a changed list shows one
unchanged element on each side of a change as context, the elements paired along Terraform's longest
common subsequence. Terraform 1.0.3 agrees but for a map's keys, which it quotes, and the width of a
quoted key.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CREATED = """\
output "obj" { value = { a = null, b = 1 } }
output "all_null" { value = { a = null } }
output "list" { value = [null] }
output "nested" { value = { x = { y = null }, l = [null, 1] } }
"""

# Terraform 1.0.3 quotes a map's keys, and aligns a quoted key by its text without the quotes.
NEWER = 'output "map" { value = tomap({ k = null }) }\noutput "o" { value = { a = 1, "not an identifier" = null } }\n'

BEFORE = """\
output "removed" { value = { a = null, b = 2 } }
output "list" { value = [1, null, 7, 8, 9] }
"""

AFTER = """\
output "list" { value = [null, null, 7, 8, 9, 10] }
"""

# Terraform 1.0.3 counts an object's unchanged entries as elements.
OBJECT_BEFORE = 'output "changed" { value = { a = 1, b = 1, "x y" = null } }\n'
OBJECT_AFTER = 'output "changed" { value = { a = null, b = 1, "x y" = 2 } }\n'

NO_PLUGINS = Path("/nonexistent")  # outputs need no provider


def _output_changes(text: str) -> list[str]:
    """The lines of the "Changes to Outputs" section, up to the sentence after it."""
    lines = text.splitlines()
    start = lines.index("Changes to Outputs:")
    end = next(n for n in range(start, len(lines)) if lines[n].startswith("You can apply"))
    return [line.rstrip() for line in lines[start:end] if line.strip()]


def _planned(tool: str, workdir: Path, tofu: Path, configs: list[str]) -> list[str]:
    """Apply each configuration but the last, then plan the last: its output changes."""
    workdir.mkdir(parents=True)
    if tool == "ctl":
        project = Project(workdir)
        for n, config in enumerate(configs):
            (workdir / "main.tf").write_text(config)
            if n < len(configs) - 1:
                project.ok("apply", "-auto-approve", "-input=false", "-no-color")
        planned = project.ctl("plan", "-input=false", "-no-color")
        assert planned.code == 0, str(planned)
        return _output_changes(planned.stdout)
    reference = OpenTofuDir(workdir, NO_PLUGINS, tofu) if tool == "opentofu" else TerraformDir(workdir, NO_PLUGINS)
    (workdir / "tofurc").write_text("")
    reference.env["TF_CLI_CONFIG_FILE"] = str(workdir / "tofurc")  # OpenTofu warns when there is none
    for n, config in enumerate(configs):
        reference.write(config)
        if n == 0:
            reference.run("init", "-input=false", "-no-color")
        if n < len(configs) - 1:
            reference.apply()
    return _output_changes(reference.run("plan", "-input=false", "-no-color").stdout)


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu-bin"))


@pytest.mark.parametrize(("case", "configs", "terraform_agrees"), [
    ("created", [CREATED], True),
    ("created_newer", [NEWER], False),
    ("changed_and_removed", [BEFORE, AFTER], True),
    ("object_changed", [OBJECT_BEFORE, OBJECT_AFTER], False),
])
def test_output_changes_are_printed_as_the_references_print_them(
        tmp_path: Path, tofu: Path, case: str, configs: list[str], terraform_agrees: bool) -> None:
    found = {tool: _planned(tool, tmp_path / tool, tofu, configs) for tool in ("ctl", "opentofu", "terraform")}
    assert found["ctl"] == found["opentofu"]
    if terraform_agrees:
        assert found["ctl"] == found["terraform"]
    else:
        assert found["ctl"] != found["terraform"], "Terraform 1.0.3 agrees: compare with it"


def test_a_created_objects_null_attribute_written_out(tmp_path: Path, tofu: Path) -> None:
    shown = _planned("ctl", tmp_path / "ctl", tofu, ['output "obj" { value = { a = null, b = 1 } }\n'])
    assert shown == ["Changes to Outputs:", "  + obj = {", "      + a = null", "      + b = 1", "    }"]
