"""``lifecycle.ignore_changes`` on an argument the provider computes when it is unset (Optional and
Computed in its schema, as tags and many settings are) keeps the prior value, as under Terraform 1.0.3:
changing it in the configuration plans nothing."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = '''
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

resource "random_string" "s" {
  length  = 8
  special = SPECIAL
  lifecycle {
    ignore_changes = [special]
  }
}
'''


def test_an_ignored_optional_computed_argument_plans_no_change(tmp_path: Path, real_providers: Path) -> None:
    dirs = {tool: tmp_path / tool for tool in ("terraform", "ctl")}
    for work in dirs.values():
        work.mkdir()
        (work / "main.tf").write_text(CONFIG.replace("SPECIAL", "true"))
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.init()
    terraform.apply()
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    project.apply()
    for work in dirs.values():
        (work / "main.tf").write_text(CONFIG.replace("SPECIAL", "false"))
    # Terraform 1.0.3 with random 3.9 plans ``keepers = {}`` for a null map on every plan; what matters
    # here is that it neither replaces the object nor touches ``special``.
    theirs = terraform.plan(expect=None)
    assert theirs.returncode in (0, 2), theirs.output
    assert "special" not in theirs.stdout and "replace" not in theirs.stdout, theirs.output
    result = project.ctl("plan", "--detailed-exitcode")
    assert result.code == 0, result
    assert project.ctl("apply", "--auto-approve").code == 0
    special = next(r for r in project.state()["resources"] if r["name"] == "s")["instances"][0]["attributes"]
    assert special["special"] is True  # the value the object was made with is kept
