"""A successful run with a real provider writes nothing to stderr: no gRPC logging among it.

gRPC's C core logs through absl straight to stderr (``I… chttp2_transport.cc … Got goaway`` when a
provider's server shuts down under a connection); ctl turns that off unless ``CTL_LOG=debug``
(cli/logging_setup.py). HashiCorp's random provider from the mirror, through init, a saved plan,
its apply and a destroy, several times over, as a user's CI runs them.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project

CONFIG = """
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

resource "random_pet" "name" {}

resource "random_id" "suffix" {
  byte_length = 4
}

resource "random_string" "token" {
  length = 12
}

output "name" {
  value = "${random_pet.name.id}-${random_id.suffix.hex}"
}
"""


def test_plan_apply_and_destroy_with_a_real_provider_write_nothing_to_stderr(real_providers: Path,
                                                                          scratch: Path) -> None:
    project = Project(scratch)
    project.write(CONFIG)
    runs = [project.ok("init", "-plugin-dir", str(real_providers))]
    for _ in range(3):
        runs.append(project.ok("plan", "-out", "run.plan"))
        runs.append(project.ok("apply", "run.plan"))
        assert len(project.instances()) == 3
        runs.append(project.ok("destroy", "-auto-approve"))
        assert project.instances() == {}
    assert [(" ".join(r.args), r.stderr) for r in runs if r.stderr] == []
