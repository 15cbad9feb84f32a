"""A type the selected provider does not have: accepted by ``init``, refused by the first command that
reads the provider's schema, in the same words and at the same place as Terraform 1.0.3.

Terraform's ``init`` never starts a provider, so it cannot know the provider's types; ``validate`` and
``plan`` ask for the schema and report "Invalid resource type" at the type label. ctl's init starts no
provider either (that was most of a fresh init with a big provider), so the two must agree on every
step: init succeeds, validate and plan fail with exit status 1 and the same diagnostics.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.plugins.schema_cache import SCHEMA_DIR
from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = """\
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    local  = { source = "hashicorp/local" }
  }
}

resource "random_string" "ok" {
  length = 4
}

resource "random_idd" "typo" {
  byte_length = 4
}

data "random_gone" "d" {
}

data "random_string" "wrong_mode" {}
data "local_fil" "typo" {}
resource "local_sensitive_fil" "typo" {}
resource "local_nothing_like_it" "x" {}
"""


def _diagnostics(document: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    """What a user reads of each diagnostic of ``validate -json``: summary, detail, start and end."""
    out = set()
    for d in document["diagnostics"]:
        r = d["range"]
        out.add((d["summary"], d["detail"], f"{r['filename']}:{r['start']['line']}:{r['start']['column']}",
                 f"{r['end']['line']}:{r['end']['column']}"))
    return out


def test_init_accepts_and_validate_and_plan_refuse_as_terraform(tmp_path: Path, real_providers: Path) -> None:
    dirs = {tool: tmp_path / tool for tool in ("terraform", "ctl")}
    for work in dirs.values():
        work.mkdir()
        (work / "main.tf").write_text(CONFIG)
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.init()  # exit 0 expected
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    assert not (dirs["ctl"] / SCHEMA_DIR).exists()  # init started no provider to read its schema

    theirs = terraform.run("validate", "-json", "-no-color", expect=1)
    ours = project.ctl("validate", "--json")
    assert ours.code == 1, str(ours)
    expected = _diagnostics(json.loads(theirs.stdout))
    assert len(expected) == 6 and {  # what Terraform says, so the comparison below means something
        ("Invalid resource type", 'The provider hashicorp/random does not support resource type "random_idd". '
         'Did you mean "random_id"?', "main.tf:12:10", "12:22"),
        ("Invalid data source", 'The provider hashicorp/random does not support data source "random_gone".',
         "main.tf:16:6", "16:19"),
    } <= expected
    assert _diagnostics(json.loads(ours.stdout)) == expected

    theirs = terraform.run("plan", "-input=false", "-no-color", expect=1)
    assert "on main.tf line 12" in theirs.output and "on main.tf line 16" in theirs.output
    ours = project.ctl("plan")
    assert ours.code == 1, str(ours)
    assert "main.tf:12:10: Invalid resource type" in ours.output
    assert "main.tf:16:6: Invalid data source" in ours.output
    assert "Traceback" not in ours.output
