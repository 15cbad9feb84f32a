"""``ctl import ADDRESS ID``: adopting existing objects at addresses the configuration declares."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import run

CTL = Path(sys.executable).with_name("ctl")
CONFIG = """
variable "n" {
  type    = number
  default = 2
}
resource "random_id" "suffix" {
  byte_length = 3
}
resource "random_password" "pw" {
  length = 8
}
resource "terraform_data" "box" {
  count = var.n
}
module "m" {
  source = "./m"
}
data "local_file" "f" {
  filename = "main.tf"
}
"""


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTL_INPUT", "false")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tf").write_text(CONFIG)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "main.tf").write_text('resource "random_id" "inner" {\n  byte_length = 1\n}\n')
    return tmp_path


def resources(root: Path) -> dict[str, dict]:
    doc = json.loads((root / "ctl.tfstate").read_text())
    return {(r.get("module", "") + "." if r.get("module") else "") + f"{r['type']}.{r['name']}": r
            for r in doc["resources"]}


def test_import_stores_the_object_with_its_provider(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_id.suffix", "AQID"]) == 0
    out = capsys.readouterr().out
    assert 'random_id.suffix: Importing from ID "AQID"...' in out and "Import successful!" in out
    res = resources(root)["random_id.suffix"]
    assert res["provider"] == 'provider["registry.terraform.io/hashicorp/random"]'
    inst = res["instances"][0]
    assert inst["schema_version"] == 0
    assert inst["attributes"]["hex"] == "010203" and inst["attributes"]["byte_length"] == 3


def test_an_imported_object_plans_without_changes(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_id.suffix", "AQID"]) == 0
    assert run(["plan", "--target", "random_id.suffix", "--detailed-exitcode"]) == 0
    assert "No changes" in capsys.readouterr().out


def test_import_into_a_counted_instance_and_a_module(root: Path) -> None:
    assert run(["import", "terraform_data.box[1]", "abc"]) == 0
    assert run(["import", "module.m.random_id.inner", "_w"]) == 0
    res = resources(root)
    box = res["terraform_data.box"]
    assert box["provider"] == 'provider["terraform.io/builtin/terraform"]'
    assert box["instances"][0]["index_key"] == 1 and box["instances"][0]["attributes"]["id"] == "abc"
    assert res["module.m.random_id.inner"]["instances"][0]["attributes"]["byte_length"] == 1


def test_imported_secrets_are_recorded_as_sensitive(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_password.pw", "s3cr3t!!"]) == 0
    inst = resources(root)["random_password.pw"]["instances"][0]
    assert {"type": "get_attr", "value": "result"} in [p[0] for p in inst["sensitive_attributes"]]
    capsys.readouterr()
    assert run(["state", "show", "random_password.pw"]) == 0
    assert "s3cr3t!!" not in capsys.readouterr().out


def test_an_address_missing_from_the_configuration_is_named(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_id.other", "AQID"]) == 1
    err = capsys.readouterr().err
    assert 'Resource address "random_id.other" does not exist in the configuration' in err
    assert 'resource "random_id" "other"' in err
    assert not (root / "ctl.tfstate").exists()


def test_an_instance_key_the_configuration_does_not_declare_is_refused(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["import", "terraform_data.box[2]", "abc"]) == 1
    err = capsys.readouterr().err
    assert "terraform_data.box[2] is not an instance" in err and "terraform_data.box[1]" in err
    assert run(["import", "--var", "n=3", "terraform_data.box[2]", "abc"]) == 0  # variables change the count
    assert run(["import", "random_id.suffix[0]", "AQID"]) == 1


def test_an_address_already_in_state_is_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_id.suffix", "AQID"]) == 0
    before = (root / "ctl.tfstate").read_bytes()
    assert run(["import", "random_id.suffix", "BAUG"]) == 1
    err = capsys.readouterr().err
    assert "already managed" in err and "ctl state rm" in err
    assert (root / "ctl.tfstate").read_bytes() == before


def test_a_bad_id_reports_the_adapters_message(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "random_id.suffix", "not base64!"]) == 1
    assert "not URL-safe base64" in capsys.readouterr().err
    assert not (root / "ctl.tfstate").exists()


def test_data_sources_cannot_be_imported(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["import", "data.local_file.f", "x"]) == 1
    assert "only managed resources" in capsys.readouterr().err


def test_import_waits_for_nobody_when_the_state_is_locked(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock", "--reason", "frozen"]) == 0
    capsys.readouterr()
    assert run(["import", "random_id.suffix", "AQID"]) == 4
    assert "frozen" in capsys.readouterr().err


def test_import_goes_to_the_selected_workspace(root: Path) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["import", "random_id.suffix", "AQID"]) == 0
    assert (root / "ctl.tfstate.d" / "dev" / "ctl.tfstate").exists()
    assert not (root / "ctl.tfstate").exists()


def test_executable_import_then_state_show(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID")}
    env["CTL_INPUT"] = "false"

    def ctl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CTL), "-C", str(root), *args], capture_output=True, text=True, env=env,
                              timeout=60, check=False)

    done = ctl("import", "random_id.suffix", "pfx-,AQID")
    assert done.returncode == 0, done.stderr
    assert "Import successful!" in done.stdout
    shown = ctl("state", "show", "random_id.suffix", "--json")
    assert json.loads(shown.stdout)["values"]["prefix"] == "pfx-"
    again = ctl("import", "random_id.suffix", "AQID")
    assert again.returncode == 1 and "already managed" in again.stderr
