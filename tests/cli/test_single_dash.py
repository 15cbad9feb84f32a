"""Terraform's one-dash spelling of long options works through the real executable."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project

CONFIG = 'variable "x" {}\nresource "terraform_data" "a" {\n  input = var.x\n}\n'


def test_a_terraform_style_command_line_plans_and_applies(tmp_path: Path) -> None:
    project = Project(tmp_path / "live")
    project.root.mkdir()
    project.write(CONFIG)
    planned = Project(tmp_path).ctl("-chdir=live", "plan", "-var", "x=1", "-out=tfplan", "-lock=false",
                                    "-refresh=false", "-input=false", "-no-color", "-detailed-exitcode")
    assert planned.code == 2, planned
    assert project.path("tfplan").exists()
    applied = project.ctl("apply", "-auto-approve", "-no-color", "tfplan")
    assert applied.code == 0, applied
    assert project.ctl("output", "-json").code == 0
    assert project.ctl("plan", "-var=x=1", "-detailed-exitcode").code == 0


def test_a_misspelt_one_dash_option_is_named_whole(tmp_path: Path) -> None:
    result = Project(tmp_path).ctl("plan", "-outt=tfplan")
    assert result.code == 64, result
    assert "No such option '--outt'" in result.stderr and "'--out'" in result.stderr


def test_values_after_a_double_dash_and_short_options_are_left_alone(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('variable "x" {}\noutput "x" {\n  value = var.x\n}\n')
    result = project.ctl("apply", "-auto-approve", "--var", "x=-abc")
    assert result.code == 0, result
    assert project.state()["outputs"]["x"]["value"] == "-abc"
    assert project.ctl("plan", "-h").code == 0
