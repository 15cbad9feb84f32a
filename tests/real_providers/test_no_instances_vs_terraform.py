"""A resource with no instances (``count = 0``, an empty ``for_each``) is still checked against its
schema, as Terraform checks every block; and only as far as Terraform can check it: what depends on
values (a variable, ``count.index``) is not refused when no instance will ever evaluate it.

Each case runs ``plan`` under Terraform 1.0.3 and under ctl with the real random provider; the two must
agree on success or failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

HEADER = 'terraform {\n  required_providers {\n    random = { source = "hashicorp/random" }\n  }\n}\n'

CASES = {
    "misspelt argument, count = 0": (False, '''
resource "random_string" "off" {
  count  = 0
  lenght = 8
}
'''),
    "constant of the wrong type, empty for_each": (False, '''
resource "random_string" "off" {
  for_each = toset([])
  length   = "eight"
}
'''),
    "missing required argument, count = 0": (False, '''
resource "random_string" "off" {
  count = 0
}
'''),
    "index into an empty variable, count = 0": (True, '''
variable "names" {
  type    = list(string)
  default = []
}

resource "random_string" "first" {
  count   = length(var.names) > 0 ? 1 : 0
  length  = 8
  keepers = { name = var.names[0] }
}
'''),
    "count.index and each in arguments, no instances": (True, '''
resource "random_string" "indexed" {
  count  = 0
  length = count.index + 4
}

resource "random_string" "each" {
  for_each = {}
  length   = each.value
}
'''),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_agrees_with_terraform(case: str, tmp_path: Path, real_providers: Path) -> None:
    ok, body = CASES[case]
    dirs = {}
    for tool in ("terraform", "ctl"):
        work = tmp_path / tool
        work.mkdir()
        (work / "main.tf").write_text(HEADER + body)
        dirs[tool] = work
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.init()
    theirs = terraform.run("plan", "-input=false", "-no-color", expect=None)
    assert (theirs.returncode == 0) is ok, theirs.output
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    ours = project.ctl("plan")
    assert (ours.code == 0) is ok, ours
    assert "Traceback" not in ours.stderr
    if not ok:
        assert "main.tf:" in ours.stderr, ours  # at the argument, with its position
