"""``import`` blocks: objects adopted through the plan, shown, applied, and their configuration generated."""

from __future__ import annotations

import json
from pathlib import Path

import hcl2
import pytest

from tests.e2e.helpers import Project

IMPORTED = """
variable "word" {
  default = "abcdefgh"
}

import {
  to = random_string.s
  id = var.word
}

resource "random_string" "s" {
  length = 8
}

import {
  to = terraform_data.d
  id = "d-1"
}

resource "terraform_data" "d" {
  input = "x"
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_import_blocks_are_planned_applied_and_then_no_ops(project: Project) -> None:
    project.write(IMPORTED)
    plan = project.ctl("plan", "--detailed-exitcode", "--out", "p.bin")
    assert plan.code == 2, plan
    assert "# random_string.s will be imported" in plan.stdout
    assert "# terraform_data.d will be updated in-place\n  # (imported from \"d-1\")" in plan.stdout
    assert "Plan: 2 to import, 0 to add, 1 to change, 0 to destroy." in plan.stdout
    shown = json.loads(project.ok("show", "--json", "p.bin").stdout)
    importing = {c["address"]: c["change"].get("importing") for c in shown["resource_changes"]}
    assert importing == {"random_string.s": {"id": "abcdefgh"}, "terraform_data.d": {"id": "d-1"}}

    applied = project.ok("apply", "p.bin")
    assert "Resources: 2 imported, 0 added, 1 changed, 0 destroyed." in applied.stdout
    instances = project.instances()
    assert instances["random_string.s"]["attributes"]["result"] == "abcdefgh"
    assert instances["terraform_data.d"]["attributes"]["input"]["value"] == "x"
    assert project.ctl("plan", "--detailed-exitcode").code == 0  # the blocks stay: nothing more to do


def test_a_target_without_configuration_is_an_error_naming_the_generator(project: Project) -> None:
    project.write('import {\n  to = terraform_data.d\n  id = "d-1"\n}\n')
    res = project.ctl("plan")
    assert res.code == 1, res
    assert "main.tf:1:1" in res.stderr and "Configuration for import target does not exist" in res.stderr
    assert "--generate-config-out" in res.stderr
    assert not project.state_file.exists()


@pytest.mark.parametrize(("block", "message"), [
    ('import {\n  to = random_string.s\n  id = ""\n}\nresource "random_string" "s" {\n  length = 3\n}\n',
     "must be a known, non-empty string"),
    ('import {\n  to = data.terraform_remote_state.x\n  id = "a"\n}\n', "Only managed resources can be imported"),
    ('import {\n  to = terraform_data.d\n}\n', 'needs "to"'),
])
def test_bad_import_blocks_are_clear_errors(project: Project, block: str, message: str) -> None:
    project.write(block)
    res = project.ctl("plan")
    assert res.code == 1, res
    assert message in res.stderr and "Traceback" not in res.stderr


def test_import_blocks_in_child_modules_are_refused(project: Project) -> None:
    project.write('module "m" {\n  source = "./m"\n}\n')
    (project.root / "m").mkdir()
    (project.root / "m" / "main.tf").write_text(
        'import {\n  to = terraform_data.d\n  id = "x"\n}\nresource "terraform_data" "d" {}\n')
    res = project.ctl("plan")
    assert res.code == 1, res
    assert "Import blocks are only allowed in the root module" in res.stderr
    assert "m/main.tf:1:1" in res.stderr


def test_generate_config_out_writes_formatted_blocks_that_plan_as_imports(project: Project) -> None:
    project.write('import {\n  to = random_string.s\n  id = "ab${"$"}{x}cd"\n}\n'
                  'import {\n  to = terraform_data.d\n  id = "d-1"\n}\n')
    res = project.ctl("plan", "--generate-config-out=generated.tf", "--detailed-exitcode")
    assert res.code == 2, res
    assert "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy." in res.stdout
    text = project.path("generated.tf").read_text()
    assert text.startswith("# __generated__ by ctl")
    parsed = hcl2.loads(text)
    blocks = {next(iter(r)): r for r in parsed["resource"]}
    assert blocks["random_string"]["random_string"]["s"]["length"] == 8  # the imported value: 8 characters
    assert "terraform_data" in blocks
    assert "  length           = 8\n" in text  # aligned as ctl fmt aligns
    assert project.ctl("fmt", "--check", "generated.tf").code == 0

    project.ok("apply", "-auto-approve")
    assert project.instances()["random_string.s"]["attributes"]["result"] == "ab${x}cd"
    again = project.ctl("plan", "--generate-config-out=generated.tf", "--detailed-exitcode")
    assert again.code == 0, again  # every target has configuration now: nothing generated, no changes

    project.path("more.tf").write_text('import {\n  to = terraform_data.e\n  id = "e-1"\n}\n')
    clash = project.ctl("plan", "--generate-config-out=generated.tf")
    assert clash.code == 1 and "already exists" in clash.stderr, clash
