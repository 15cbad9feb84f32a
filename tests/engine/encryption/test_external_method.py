"""OpenTofu's ``external`` encryption method: programs encrypt and decrypt the payload, with or without a
key provider's key; the file keeps OpenTofu's layout, and a failing program is one error with its stderr."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from engine.encryption.errors import EncryptionError
from engine.encryption.lookup import target_in
from engine.encryption.store import EncryptingStore
from engine.encryption.target import Target

PROGRAM = Path(__file__).parent / "data" / "method_program.py"
KEYS = 'key_provider "pbkdf2" "k" {\n passphrase = "a passphrase of 16+"\n iterations = 200000\n}\n'
METHOD = ('method "external" "x" {\n encrypt_command = %s\n decrypt_command = %s\n%s}\n')
AES = 'method "aes_gcm" "a" {\n keys = key_provider.pbkdf2.k\n}\n'


@pytest.fixture(autouse=True)
def method_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METHOD_PROGRAM_KEY", "33" * 32)


def external(keys: bool = False) -> str:
    run = [sys.executable, str(PROGRAM)]
    return METHOD % (json.dumps([*run, "--encrypt"]), json.dumps([*run, "--decrypt"]),
                     " keys = key_provider.pbkdf2.k\n" if keys else "")


def target(tmp_path: Path, body: str, state: str = "method = method.external.x") -> Target:
    (tmp_path / "main.tf").write_text("terraform {\n  encryption {\n" + body + "state {\n" + state + "\n}\n  }\n}\n")
    found = target_in(tmp_path, "state")
    assert found is not None
    return found


@pytest.mark.parametrize("keys", [False, True])
def test_the_program_encrypts_and_decrypts_in_opentofus_layout(tmp_path: Path, keys: bool) -> None:
    sealed = target(tmp_path, KEYS + external(keys)).encrypt(b'{"serial": 1}', {"serial": 1})
    doc = json.loads(sealed)
    assert doc["encryption_version"] == "v0" and doc["serial"] == 1
    assert set(doc["meta"]) == ({"key_provider.pbkdf2.k"} if keys else set())
    assert b"serial\": 1}" not in base64.b64decode(doc["encrypted_data"])
    assert target(tmp_path, KEYS + external(keys)).decrypt(sealed, "the state") == b'{"serial": 1}'


def test_a_program_refusing_to_decrypt_is_one_error_with_its_stderr(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    sealed = target(tmp_path, external()).encrypt(b"{}")
    monkeypatch.setenv("METHOD_PROGRAM_KEY", "44" * 32)
    with pytest.raises(EncryptionError) as err:
        target(tmp_path, external()).decrypt(sealed, "the state")
    assert err.value.summary.startswith("method.external.x (decrypt_command): ") and "exited with status 1" in \
        err.value.summary
    assert "authentication failed (wrong key?)" in err.value.detail


def test_a_state_read_through_an_external_fallback_is_rewritten_by_the_method(tmp_path: Path) -> None:
    store = EncryptingStore(LocalStore(tmp_path / "ctl.tfstate"), target(tmp_path, external()))
    store.write(DEFAULT_WORKSPACE, b'{"serial": 1, "lineage": "L"}', expected=None)
    rotating = EncryptingStore(LocalStore(tmp_path / "ctl.tfstate"), target(
        tmp_path, KEYS + AES + external(), "method = method.aes_gcm.a\nfallback {\n method = method.external.x\n}"))
    snap = rotating.read(DEFAULT_WORKSPACE)
    assert snap is not None and rotating.needs_rewrite(DEFAULT_WORKSPACE)
    rotating.write(DEFAULT_WORKSPACE, snap.data, expected=snap.version)
    assert set(json.loads((tmp_path / "ctl.tfstate").read_bytes())["meta"]) == {"key_provider.pbkdf2.k"}
    assert not rotating.needs_rewrite(DEFAULT_WORKSPACE)
    rotating.read(DEFAULT_WORKSPACE)
    assert not rotating.needs_rewrite(DEFAULT_WORKSPACE)  # read by the method itself now


@pytest.mark.parametrize(("body", "words"), [
    ('method "external" "x" {\n decrypt_command = ["d"]\n}\n', 'method "external" "x": encrypt_command must be a list'),
    ('method "external" "x" {\n encrypt_command = ["e"]\n decrypt_command = "d"\n}\n', "decrypt_command must be a list"),
    ('method "external" "x" {\n encrypt_command = ["e"]\n decrypt_command = ["d"]\n keys = key_provider.pbkdf2.no\n}\n',
     "pbkdf2.no is not a key provider"),
])
def test_mistakes_in_the_method_are_clear_errors_at_the_setting(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(EncryptionError, match=words.replace(".", r"\.")) as err:
        target(tmp_path, body)
    assert err.value.range is not None and err.value.range.start.line >= 3
