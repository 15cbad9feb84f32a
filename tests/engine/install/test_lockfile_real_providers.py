"""The lock file is Terraform's, with HashiCorp's own providers: either tool's file satisfies the other.

ctl and Terraform 1.0.3 install random, null, local, time, archive and external, unmodified, from the
packed mirror in ``../shared/providers`` for one configuration whose root and child module both
constrain them, written in the loose ways people write constraints (``>= 3.0``, ``~> 3``, ``2.8``,
no spaces). Compared byte for byte: the lock file each writes from nothing, and the lock file after
the other tool runs ``init`` on it. Under CI=true a missing mirror is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from engine.install.lockfile import LOCK_FILE
from tests.e2e.helpers import REPO, Project
from tests.plugin.terraform_cli import TerraformDir

MIRROR = REPO.parent / "shared" / "providers"
SMALL = ("random", "null", "local", "time", "archive", "external")

ROOT = """\
terraform {
  required_providers {
    random   = { source = "hashicorp/random", version = ">= 3.0" }
    null     = { source = "hashicorp/null", version = "~> 3" }
    local    = { source = "hashicorp/local", version = "~> 2.9.0" }
    time     = { source = "hashicorp/time" }
    archive  = { source = "hashicorp/archive", version = "2.8" }
    external = { source = "hashicorp/external", version = ">=2.0,!= 2.1" }
  }
}

module "child" {
  source = "./child"
}

resource "random_id" "server" {
  byte_length = 4
}

resource "time_static" "created" {}
"""

CHILD = """\
terraform {
  required_providers {
    random   = { source = "hashicorp/random", version = "~> 3.1" }
    null     = { source = "hashicorp/null", version = ">= 3.0.0" }
    archive  = { source = "hashicorp/archive", version = "= 2.8.0" }
    external = { source = "hashicorp/external", version = "~>2" }
  }
}

resource "null_resource" "hook" {}

resource "local_file" "note" {
  filename = "${path.module}/note.txt"
  content  = "note"
}

data "archive_file" "bundle" {
  type        = "zip"
  source_file = "${path.module}/main.tf"
  output_path = "${path.module}/bundle.zip"
}

data "external" "facts" {
  program = ["sh", "-c", "echo '{}'"]
}
"""


@pytest.fixture
def mirror() -> Path:
    """``../shared/providers``: HashiCorp's providers, packed as a filesystem mirror."""
    if not all((MIRROR / "registry.terraform.io" / "hashicorp" / name).is_dir() for name in SMALL):
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


class Both:
    """One configuration directory that ctl and Terraform both initialize, each with its own home."""

    def __init__(self, workdir: Path, mirror: Path, root: str = ROOT) -> None:
        (workdir / "child").mkdir(parents=True)
        (workdir / "main.tf").write_text(root)
        (workdir / "child" / "main.tf").write_text(CHILD)
        home = workdir.parent / f"{workdir.name}-home"
        home.mkdir()
        self.workdir = workdir
        self.mirror = mirror
        self.project = Project(workdir)
        self.terraform = TerraformDir(workdir, plugin_dir=mirror)
        self.env = {"HOME": str(home)}

    @property
    def lock(self) -> Path:
        return self.workdir / LOCK_FILE

    def ctl_init(self) -> str:
        return self.project.ok("init", "-plugin-dir", str(self.mirror), env=self.env).stdout

    def terraform_init(self) -> str:
        return self.terraform.init().output


def test_ctl_and_terraform_write_the_same_lock_file(tmp_path: Path, mirror: Path) -> None:
    by_terraform, by_ctl = Both(tmp_path / "tf", mirror), Both(tmp_path / "ctl", mirror)
    by_terraform.terraform_init()
    by_ctl.ctl_init()
    written = by_terraform.lock.read_text()
    assert 'constraints = ">= 3.0.0, ~> 3.1"' in written, "Terraform normalized and combined both modules"
    assert by_ctl.lock.read_text() == written


def test_ctl_init_leaves_terraform_lock_file_byte_for_byte(tmp_path: Path, mirror: Path) -> None:
    both = Both(tmp_path / "cfg", mirror)
    both.terraform_init()
    written = both.lock.read_bytes()
    for _ in range(2):  # installing, then with everything in place
        both.ctl_init()
        assert both.lock.read_bytes() == written
    assert both.project.ctl("validate").code == 0


def test_terraform_accepts_ctl_lock_file_unchanged(tmp_path: Path, mirror: Path) -> None:
    both = Both(tmp_path / "cfg", mirror)
    both.ctl_init()
    written = both.lock.read_bytes()
    output = both.terraform_init()
    assert "Terraform has been successfully initialized!" in output
    assert "Terraform has made some changes to the provider dependency selections" not in output
    assert both.lock.read_bytes() == written
    both.terraform.run("validate", "-no-color")


def test_a_lock_file_from_before_normalization_is_rewritten_so_terraform_reads_it(tmp_path: Path, mirror: Path) -> None:
    reference = Both(tmp_path / "tf", mirror)
    reference.terraform_init()
    both = Both(tmp_path / "cfg", mirror)
    loose = reference.lock.read_text().replace('"2.8.0"\n  hashes', '"2.8"\n  hashes')
    loose = loose.replace('constraints = ">= 3.0.0, ~> 3.1"', 'constraints = ">= 3.0, ~> 3.1"')
    assert loose != reference.lock.read_text()
    both.lock.write_text(loose)
    refused = both.terraform.run("init", "-input=false", "-no-color", f"-plugin-dir={mirror}", expect=1)
    assert "normalized form" in refused.output
    shutil.rmtree(both.workdir / ".terraform", ignore_errors=True)

    both.ctl_init()
    assert both.lock.read_text() == reference.lock.read_text()
    both.terraform_init()
    assert both.lock.read_text() == reference.lock.read_text()


def test_an_unsatisfiable_constraint_is_shown_with_its_meaning(tmp_path: Path, mirror: Path) -> None:
    root = ROOT.replace('version = "~> 3" }', 'version = "~> 9.0" }')
    both = Both(tmp_path / "cfg", mirror, root=root)
    refused = both.terraform.run("init", "-input=false", "-no-color", f"-plugin-dir={mirror}", expect=1)
    shown = re.search(r'Finding hashicorp/null versions matching "([^"]*)"', refused.output)
    assert shown and "~> 9.0" in shown.group(1), refused.output

    failed = both.project.ctl("init", "-plugin-dir", str(mirror), env=both.env)
    assert failed.code == 1, str(failed)
    assert f"matches {shown.group(1)} for" in failed.output, str(failed)
    assert "9.0.0" not in failed.output and "Traceback" not in failed.output
    assert not both.lock.exists()

