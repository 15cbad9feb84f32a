"""A secret inside a resource argument is masked where it is, and only there, in the human plan, as
Terraform 1.0.3 and OpenTofu 1.12.6 mask it: through ``for`` expressions, functions that move
elements (``zipmap``, ``tomap``, ``flatten``, ``chunklist``, ``tolist``, ``reverse``), conditionals
and indexes, and not after ``nonsensitive``.

The three tools plan the same configuration with HashiCorp's real ``random`` provider; the lines of
the resources' changes must be the same (Terraform 1.0.3 writes a nested mask ``(sensitive)``, the
newer ``(sensitive value)``, as ctl does). The plan JSON's ``after_sensitive`` is compared with
OpenTofu's too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CONFIG = '''
terraform {
  required_providers {
    random = { source = "registry.terraform.io/hashicorp/random" }
  }
}
variable "secret" {
  default   = "s3cret"
  sensitive = true
}
locals {
  mixed = [var.secret, "x"]
}
resource "random_string" "for_expression" {
  length  = 4
  keepers = { for k, v in { a = var.secret, b = "x" } : k => upper(v) }
}
resource "random_string" "zipmap" {
  length  = 4
  keepers = zipmap(["a", "b"], local.mixed)
}
resource "random_string" "moved" {
  length = 4
  keepers = tomap({
    a = flatten([[var.secret]])[0]
    b = chunklist(local.mixed, 1)[1][0]
    c = nonsensitive(var.secret)
    d = (true ? local.mixed : [])[1]
  })
}
resource "random_string" "indexed" {
  length  = 4
  keepers = { a = tolist(local.mixed)[1], b = [for s in local.mixed : s][0], c = reverse(local.mixed)[1] }
}
'''


def _changes(plan_text: str) -> list[str]:
    """The resources' change lines, without the tool's name and with one spelling of a nested mask."""
    lines = plan_text.split(" will perform the following actions:", 1)[1].split("\nPlan:", 1)[0]
    return [re.sub(r"= \(sensitive\)$", "= (sensitive value)", line.rstrip()) for line in lines.splitlines()]


def test_a_secret_is_masked_where_it_is_as_both_references_mask_it(tmp_path: Path, real_providers: Path) -> None:
    dirs = {tool: tmp_path / tool for tool in ("terraform", "opentofu", "ctl")}
    for d in dirs.values():
        d.mkdir()
        (d / "main.tf").write_text(CONFIG)
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.init()
    opentofu = OpenTofuDir(dirs["opentofu"], real_providers, opentofu_executable(tmp_path / "bin"))
    opentofu.init()
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))

    ours = project.ctl("plan", "-no-color", "--out", "ctl.plan")
    assert ours.code == 0, str(ours)
    expected = _changes(terraform.plan(expect=2).stdout)
    assert _changes(ours.stdout) == expected
    assert _changes(opentofu.plan("-out=tofu.plan", expect=2).stdout) == expected
    assert expected.count('          + "a" = (sensitive value)') == 3  # the masks are there to compare

    theirs = json.loads(opentofu.run("show", "-json", "tofu.plan").stdout)
    shown = json.loads(project.ok("show", "-json", "ctl.plan").stdout)
    assert _masks(shown) == _masks(theirs)


def _masks(plan_json: dict[str, Any]) -> dict[str, Any]:
    """Where each resource's planned values are sensitive (``after_sensitive``), by address."""
    return {c["address"]: c["change"]["after_sensitive"] for c in plan_json["resource_changes"]}
