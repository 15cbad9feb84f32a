"""A key provider chained from another (OpenTofu's ``chain``): the upstream key is the passphrase, and
both key providers' metadata is stored, so the chain derives the same key again from the file alone."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engine.encryption.errors import EncryptionError
from engine.encryption.lookup import target_in

OUTER = 'key_provider "pbkdf2" "outer" {\n passphrase = "a passphrase of 16+"\n iterations = 200000\n}\n'
INNER = 'key_provider "pbkdf2" "inner" {\n chain = %s\n iterations = 200000\n key_length = %d\n}\n'
METHOD = 'method "aes_gcm" "m" {\n keys = key_provider.pbkdf2.inner\n}\nstate {\n method = method.aes_gcm.m\n}\n'


def config_in(tmp_path: Path, body: str) -> Path:
    (tmp_path / "main.tf").write_text("terraform {\n  encryption {\n" + body + "\n  }\n}\n")
    return tmp_path


def test_the_chained_key_is_pbkdf2_of_the_upstream_key_and_both_metas_are_stored(tmp_path: Path) -> None:
    # Declared after the key provider that uses it, as OpenTofu allows.
    target = target_in(config_in(tmp_path, INNER % ("key_provider.pbkdf2.outer", 32) + OUTER + METHOD), "state")
    assert target is not None
    sealed = target.encrypt(b'{"serial": 1}')
    metas = {k: json.loads(base64.b64decode(v)) for k, v in json.loads(sealed)["meta"].items()}
    assert set(metas) == {"key_provider.pbkdf2.outer", "key_provider.pbkdf2.inner"}
    outer, inner = metas["key_provider.pbkdf2.outer"], metas["key_provider.pbkdf2.inner"]
    upstream = hashlib.pbkdf2_hmac("sha512", b"a passphrase of 16+", base64.b64decode(outer["salt"]), 200_000, 32)
    expected = hashlib.pbkdf2_hmac("sha512", upstream, base64.b64decode(inner["salt"]), 200_000, 32)
    data = base64.b64decode(json.loads(sealed)["encrypted_data"])
    assert AESGCM(expected).decrypt(data[:12], data[12:], None) == b'{"serial": 1}'  # OpenTofu's derivation
    again = target_in(tmp_path, "state")  # a later run: nothing cached, everything from the file
    assert again is not None and again.decrypt(sealed, "the state") == b'{"serial": 1}'


def test_a_file_without_the_upstream_metadata_is_a_clear_error(tmp_path: Path) -> None:
    target = target_in(config_in(tmp_path, OUTER + INNER % ("key_provider.pbkdf2.outer", 32) + METHOD), "state")
    assert target is not None
    doc = json.loads(target.encrypt(b'{"serial": 1}'))
    del doc["meta"]["key_provider.pbkdf2.outer"]
    with pytest.raises(EncryptionError, match=r"the state: the stored metadata has nothing under "
                                              r"key_provider\.pbkdf2\.outer"):
        target.decrypt(json.dumps(doc).encode(), "the state")


@pytest.mark.parametrize(("body", "words"), [
    (INNER % ("key_provider.pbkdf2.inner", 32) + METHOD, "key_provider.pbkdf2.inner is chained from itself: "
     "key_provider.pbkdf2.inner -> key_provider.pbkdf2.inner"),
    (INNER % ("key_provider.pbkdf2.x", 32) + 'key_provider "pbkdf2" "x" {\n chain = key_provider.pbkdf2.inner\n}\n'
     + METHOD, "chained from itself: key_provider.pbkdf2.inner -> key_provider.pbkdf2.x -> key_provider.pbkdf2.inner"),
    (INNER % ("key_provider.pbkdf2.nope", 32) + METHOD, "key_provider.pbkdf2.nope is not a key provider defined"),
    (INNER % ("var.x", 32) + METHOD, "expected a reference of the form key_provider.TYPE.NAME"),
    (OUTER + 'key_provider "pbkdf2" "inner" {\n chain = key_provider.pbkdf2.outer\n passphrase = "also sixteen chars"\n}\n'
     + METHOD, "passphrase and chain are mutually exclusive"),
    (OUTER + 'key_provider "aws_kms" "inner" {\n chain = key_provider.pbkdf2.outer\n}\n'
     + METHOD.replace("pbkdf2.inner", "aws_kms.inner"), 'key_provider "aws_kms" "inner" takes no chain'),
    (OUTER + INNER % ("key_provider.pbkdf2.outer", 20) + METHOD, "gave a 20-byte encryption key; aes_gcm takes 16, 24 or 32"),
    (OUTER.replace("pbkdf2\" \"outer\" {\n", "pbkdf2\" \"outer\" {\n key_length = 8\n") + INNER % ("key_provider.pbkdf2.outer", 32)
     + METHOD, "the key of key_provider.pbkdf2.outer, which it is chained from, is 8 bytes"),
])
def test_mistakes_in_a_chain_are_clear_errors(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(EncryptionError, match=words.replace(".", r"\.").replace("(", r"\(")) as err:
        target = target_in(config_in(tmp_path, body), "state")
        assert target is not None
        target.encrypt(b"{}")
    assert "Traceback" not in str(err.value)
