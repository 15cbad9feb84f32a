"""A misspelt protection stops the run instead of silently removing the protection.

Through the real ``ctl`` executable: an object created under ``prevent_destroy = true`` is not
destroyed when the setting is later misspelt, a misspelt ``sensitive`` never lets the value be
printed, and a ``.tf.yaml`` file's misspelling is reported at its own line and column with the
suggestion. (The side-by-side comparison with Terraform and OpenTofu is
``test_unknown_arguments_vs_oracles.py``.)
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project

PROTECTED = """\
resource "random_id" "keep" {
  byte_length = 4
  lifecycle {
    %s = true
  }
}
"""


def test_a_misspelt_prevent_destroy_stops_destroy_and_keeps_the_object(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(PROTECTED % "create_before_destroy")
    project.apply()
    assert set(project.instances()) == {"random_id.keep"}
    project.write(PROTECTED % "prevent_destory")
    for command in (["destroy", "--auto-approve"], ["plan", "-destroy"], ["validate"]):
        refused = project.ctl(*command)
        assert refused.code == 1, str(refused)
        assert "main.tf:4:5: Unsupported argument" in refused.output, str(refused)
        assert 'An argument named "prevent_destory" is not expected here.' in refused.output, str(refused)
        assert 'Did you mean "prevent_destroy"?' in refused.output, str(refused)
        assert "Traceback" not in refused.output
    assert set(project.instances()) == {"random_id.keep"}  # nothing was destroyed


def test_a_misspelt_sensitive_output_is_refused_before_anything_is_printed(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""\
variable "token" {
  default   = "s3cr3t-value"
  sensitive = true
}
output "token" {
  value    = var.token
  sensitve = true
}
""")
    for command in (["apply", "--auto-approve"], ["plan"]):
        refused = project.ctl(*command)
        assert refused.code == 1, str(refused)
        assert "main.tf:7:3: Unsupported argument" in refused.output, str(refused)
        assert 'An argument named "sensitve" is not expected here.' in refused.output, str(refused)
        assert 'Did you mean "sensitive"?' in refused.output
        assert "s3cr3t-value" not in refused.output
    assert not project.state_file.exists()


def test_a_yaml_spec_is_refused_at_the_misspelt_key(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""\
resource:
  random_id:
    keep:
      byte_length: 4
      lifecycle:
        ignore_change: [byte_length]
variable:
  region:
    defualt: eu-west-1
""", "main.tf.yaml")
    refused = project.ctl("validate")
    assert refused.code == 1, str(refused)
    out = refused.output
    assert 'main.tf.yaml:6:9: Extraneous JSON object property "ignore_change"' in out, out
    assert 'Did you mean "ignore_changes"?' in out
    assert 'main.tf.yaml:9:5: Extraneous JSON object property "defualt"' in out, out
    assert 'Did you mean "default"?' in out


def test_the_newest_arguments_of_variables_and_outputs_are_accepted(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("""\
variable "name" {
  type        = string
  default     = "app"
  nullable    = false
  ephemeral   = false
  deprecated  = "Use var.label."
  const       = true
}
output "name" {
  value       = var.name
  ephemeral   = false
  deprecated  = "Use label."
  precondition {
    condition     = var.name != ""
    error_message = "A name is needed."
  }
}
""")
    assert "Success!" in project.ok("validate").stdout


def test_an_ephemeral_variable_is_accepted_with_a_warning_that_it_is_stored(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('variable "token" {\n  default   = "t"\n  ephemeral = true\n}\n')
    shown = project.ok("validate")
    assert "main.tf:3:3: An ephemeral variable is stored like any other value" in shown.output, str(shown)
    assert "Mark it sensitive" in shown.output


def test_a_provider_argument_the_native_adapter_lacks_points_at_the_plugin(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('provider "aws" {\n  region = "eu-west-1"\n  regoin = "eu-west-2"\n}\n')
    refused = project.ctl("validate")
    assert refused.code == 1, str(refused)
    assert "main.tf:3:3: Unsupported argument" in refused.output, str(refused)
    assert 'An argument named "regoin" is not expected here.' in refused.output, str(refused)
    assert 'Did you mean "region"?' in refused.output
    assert "ctl's native adapter for the aws provider does not take it" in refused.output
