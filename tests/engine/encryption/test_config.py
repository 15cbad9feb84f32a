"""The encryption block and CTL_ENCRYPTION: what is accepted, and a positioned error for the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.loader import load_config
from engine.encryption import encryption_config
from engine.encryption.errors import EncryptionError
from engine.encryption.lookup import target_in

BLOCK = """
key_provider "pbkdf2" "main" {
  passphrase = "%s"
  iterations = 200000
}
method "aes_gcm" "main" {
  keys = key_provider.pbkdf2.main
}
method "unencrypted" "old" {}
state {
  method = method.aes_gcm.main
  fallback {
    method = method.unencrypted.old
  }
  enforced = %s
}
"""


def config_in(tmp_path: Path, body: str) -> Path:
    (tmp_path / "main.tf").write_text("terraform {\n  encryption {\n" + body + "\n  }\n}\n")
    return tmp_path


def test_the_block_gives_state_method_fallback_and_enforcement(tmp_path: Path) -> None:
    root, _ = load_config(config_in(tmp_path, BLOCK % ("a passphrase of 16+", "true")))
    config = encryption_config(root, {})
    assert config is not None and config.state is not None and config.plan is None
    assert config.state.method.ref == "aes_gcm.main" and config.state.fallback is not None
    assert config.state.method.keys is not None and config.state.method.keys.ref == "pbkdf2.main"
    assert config.state.enforced


def test_the_environment_alone_configures_encryption(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('output "x" {\n  value = 1\n}\n')
    root, _ = load_config(tmp_path)
    config = encryption_config(root, {"CTL_ENCRYPTION": BLOCK % ("a passphrase of 16+", "false")})
    assert config is not None and config.state is not None and not config.state.enforced


@pytest.mark.parametrize(("body", "words"), [
    (BLOCK % ("short", "false"), "at least 16 characters"),
    ('key_provider "rot13" "x" {}', 'Unknown key provider "rot13"'),
    ('method "aes_gcm" "m" {}', "needs keys = key_provider.TYPE.NAME"),
    ('method "aes_gcm" "m" {\n keys = key_provider.pbkdf2.nope\n}', "pbkdf2.nope is not a key provider"),
    ('method "unencrypted" "u" {}\nstate {\n method = method.unencrypted.u\n enforced = true\n}',
     "enforced but its method is unencrypted"),
    ('key_provider "pbkdf2" "k" {\n passphrase = var.p\n}\nmethod "aes_gcm" "m" {\n keys = key_provider.pbkdf2.k\n}\n'
     'state {\n method = method.aes_gcm.m\n}', "must be constants"),
])
def test_mistakes_are_clear_errors(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(EncryptionError, match=words.replace("(", r"\(").replace(".", r"\.")):
        target = target_in(config_in(tmp_path, body), "state")
        assert target is not None
        target.encrypt(b"{}")
