"""``terraform_data`` holding a secret: ctl and OpenTofu 1.12.6 write the same sensitive paths, and each
tool's state read by the other plans no change.

With ``input = { password = var.secret, user = "x" }`` OpenTofu records ``input.password`` as sensitive
and nothing under ``output`` (its plan leaves ``output`` unknown until apply, and no mark follows the
value it gets); a state that marks ``output`` makes it plan a sensitivity-only update. ctl writes the
same paths, and still masks the copied secret in its own output: ``output.user`` may be shown,
``output`` as a whole needs ``sensitive = true``. OpenTofu (unpacked from ``../shared/peers``) is the
reference: Terraform 1.0.3 predates ``terraform_data``. Under CI=true a missing reference is a
failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, opentofu_executable

CONFIG = """\
variable "secret" {
  type      = string
  sensitive = true
  default   = "hunter2"
}

resource "terraform_data" "d" {
  input = { password = var.secret, user = "x" }
}

output "user" {
  value = terraform_data.d.output.user
}
"""

WHOLE = """
output "whole" {
  value = terraform_data.d.output
}
"""

WHOLE_SENSITIVE = """
output "whole" {
  value     = terraform_data.d.output
  sensitive = true
}
"""

INPUT_PASSWORD = [[{"type": "get_attr", "value": "input"}, {"type": "get_attr", "value": "password"}]]


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu"))


def _tofu(workdir: Path, tofu: Path) -> OpenTofuDir:
    workdir.mkdir()
    (workdir / "main.tf").write_text(CONFIG)
    tool = OpenTofuDir(workdir, workdir / "no-plugins", tofu)
    tool.env.pop("TF_CLI_CONFIG_FILE", None)
    tool.run("init", "-input=false", "-no-color")
    return tool


def _ctl(workdir: Path) -> Project:
    workdir.mkdir()
    project = Project(workdir)
    project.write(CONFIG)
    return project


def _only(state: dict[str, Any]) -> dict[str, Any]:
    [resource] = state["resources"]
    [instance] = resource["instances"]
    return dict(instance)


def test_each_tools_state_read_by_the_other_plans_no_change(tmp_path: Path, tofu: Path) -> None:
    ours = _ctl(tmp_path / "ctl")
    ours.apply()
    theirs = _tofu(tmp_path / "opentofu", tofu)
    theirs.apply()

    our_instance, their_instance = _only(ours.state()), _only(theirs.state())
    assert our_instance["sensitive_attributes"] == their_instance["sensitive_attributes"] == INPUT_PASSWORD
    assert our_instance["attributes"]["output"] == their_instance["attributes"]["output"]

    # OpenTofu on ctl's state, ctl on OpenTofu's: no change either way (exit 0 of -detailed-exitcode).
    written_by_ctl, written_by_tofu = ours.state(), theirs.state()
    theirs.write_state(written_by_ctl)
    plan = theirs.plan(expect=None)
    assert plan.returncode == 0, plan.output
    ours.state_file.write_text(json.dumps(written_by_tofu))
    mine = ours.ctl("plan", "-detailed-exitcode")
    assert mine.code == 0, str(mine)
    assert "No changes" in mine.stdout

    # Both print the part of the output that is not secret.
    assert json.loads(ours.ok("output", "-json").stdout)["user"]["value"] == "x"
    assert json.loads(theirs.run("output", "-json").stdout)["user"]["value"] == "x"


def test_the_copied_secret_stays_masked_in_ctl(tmp_path: Path) -> None:
    ours = _ctl(tmp_path / "ctl")
    ours.apply()
    ours.write(CONFIG + WHOLE)
    refused = ours.ctl("plan")
    assert refused.code == 1, str(refused)
    assert "main.tf:15:1: Output refers to sensitive values" in refused.stderr
    assert "hunter2" not in refused.output and "Traceback" not in refused.stderr

    ours.write(CONFIG + WHOLE_SENSITIVE)
    applied = ours.apply()
    assert "hunter2" not in applied.output
    assert _only(ours.state())["sensitive_attributes"] == INPUT_PASSWORD
    for shown in (ours.ok("show"), ours.ok("show", "--json"), ours.ok("state", "show", "terraform_data.d")):
        assert "hunter2" not in shown.output, shown
