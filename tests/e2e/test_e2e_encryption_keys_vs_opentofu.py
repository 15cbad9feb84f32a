"""OpenTofu's chained and external key providers: a state either tool encrypts, the other opens.

With the same ``encryption`` block, OpenTofu 1.12.6 (unpacked from ``../shared/peers``) and the real
``ctl`` take turns on one local state: a ``pbkdf2`` key provider chained from another (its passphrase
is the upstream key), and a ``pbkdf2`` chained from an ``external`` program (a key service written
in Python, ``tests/engine/encryption/data/key_program.py``, that stores its wrapped data key in the
file's metadata). A program that crashes, hangs or answers garbage is one error with its stderr,
never its keys, and nothing is written. Under CI=true a missing OpenTofu is a failure, never a skip.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import Result, SharedWithOpenTofu
from tests.plugin.terraform_cli import opentofu_executable

PASSPHRASE = "correct-horse-battery-staple"
SECRET = "s3cret-db-password"
MASTER = "8f" * 32  # the key service's master secret
DATA = Path(__file__).parents[1] / "engine" / "encryption" / "data"
PROGRAM, METHOD_PROGRAM = DATA / "key_program.py", DATA / "method_program.py"
AES_GCM = """
    method "aes_gcm" "main" {
      keys = key_provider.pbkdf2.main
    }
"""
METHOD = """
    method "external" "main" {
      encrypt_command = [%(python)s, %(program)s, "--encrypt"]
      decrypt_command = [%(python)s, %(program)s, "--decrypt"]%(keys)s
    }
"""
PBKDF2 = """
    key_provider "pbkdf2" "main" {
      passphrase = var.passphrase
      iterations = 200000
    }
"""

CHAIN = """
    key_provider "pbkdf2" "outer" {
      passphrase = var.passphrase
      iterations = 200000
    }
    key_provider "pbkdf2" "main" {
      chain      = key_provider.pbkdf2.outer
      iterations = 200000
    }
"""

EXTERNAL = """
    key_provider "external" "service" {
      command = [%s, %s%s]
    }
    key_provider "pbkdf2" "main" {
      chain      = key_provider.external.service
      iterations = 200000
    }
"""

CONFIG = """\
variable "passphrase" {
  type      = string
  sensitive = true
  default   = "unused-by-the-external-chain"
}

terraform {
  backend "local" {
    path = "terraform.tfstate"
  }
  encryption {
%s
    state {
      method   = method.%s.main
      enforced = true
    }
  }
}

resource "terraform_data" "db" {
  input = { password = "%s", size = 2 }
}
%s"""


def external(mode: str = "") -> str:
    return EXTERNAL % (json.dumps(sys.executable), json.dumps(str(PROGRAM)), f", {json.dumps(mode)}" if mode else "") \
        + AES_GCM


def method(keys: bool) -> str:
    return METHOD % {"python": json.dumps(sys.executable), "program": json.dumps(str(METHOD_PROGRAM)),
                     "keys": "\n      keys = key_provider.pbkdf2.main" if keys else ""}


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("tofu"))


class Dir(SharedWithOpenTofu):
    def __init__(self, root: Path, tofu: Path, keys: str) -> None:
        super().__init__(root, tofu)
        self.configure(keys)

    def configure(self, keys: str, extra: str = "") -> None:
        kind = "external" if 'method "external"' in keys else "aes_gcm"
        (self.root / "main.tf").write_text(CONFIG % (keys, kind, SECRET, extra))

    def variables(self) -> dict[str, str]:
        return {"TF_VAR_passphrase": PASSPHRASE, "KEY_PROGRAM_MASTER": MASTER, "METHOD_PROGRAM_KEY": "5a" * 32}

    def tofu(self, *args: str, code: int | None = 0) -> Result:
        return self.run_tofu(args, self.variables(), code)

    def ctl(self, *args: str, code: int | None = 0, env: dict[str, str] | None = None) -> Result:
        return self.run_ctl(args, {**self.variables(), **(env or {})}, code)


def sealed_with(data: bytes, metas: set[str]) -> dict[str, object]:
    """The state is in OpenTofu's layout with every key provider of the chain's metadata, and no secret."""
    doc = json.loads(data)
    assert doc["encryption_version"] == "v0" and set(doc["meta"]) == metas, doc.get("meta")
    assert SECRET.encode() not in data and b"terraform_data" not in data
    return doc


CASES = {
    "pbkdf2 chained from pbkdf2": (CHAIN + AES_GCM, {"key_provider.pbkdf2.outer", "key_provider.pbkdf2.main"}),
    "pbkdf2 chained from external": (external(), {"key_provider.external.service", "key_provider.pbkdf2.main"}),
    "external method with pbkdf2 keys": (PBKDF2 + method(keys=True), {"key_provider.pbkdf2.main"}),
    "external method without keys": (method(keys=False), set()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_ctl_reads_what_opentofu_wrote_and_opentofu_reads_what_ctl_wrote(tofu: Path, tmp_path: Path,
                                                                         case: str) -> None:
    keys, metas = CASES[case]
    work = Dir(tmp_path / "w", tofu, keys)
    work.tofu("init")
    work.tofu("apply", "-auto-approve")
    written = sealed_with(work.state, metas)

    work.ctl("init")
    assert "No changes" in work.ctl("plan", "--detailed-exitcode").stdout
    assert json.loads(work.state)["serial"] == written["serial"]  # a plan writes nothing

    work.configure(keys, 'resource "terraform_data" "cache" {\n  input = "cache"\n}\n')
    work.ctl("apply", "--auto-approve")
    sealed_with(work.state, metas)
    assert "No changes" in work.tofu("plan", "-detailed-exitcode").stdout
    assert sorted(work.tofu("state", "list").stdout.split()) == ["terraform_data.cache", "terraform_data.db"]


@pytest.mark.parametrize(("mode", "words"), [
    ("crash", "exited with status 3"),
    ("hang", "did not answer within 2 seconds and was stopped"),
    ("garbage", "did not answer with a JSON document after its header"),
    ("bad-header", "is not a program of OpenTofu's external protocol"),
])
def test_a_key_program_that_fails_is_one_clear_error_and_nothing_is_written(tofu: Path, tmp_path: Path,
                                                                            mode: str, words: str) -> None:
    work = Dir(tmp_path / "w", tofu, external())
    work.tofu("init")
    work.tofu("apply", "-auto-approve")
    work.ctl("init")
    work.configure(external(mode), 'resource "terraform_data" "cache" {\n  input = "cache"\n}\n')
    before = {p.name: p.read_bytes() for p in work.root.iterdir() if p.is_file()}

    failed = work.ctl("apply", "--auto-approve", code=1, env={"CTL_ENCRYPTION_COMMAND_TIMEOUT": "2"})
    first = failed.stderr.strip().splitlines()[0]
    assert first.startswith("Error: ") and "key_provider.external.service" in first and words in first, failed.stderr
    if mode == "crash":
        assert "key service unreachable: connection refused" in failed.stderr  # its stderr, shown
    assert {p.name: p.read_bytes() for p in work.root.iterdir() if p.is_file()} == before


DIRECT = """
    key_provider "external" "service" {
      command = [%s, %s, %s]
    }
""" + AES_GCM.replace("pbkdf2.main", "external.service")


@pytest.mark.parametrize(("mode", "keys", "words"), [
    ("crash", "chain", "exited with status 3"),
    ("garbage", "chain", "did not answer with a JSON document after its header"),
    ("bad-header", "chain", "is not a program of OpenTofu's external protocol"),
    ("odd-key", "direct", "gave a 20-byte encryption key; aes_gcm takes 16, 24 or 32 bytes"),
])
def test_a_failing_key_program_stops_plan_before_any_plan_is_shown(tofu: Path, tmp_path: Path, mode: str,
                                                                    keys: str, words: str) -> None:
    """Both tools ask the state method's key program for a key when they set encryption up: with no
    state yet, nothing else would run it before the first write, after the plan was shown."""
    def config(mode: str) -> str:
        return external(mode) if keys == "chain" else \
            DIRECT % (json.dumps(sys.executable), json.dumps(str(PROGRAM)), json.dumps(mode))

    work = Dir(tmp_path / "w", tofu, config("ok"))
    work.tofu("init")
    work.ctl("init")
    work.configure(config(mode))
    before = sorted(p.name for p in work.root.iterdir())

    theirs = work.tofu("plan", code=1)
    ours = work.ctl("plan", code=1)
    for shown in (theirs.stdout, ours.stdout):
        assert "will be created" not in shown and "Plan:" not in shown, shown
    assert "Unable to fetch encryption key data" in theirs.stderr or "Invalid method configuration" in theirs.stderr
    lines = ours.stderr.strip().splitlines()
    assert lines[0].startswith("Error: key_provider.external.service") and words in lines[0], ours.stderr
    assert sum(line.startswith("Error") for line in lines) == 1, ours.stderr
    if mode == "crash":
        assert "key service unreachable: connection refused" in ours.stderr  # its stderr, shown
    assert sorted(p.name for p in work.root.iterdir()) == before  # no state, no lock left behind
