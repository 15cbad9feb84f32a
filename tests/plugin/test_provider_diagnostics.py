"""Provider diagnostics as Terraform shows them: one per problem, naming the resource once, placed at
the argument the provider's attribute path names.

Driven with HashiCorp's random provider (unmodified, from ``../shared/providers``) and Terraform 1.0.3
side by side: ``random_password`` with a ``length`` the provider refuses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = """
resource "random_password" "p" {
  length = -5
}
"""


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_a_refused_argument_is_named_once_at_its_line(tmp_path: Path, hashicorp_mirror: Path, command: str) -> None:
    (tmp_path / "tf").mkdir()
    (tmp_path / "ctl").mkdir()
    for d in ("tf", "ctl"):
        (tmp_path / d / "main.tf").write_text(CONFIG.lstrip())
    tf = TerraformDir(tmp_path / "tf", hashicorp_mirror)
    tf.init()
    expected = tf.run(command, "-input=false", "-no-color", *(["-auto-approve"] if command == "apply" else []),
                      expect=1).output
    project = Project(tmp_path / "ctl")
    project.ok("init", "-plugin-dir", str(hashicorp_mirror), "-native=false")
    ours = project.ctl(command, *(["--auto-approve"] if command == "apply" else []))
    assert ours.code == 1, ours

    # Terraform: two errors, each "Invalid Attribute Value", "with random_password.p, on main.tf line 2".
    assert expected.count("Error: Invalid Attribute Value") == 2
    assert _flat(expected).count('with random_password.p, on main.tf line 2, in resource "random_password" "p":') == 2
    errors = [line for line in ours.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: main.tf:2:12: Invalid Attribute Value"] * 2, ours
    assert _flat(ours.stderr).count('with random_password.p, on main.tf line 2, in resource "random_password" "p":') == 2
    assert "random_password.p: random_password.p" not in ours.output
    assert ours.stderr.count("random_password.p") == 2  # the address once per error
    for detail in ("Attribute length value must be at least 1, got: -5",
                   "Attribute length value must be at least sum of min_upper + min_lower + min_numeric + "
                   "min_special, got: -5"):
        assert detail in _flat(expected) and detail in _flat(ours.stderr), ours
    assert "   2 |   length = -5" in ours.stderr  # the source line, as Terraform quotes it
    assert not project.state_file.exists() or not project.instances()
