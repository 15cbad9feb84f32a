"""State and plan encryption through the real executable: nothing secret reaches the disk in plaintext."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project
from tests.servers import MotoServer

SECRET = "hunter2-never-on-disk"
KEYS = """
key_provider "pbkdf2" "main" {
  passphrase = "%s"
  iterations = 200000
}
method "aes_gcm" "main" {
  keys = key_provider.pbkdf2.main
}
"""
CONFIG = """
variable "pw" {
  type      = string
  sensitive = true
}
resource "terraform_data" "db" {
  input = { password = var.pw, size = 2 }
}
output "pw" {
  value     = var.pw
  sensitive = true
}
"""


def env(block: str, **extra: str) -> dict[str, str]:
    return {"CTL_ENCRYPTION": block, "CTL_VAR_pw": SECRET, **extra}


def encrypting(passphrase: str = "correct-horse-battery", *, state: str = "", plan: bool = True) -> str:
    targets = "state {\n  method = method.aes_gcm.main\n" + state + "}\n"
    if plan:
        targets += "plan {\n  method = method.aes_gcm.main\n}\n"
    return KEYS % passphrase + targets


def files_holding(root: Path, text: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes())


def test_state_history_and_saved_plans_hold_no_secret(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    e = env(encrypting())
    assert project.ctl("apply", "--auto-approve", env=e).code == 0
    project.write(CONFIG.replace("size = 2", "size = 3"))
    assert project.ctl("plan", "--out", "tfplan", env=e).code == 0
    assert project.ctl("apply", "tfplan", env=e).code == 0
    assert files_holding(tmp_path, SECRET) == []
    assert '"encrypted_data"' in project.state_file.read_text()
    shown = project.ctl("output", "--json", env=e)
    assert shown.code == 0 and SECRET in shown.stdout  # readable with the key
    assert project.ctl("plan", "--detailed-exitcode", env=e).code == 0


def test_without_the_key_nothing_is_read_and_nothing_is_written(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    project.ctl("apply", "--auto-approve", env=env(encrypting()))
    before = project.state_file.read_bytes()
    no_key = project.ctl("plan", env={"CTL_VAR_pw": SECRET})
    assert no_key.code == 1 and "is encrypted" in no_key.stderr and "Traceback" not in no_key.stderr
    wrong = project.ctl("apply", "--auto-approve", env=env(encrypting("a-different-passphrase")))
    assert wrong.code == 1 and "the key is wrong" in wrong.stderr
    assert project.state_file.read_bytes() == before


def test_plaintext_state_migrates_through_an_unencrypted_fallback(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    project.ctl("apply", "--auto-approve", env={"CTL_VAR_pw": SECRET})
    assert SECRET in project.state_file.read_text()
    enforced = project.ctl("plan", env=env(encrypting(state="  enforced = true\n")))
    assert enforced.code == 1 and "is not encrypted" in enforced.stderr and "fallback" in enforced.stderr
    migrate = encrypting(state="  fallback {\n    method = method.unencrypted.old\n  }\n") + \
        'method "unencrypted" "old" {}\n'
    applied = project.ctl("apply", "--auto-approve", env=env(migrate))
    assert applied.code == 0, applied
    assert "not encrypted yet" in applied.stderr
    assert SECRET not in project.state_file.read_text()
    assert project.ctl("plan", "--detailed-exitcode", env=env(encrypting(state="  enforced = true\n"))).code == 0


def test_a_saved_plan_needs_the_key(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    assert project.ctl("plan", "--out", "tfplan", env=env(encrypting())).code == 0
    assert SECRET not in project.path("tfplan").read_text()
    assert project.ctl("show", "tfplan", env=env(encrypting())).code == 0
    refused = project.ctl("show", "tfplan", env={"CTL_VAR_pw": SECRET})
    assert refused.code == 1 and "is encrypted" in refused.stderr


def test_remote_state_reads_an_encrypted_state_with_the_same_keys(tmp_path: Path) -> None:
    network, app = Project(tmp_path / "network"), Project(tmp_path / "app")
    network.root.mkdir()
    app.root.mkdir()
    network.write('output "vpc" {\n  value = "vpc-123"\n}\n')
    e = env(encrypting())
    assert network.ctl("apply", "--auto-approve", env=e).code == 0
    app.write('data "terraform_remote_state" "net" {\n  backend = "local"\n'
              '  config  = { path = "../network/ctl.tfstate" }\n}\n'
              'output "vpc" {\n  value = data.terraform_remote_state.net.outputs.vpc\n}\n')
    assert app.ctl("apply", "--auto-approve", env=e).code == 0
    assert app.ctl("output", "--raw", "vpc", env=e).stdout.strip() == "vpc-123"


def test_keys_from_aws_kms(tmp_path: Path, moto_server_clean: MotoServer) -> None:
    key_id = moto_server_clean.client("kms").create_key()["KeyMetadata"]["KeyId"]
    block = (f'key_provider "aws_kms" "main" {{\n  kms_key_id = "{key_id}"\n  endpoint = "{moto_server_clean.url}"\n}}\n'
             'method "aes_gcm" "main" {\n  keys = key_provider.aws_kms.main\n}\n'
             'state {\n  method = method.aes_gcm.main\n  enforced = true\n}\n')
    project = Project(tmp_path)
    project.write(CONFIG)
    e = env(block, **moto_server_clean.env)
    assert project.ctl("apply", "--auto-approve", env=e).code == 0
    assert files_holding(tmp_path, SECRET) == []
    assert project.ctl("plan", "--detailed-exitcode", env=e).code == 0
    unreachable = env(block.replace(moto_server_clean.url, "http://127.0.0.1:9"), **moto_server_clean.env)
    refused = project.ctl("plan", env=unreachable)
    # Setting encryption up asks KMS for this run's data key first, as OpenTofu does, before the state is read.
    assert refused.code == 1 and "KMS GenerateDataKey failed" in refused.stderr and "Traceback" not in refused.stderr
    assert refused.stdout.strip() == ""
