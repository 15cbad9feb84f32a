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


VAR_BLOCK = ('key_provider "pbkdf2" "k" {\n passphrase = %s\n iterations = 200000\n}\n'
             'method "aes_gcm" "m" {\n keys = key_provider.pbkdf2.k\n}\nstate {\n method = method.aes_gcm.m\n}')


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
    ('key_provider "gcp_kms" "x" {}', 'ctl does not support OpenTofu\'s key provider "gcp_kms"'),
    ('method "aes_gcm" "m" {}', "needs keys = key_provider.TYPE.NAME"),
    ('method "aes_gcm" "m" {\n keys = key_provider.pbkdf2.nope\n}', "pbkdf2.nope is not a key provider"),
    ('method "unencrypted" "u" {}\nstate {\n method = method.unencrypted.u\n enforced = true\n}',
     "enforced but its method is unencrypted"),
    (VAR_BLOCK % "var.p", "refers to var.p, which is not declared"),
    (VAR_BLOCK % "local.p", "must be constants or input variables"),
    ('method "aes_gcm" "m" {\n keys = key_provider.pbkdf2.k\n aad = "x"\n}', "aad"),
])
def test_mistakes_are_clear_errors(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(EncryptionError, match=words.replace("(", r"\(").replace(".", r"\.")):
        target = target_in(config_in(tmp_path, body), "state")
        assert target is not None
        target.encrypt(b"{}")


@pytest.mark.parametrize(("given", "source"), [
    ({"TF_VAR_p": "from the environment!"}, None),
    ({}, 'p = "from a tfvars file!!"'),
    ({}, None),
])
def test_a_passphrase_may_come_from_an_input_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      given: dict[str, str], source: str | None) -> None:
    """As in OpenTofu: ``passphrase = var.p`` takes the variable's value (environment, .tfvars, default)."""
    config_in(tmp_path, VAR_BLOCK % "var.p")
    with (tmp_path / "main.tf").open("a") as fh:
        fh.write('variable "p" {\n  type      = string\n  sensitive = true\n  default   = "the default value!!"\n}\n')
    if source is not None:
        (tmp_path / "terraform.tfvars").write_text(source + "\n")
    for name in ("TF_VAR_p", "CTL_VAR_p"):
        monkeypatch.delenv(name, raising=False)
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    root, _ = load_config(tmp_path)
    config = encryption_config(root)
    assert config is not None and config.state is not None and config.state.method.keys is not None
    expected = given.get("TF_VAR_p") or ("from a tfvars file!!" if source else "the default value!!")
    assert config.state.method.keys.settings["passphrase"] == expected


def test_a_variable_without_a_value_says_where_to_give_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_in(tmp_path, VAR_BLOCK % "var.p")
    (tmp_path / "variables.tf").write_text('variable "p" {\n  type = string\n}\n')
    for name in ("TF_VAR_p", "CTL_VAR_p"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(EncryptionError, match=r"needs a value for var\.p") as err:
        target_in(tmp_path, "state")
    assert "TF_VAR_p" in err.value.hint and str(err.value.range) == "main.tf:4:15"  # at var.p
