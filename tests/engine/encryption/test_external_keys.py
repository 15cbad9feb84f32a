"""OpenTofu's ``external`` key provider: a program answers the keys, its metadata is stored in the file,
and every way a program can fail is one error that shows its stderr and never its keys."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from engine.encryption.errors import EncryptionError
from engine.encryption.lookup import target_in
from engine.encryption.target import Target

PROGRAM = Path(__file__).parent / "data" / "key_program.py"
BODY = ('key_provider "external" "svc" {\n command = %s\n}\n'
        'method "aes_gcm" "m" {\n keys = key_provider.external.svc\n}\nstate {\n method = method.aes_gcm.m\n}\n')


@pytest.fixture(autouse=True)
def master(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEY_PROGRAM_MASTER", "17" * 32)
    monkeypatch.delenv("CTL_ENCRYPTION_COMMAND_TIMEOUT", raising=False)


def target(tmp_path: Path, *command: str) -> Target:
    (tmp_path / "main.tf").write_text("terraform {\n  encryption {\n" + BODY % json.dumps(list(command)) + "\n  }\n}\n")
    found = target_in(tmp_path, "state")
    assert found is not None
    return found


def program(mode: str = "ok") -> list[str]:
    return [sys.executable, str(PROGRAM), mode]


def test_the_programs_metadata_is_stored_and_given_back_to_decrypt(tmp_path: Path) -> None:
    sealed = target(tmp_path, *program()).encrypt(b'{"serial": 1}')
    meta = json.loads(base64.b64decode(json.loads(sealed)["meta"]["key_provider.external.svc"]))
    assert set(meta) == {"external_data"} and set(meta["external_data"]) == {"wrapped", "nonce"}
    assert target(tmp_path, *program()).decrypt(sealed, "the state") == b'{"serial": 1}'  # a new run, a new process


def test_a_program_that_gives_no_decryption_key_is_a_clear_error(tmp_path: Path) -> None:
    sealed = target(tmp_path, *program()).encrypt(b'{"serial": 1}')
    with pytest.raises(EncryptionError, match="given the stored metadata, the program answered no decryption_key"):
        target(tmp_path, *program("no-decryption-key")).decrypt(sealed, "the state")


@pytest.mark.parametrize(("command", "words"), [
    (["./no-such-program"], "cannot run ./no-such-program: no such program"),
    ([str(PROGRAM)], "it is not executable"),  # no executable bit: run as given, never through a shell
    ([], "command must be a list of strings, the program first"),
    (program("odd-key"), "gave a 20-byte encryption key; aes_gcm takes 16, 24 or 32"),
    (program("crash"), "exited with status 3"),
    (program("garbage"), "did not answer with a JSON document after its header"),
    (program("bad-header"), 'its first line is not the header {"magic": "OpenTofu-External-Key-Provider", "version": 1}'),
    ([sys.executable, "-c", "import sys; print('{\"magic\": \"OpenTofu-External-Key-Provider\", \"version\": 2}')"],
     "speaks version 2 of the protocol"),
    ([sys.executable, "-c", "print('{\"magic\": \"OpenTofu-External-Key-Provider\", \"version\": 1}');"
      "print('{\"keys\": {\"encryption_key\": \"AAAA\"}, \"meta\": {}, \"extra\": 1}')"], "answered a document of another shape"),
    ([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], "was killed by signal SIGKILL"),
])
def test_a_program_that_fails_is_one_clear_error(tmp_path: Path, command: list[str], words: str) -> None:
    with pytest.raises(EncryptionError) as err:
        target(tmp_path, *command).encrypt(b"{}")
    assert words in err.value.summary and err.value.summary.startswith("key_provider.external.svc")


def test_a_hung_program_is_stopped_at_the_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTL_ENCRYPTION_COMMAND_TIMEOUT", "1.5")
    with pytest.raises(EncryptionError, match=r"did not answer within 1\.5 seconds and was stopped") as err:
        target(tmp_path, *program("hang")).encrypt(b"{}")
    assert "CTL_ENCRYPTION_COMMAND_TIMEOUT" in err.value.hint


def test_stderr_is_shown_and_keys_never_are(tmp_path: Path) -> None:
    script = ("import sys; print('{\"magic\": \"OpenTofu-External-Key-Provider\", \"version\": 1}');"
              "sys.stderr.write('vault says: permission denied\\n');"
              "print('{\"keys\": {\"encryption_key\": \"c2VjcmV0LWtleS1ieXRlcw==\"}, \"meta\": {}, \"x\": 1}')")
    with pytest.raises(EncryptionError) as err:
        target(tmp_path, sys.executable, "-c", script).encrypt(b"{}")
    assert "vault says: permission denied" in err.value.detail
    shown = f"{err.value.summary} {err.value.detail} {err.value.hint}"
    assert "c2VjcmV0LWtleS1ieXRlcw" not in shown and "secret-key-bytes" not in shown
