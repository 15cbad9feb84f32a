"""A team moving between OpenTofu and ctl keeps its encrypted state: the same ``encryption`` block and
passphrase (pbkdf2 + aes_gcm, the passphrase from a variable) open each other's files.

OpenTofu 1.12.6 (unpacked from ``../shared/peers``) and the real ``ctl`` run on one local state file,
``terraform.tfstate``: what one writes, the other reads and plans no change against. A wrong
passphrase is one message naming the file, and nothing is written. A state OpenTofu encrypted in its
default place (no backend block) stops ``ctl plan`` until ``ctl init --migrate-state`` moves it in.
Under CI=true a missing OpenTofu is a failure, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.helpers import Result, SharedWithOpenTofu
from tests.plugin.terraform_cli import opentofu_executable

PASSPHRASE = "correct-horse-battery-staple"
SECRET = "s3cret-db-password"

BACKEND = """
  backend "local" {
    path = "terraform.tfstate"
  }
"""

CONFIG = """\
variable "passphrase" {
  type      = string
  sensitive = true
}

# Not marked sensitive: which paths of terraform_data's output a sensitive input marks is another
# matter than encryption; here the value only has to stay out of the file.
variable "db_password" {
  type = string
}

terraform {
%s
  encryption {
    key_provider "pbkdf2" "main" {
      passphrase = var.passphrase
    }
    method "aes_gcm" "main" {
      keys = key_provider.pbkdf2.main
    }
    state {
      method   = method.aes_gcm.main
      enforced = true
    }
    plan {
      method   = method.aes_gcm.main
      enforced = true
    }
  }
}

resource "terraform_data" "db" {
  input = { password = var.db_password, size = 2 }
}
%s
output "size" {
  value = terraform_data.db.output.size
}
"""

EXTRA = """
resource "terraform_data" "cache" {
  input = "cache"
}
"""



@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("tofu"))


class Dir(SharedWithOpenTofu):
    """One configuration directory that both programs run in, with the same variables."""

    def __init__(self, root: Path, tofu: Path, *, backend: bool = True, extra: str = "") -> None:
        super().__init__(root, tofu)
        self.configure(backend=backend, extra=extra)

    def configure(self, *, backend: bool = True, extra: str = "") -> None:
        (self.root / "main.tf").write_text(CONFIG % (BACKEND if backend else "", extra))

    def variables(self, passphrase: str | None) -> dict[str, str]:
        given = {"TF_VAR_db_password": SECRET}
        return given if passphrase is None else {**given, "TF_VAR_passphrase": passphrase}

    def tofu(self, *args: str, passphrase: str = PASSPHRASE, code: int | None = 0) -> Result:
        return self.run_tofu(args, self.variables(passphrase), code)

    def ctl(self, *args: str, passphrase: str | None = PASSPHRASE, code: int | None = 0) -> Result:
        return self.run_ctl(args, self.variables(passphrase), code)


def _sealed_in_opentofus_layout(data: bytes) -> dict[str, object]:
    doc = json.loads(data)
    assert doc["encryption_version"] == "v0" and set(doc["meta"]) == {"key_provider.pbkdf2.main"}
    assert SECRET.encode() not in data and b"terraform_data" not in data
    return doc


def test_ctl_reads_the_state_opentofu_encrypted_and_plans_no_change(tofu: Path, tmp_path: Path) -> None:
    work = Dir(tmp_path / "w", tofu)
    work.tofu("init")
    work.tofu("apply", "-auto-approve")
    written = _sealed_in_opentofus_layout(work.state)

    work.ctl("init")
    plan = work.ctl("plan", "--detailed-exitcode")
    assert "No changes" in plan.stdout
    assert work.ctl("state", "list").stdout.split() == ["terraform_data.db"]
    assert json.loads(work.ctl("output", "--json").stdout)["size"]["value"] == 2
    assert json.loads(work.state)["serial"] == written["serial"]  # a plan writes nothing


def test_opentofu_reads_the_state_ctl_encrypted_and_plans_no_change(tofu: Path, tmp_path: Path) -> None:
    work = Dir(tmp_path / "w", tofu)
    work.ctl("init")
    work.ctl("apply", "--auto-approve")
    _sealed_in_opentofus_layout(work.state)

    work.tofu("init")
    plan = work.tofu("plan", "-detailed-exitcode")
    assert "No changes" in plan.stdout
    assert work.tofu("state", "list").stdout.split() == ["terraform_data.db"]

    # And back: OpenTofu adds an object, ctl sees it and, adding one more, OpenTofu sees that.
    work.configure(extra=EXTRA)
    work.tofu("apply", "-auto-approve")
    assert "No changes" in work.ctl("plan", "--detailed-exitcode").stdout
    work.configure(extra=EXTRA + 'resource "terraform_data" "queue" {\n  input = "q"\n}\n')
    given = f"passphrase={PASSPHRASE}"  # on the command line only, for the plan and for its apply
    work.ctl("plan", "--var", given, "--out", "tfplan", passphrase=None)
    _sealed_in_opentofus_layout((work.root / "tfplan").read_bytes())
    work.ctl("apply", "--var", given, "tfplan", passphrase=None)
    _sealed_in_opentofus_layout(work.state)
    assert "No changes" in work.tofu("plan", "-detailed-exitcode").stdout
    assert sorted(work.tofu("state", "list").stdout.split()) == [
        "terraform_data.cache", "terraform_data.db", "terraform_data.queue"]


@pytest.mark.parametrize("command", [("plan",), ("apply", "--auto-approve"), ("state", "list")])
def test_a_wrong_passphrase_is_one_clear_error_and_nothing_is_written(tofu: Path, tmp_path: Path,
                                                                      command: tuple[str, ...]) -> None:
    work = Dir(tmp_path / "w", tofu)
    work.tofu("init")
    work.tofu("apply", "-auto-approve")
    work.ctl("init")
    before = {p.name: p.read_bytes() for p in work.root.iterdir() if p.is_file()}

    failed = work.ctl(*command, passphrase="not-the-right-passphrase", code=1)
    message = failed.stderr.strip().splitlines()
    path = work.root / "terraform.tfstate"
    assert message[0] == (f"Error: cannot decrypt the state at {path}: the key is wrong, or the file was "
                          "changed or truncated"), failed.stderr
    assert "Check the passphrase" in failed.stderr and len(message) <= 3
    assert {p.name: p.read_bytes() for p in work.root.iterdir() if p.is_file()} == before  # nothing written
    assert "No changes" in work.ctl("plan").stdout  # the right passphrase still opens it


def test_an_encrypted_state_opentofu_left_in_its_default_place_moves_in(tofu: Path, tmp_path: Path) -> None:
    work = Dir(tmp_path / "w", tofu, backend=False)
    work.tofu("init")
    work.tofu("apply", "-auto-approve")

    refused = work.ctl("plan", code=1)
    assert "terraform.tfstate holds an encrypted state" in refused.stderr
    assert "ctl init --migrate-state" in refused.stderr
    assert "moved" not in work.ctl("init").stdout.lower()
    work.ctl("init", "--migrate-state")
    assert (work.root / "terraform.tfstate.migrated").exists() and not (work.root / "terraform.tfstate").exists()
    _sealed_in_opentofus_layout((work.root / "ctl.tfstate").read_bytes())  # sealed again in ctl's backend
    assert "No changes" in work.ctl("plan", "--detailed-exitcode").stdout
