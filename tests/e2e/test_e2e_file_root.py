"""File functions read what Terraform reads; ``CTL_FILE_ROOT=DIR`` is the opt-in sandbox.

Public modules read ``file("${path.module}/../../bootstrap/addons.yaml")`` and templates of the
repository they live in, and Terraform reads any path the process can read: by default ctl does too.
A configuration that is not trusted runs with ``CTL_FILE_ROOT`` naming the only directory it may read.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.helpers import Project


def _repository(tmp_path: Path) -> Project:
    """An example (repo/examples/app) calling a module (repo/modules/x) that reads repo/templates."""
    repo = tmp_path / "repo"
    (repo / "templates").mkdir(parents=True)
    (repo / "templates" / "user_data.tpl").write_text("boot ${role}")
    (repo / "modules" / "x").mkdir(parents=True)
    (repo / "modules" / "x" / "main.tf").write_text(
        'output "text" {\n  value = templatefile("${path.module}/../../templates/user_data.tpl", { role = "web" })\n}\n')
    (tmp_path / "outside.txt").write_text("not the repository's")
    project = Project(repo / "examples" / "app")
    project.root.mkdir(parents=True)
    return project


CALL = 'module "x" {\n  source = "../../modules/x"\n}\noutput "text" {\n  value = module.x.text\n}\n'
OUTSIDE = 'output "outside" {\n  value = file("./../../../outside.txt")\n}\n'


def test_by_default_any_readable_path_is_read_as_terraform_reads_it(tmp_path: Path) -> None:
    project = _repository(tmp_path)
    project.write(CALL + OUTSIDE + f'output "absolute" {{\n  value = file("{tmp_path}/outside.txt")\n}}\n'
                  'output "exists" {\n  value = fileexists("${path.module}/../../../outside.txt")\n}\n'
                  'output "listed" {\n  value = fileset("${path.module}/../../..", "*.txt")\n}\n')
    project.apply()
    outputs = project.state()["outputs"]
    assert outputs["text"]["value"] == "boot web"
    assert outputs["outside"]["value"] == outputs["absolute"]["value"] == "not the repository's"
    assert outputs["exists"]["value"] is True
    assert outputs["listed"]["value"] == ["outside.txt"]


def test_ctl_file_root_reads_inside_it_and_refuses_the_rest_at_the_call(tmp_path: Path) -> None:
    project = _repository(tmp_path)
    sandbox = {"CTL_FILE_ROOT": str(tmp_path / "repo")}
    project.write(CALL)
    project.ok("apply", "-auto-approve", env=sandbox)
    assert project.state()["outputs"]["text"]["value"] == "boot web"
    project.write(CALL + OUTSIDE)
    res = project.ctl("plan", env=sandbox)
    assert res.code == 1, res
    assert "Error: main.tf:8:" in res.stderr and "outside the configuration directory" in res.stderr, res
    assert f"CTL_FILE_ROOT is {tmp_path / 'repo'}" in res.stderr and "Traceback" not in res.stderr, res


def test_ctl_file_root_relative_to_the_working_directory_and_symlinks_resolved(tmp_path: Path) -> None:
    project = _repository(tmp_path)
    os.symlink(tmp_path / "outside.txt", project.path("planted.txt"))
    project.write('output "planted" {\n  value = file("planted.txt")\n}\n')
    assert project.ctl("plan").code in (0, 2)  # no sandbox: the link is followed, as by Terraform
    res = project.ctl("plan", env={"CTL_FILE_ROOT": "."})
    assert res.code == 1 and 'path "planted.txt" is outside the configuration directory' in res.stderr, res
