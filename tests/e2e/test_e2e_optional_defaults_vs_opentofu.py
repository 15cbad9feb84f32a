"""Optional object attributes whose default leaves an inner attribute unset, as public modules write
them (Azure's caf-enterprise-scale connectivity settings): ctl validates, plans and outputs them as
OpenTofu 1.12.6 does.

The default ``{}`` of ``optional(object({name = optional(string), …}), {})`` holds a null of type
string for ``name``; the type's description, which ctl builds while checking the variable, must write
it as ``null``. OpenTofu (unpacked from ``../shared/peers``) is the reference: Terraform 1.0.3
predates optional attributes with defaults. Under CI=true a missing reference is a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, opentofu_executable

CONFIG = """\
variable "settings" {
  type = object({
    hub = optional(object({
      name  = optional(string)
      sizes = optional(list(number), [1, -0, 2.5])
      tags  = optional(map(string), { team = "a" })
    }), {})
  })
  default = {}
}

output "name" {
  value = var.settings.hub.name == null ? "none" : var.settings.hub.name
}

output "hub" {
  value = var.settings.hub
}
"""


def test_optional_defaults_with_an_unset_attribute_as_opentofu(tmp_path: Path) -> None:
    tofu = opentofu_executable(tmp_path / "opentofu-bin")
    ours_dir, theirs_dir = tmp_path / "ctl", tmp_path / "opentofu"
    ours_dir.mkdir()
    theirs_dir.mkdir()

    ours = Project(ours_dir)
    ours.write(CONFIG)
    checked = ours.ctl("validate")
    assert checked.code == 0, str(checked)
    assert "Traceback" not in checked.stderr and "internal error" not in checked.stderr
    ours.apply()
    our_outputs = json.loads(ours.ok("output", "-json").stdout)

    (theirs_dir / "main.tf").write_text(CONFIG)
    theirs = OpenTofuDir(theirs_dir, theirs_dir / "no-plugins", tofu)
    theirs.env.pop("TF_CLI_CONFIG_FILE", None)
    theirs.run("init", "-input=false", "-no-color")
    theirs.apply()
    their_outputs = json.loads(theirs.run("output", "-json").stdout)

    assert our_outputs["name"]["value"] == their_outputs["name"]["value"] == "none"
    assert our_outputs["hub"]["value"] == their_outputs["hub"]["value"]
    assert our_outputs["hub"]["type"] == their_outputs["hub"]["type"]


@pytest.mark.parametrize("bad", ['{ hub = { sizes = "x" } }', '{ hub = { tags = 3 } }'])
def test_a_value_that_does_not_fit_names_the_type_without_failing(tmp_path: Path, bad: str) -> None:
    ours = Project(tmp_path)
    ours.write(CONFIG.replace("default = {}", f"default = {bad}"))
    refused = ours.ctl("validate")
    assert refused.code == 1, str(refused)
    assert "Traceback" not in refused.stderr and "internal error" not in refused.stderr
    assert "main.tf:" in refused.stderr
