"""``import`` blocks with ``for_each``: one object adopted per element, as OpenTofu 1.12.6 adopts them.

A map imports under its keys, a set under its values, a list under its indexes; ``to`` reads
``each.key`` and ``id`` reads ``each.value``. The same configuration, with HashiCorp's random
provider, is planned by OpenTofu and by ctl: the objects to import and the plan's summary must be
the same. ctl then applies it, records every object at its address
and plans no change on the next run, the import blocks left in place.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, opentofu_executable

CONFIG = """\
terraform {
  required_providers {
    random = { source = "registry.terraform.io/hashicorp/random" }
  }
}

variable "by_name" {
  default = { a = "AAEC", b = "AwQF" }
}

import {
  for_each = var.by_name
  to       = random_id.named[each.key]
  id       = each.value
}

resource "random_id" "named" {
  for_each    = var.by_name
  byte_length = 3
}

import {
  for_each = toset(["BgcI"])
  to       = random_id.keyed[each.key]
  id       = each.value
}

resource "random_id" "keyed" {
  for_each    = toset(["BgcI"])
  byte_length = 3
}

import {
  for_each = ["CQoL", "DA0O"]
  to       = random_id.counted[each.key]
  id       = each.value
}

resource "random_id" "counted" {
  count       = 2
  byte_length = 3
}
"""

# OpenTofu also writes '# (imported from "ID")' under an object imported without change; Terraform
# (1.5 to 1.11) does not, and neither does ctl. The IDs are checked in the state instead.
_SHOWN = re.compile(r"^  # (\S+) will be imported$|^Plan: .*$", re.MULTILINE)


def _imports(plan_text: str) -> list[str]:
    """The lines of a plan that say what is imported, and the summary."""
    return [m.group(0).strip() for m in _SHOWN.finditer(plan_text)]


def test_a_for_each_import_adopts_one_object_per_element_as_opentofu(tmp_path: Path, real_providers: Path) -> None:
    theirs_dir, ours_dir = tmp_path / "opentofu", tmp_path / "ctl"
    for work in (theirs_dir, ours_dir):
        work.mkdir()
        (work / "main.tf").write_text(CONFIG)
    opentofu = OpenTofuDir(theirs_dir, real_providers, opentofu_executable(tmp_path / "bin"))
    opentofu.init()
    theirs = _imports(opentofu.plan(expect=2).stdout)
    assert "Plan: 5 to import, 0 to add, 0 to change, 0 to destroy." in theirs, theirs

    project = Project(ours_dir)
    project.ok("init", "-plugin-dir", str(real_providers))
    planned = project.ctl("plan", "-no-color")
    assert planned.code == 0, str(planned)
    assert sorted(_imports(planned.stdout)) == sorted(theirs)

    project.ok("apply", "--auto-approve")
    assert set(project.instances()) == {'random_id.named["a"]', 'random_id.named["b"]', 'random_id.keyed["BgcI"]',
                                        "random_id.counted[0]", "random_id.counted[1]"}
    read = {address: inst["attributes"]["id"] for address, inst in project.instances().items()}
    assert read == {'random_id.named["a"]': "AAEC", 'random_id.named["b"]': "AwQF", 'random_id.keyed["BgcI"]': "BgcI",
                    "random_id.counted[0]": "CQoL", "random_id.counted[1]": "DA0O"}  # each from its own ID
    again = project.ctl("plan", "-no-color", "-detailed-exitcode")
    assert again.code == 0 and "No changes" in again.stdout, str(again)


def test_an_import_for_each_not_known_while_planning_is_refused(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""\
resource "terraform_data" "ids" {
  input = ["x"]
}

import {
  for_each = terraform_data.ids.output
  to       = terraform_data.d[each.key]
  id       = each.value
}

resource "terraform_data" "d" {
  count = 1
}
""")
    refused = project.ctl("plan")
    assert refused.code == 1, str(refused)
    assert "main.tf:6:14: Invalid for_each argument" in refused.stderr, str(refused)
    assert "Traceback" not in refused.stderr
