"""``ctl plan --generate-config-out`` writes only a new .tf file of the configuration directory.

Named after the state file it used to write the generated HCL over the state; named outside the
directory it wrote there and then failed, the plan not reading the file. Each is now refused before
anything is written, and the state is left as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project

IMPORT = 'import {\n  to = terraform_data.d\n  id = "d-1"\n}\n'


@pytest.fixture
def project(tmp_path: Path) -> Project:
    work = tmp_path / "work"
    work.mkdir()
    return Project(work)


@pytest.mark.parametrize("name", ["ctl.tfstate", "ctl.tfstate.backup", "terraform.tfstate", ".ctl/x.tf"])
def test_ctls_own_files_are_refused(project: Project, name: str) -> None:
    project.write(IMPORT)
    res = project.ctl("plan", f"--generate-config-out={name}")
    assert res.code == 1, res
    assert "ctl's own files" in res.stderr or "outside the configuration directory" in res.stderr, res
    assert not project.path(name).exists()
    assert "Traceback" not in res.stderr


def test_existing_state_is_not_overwritten(project: Project) -> None:
    project.write('resource "terraform_data" "keep" {}\n')
    project.apply()
    before = project.state_file.read_bytes()
    project.write('resource "terraform_data" "keep" {}\n' + IMPORT)
    res = project.ctl("plan", "--generate-config-out=ctl.tfstate")
    assert res.code == 1, res
    assert project.state_file.read_bytes() == before


def test_a_path_outside_the_directory_is_refused_before_writing(project: Project) -> None:
    project.write(IMPORT)
    res = project.ctl("plan", "--generate-config-out=../x.tf")
    assert res.code == 1, res
    assert "outside the configuration directory" in res.stderr, res
    assert not (project.root.parent / "x.tf").exists()


def test_a_dangling_symlink_is_not_followed(project: Project) -> None:
    project.write(IMPORT)
    (project.root / "gen.tf").symlink_to(project.root.parent / "elsewhere.tf")
    res = project.ctl("plan", "--generate-config-out=gen.tf")
    assert res.code == 1, res
    assert not (project.root.parent / "elsewhere.tf").exists()


def test_a_new_tf_file_in_the_directory_is_planned_with(project: Project) -> None:
    project.write(IMPORT)
    res = project.ctl("plan", "--generate-config-out=generated.tf", "--detailed-exitcode")
    assert res.code == 2, res
    assert "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy." in res.stdout
