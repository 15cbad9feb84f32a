"""A sealed document opens only with its key and only unchanged, in OpenTofu's layout and ctl's earlier one."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
from engine.encryption.envelope import header_of, is_encrypted, looks_sealed, seal, unseal
from engine.encryption.errors import EncryptionError
from engine.encryption.store import EncryptingStore
from engine.encryption.target import Target

KEY = os.urandom(32)
META = {"key_provider.pbkdf2.main": {"salt": "c2FsdA==", "iterations": 200_000, "hash_function": "sha512", "key_length": 32}}
# Written by ctl before it wrote OpenTofu's layout (passphrase below, serial 4): it must stay readable.
LEGACY = Path(__file__).parent / "data" / "ctl-aes-gcm-v1.tfstate"
PASSPHRASE = "sixteen-characters!"


def sealed(plaintext: bytes = b'{"secret": "hunter2"}') -> bytes:
    return seal(plaintext, KEY, META, {"serial": 3, "lineage": "L"})


def test_the_layout_is_opentofus() -> None:
    doc = json.loads(sealed())
    assert list(doc) == ["serial", "lineage", "meta", "encrypted_data", "encryption_version"]
    assert doc["encryption_version"] == "v0"
    assert json.loads(base64.b64decode(doc["meta"]["key_provider.pbkdf2.main"])) == META["key_provider.pbkdf2.main"]
    assert len(base64.b64decode(doc["encrypted_data"])) == 12 + len(b'{"secret": "hunter2"}') + 16  # nonce, tag


def test_round_trip_keeps_facts_readable_and_the_secret_hidden() -> None:
    data = sealed()
    assert b"hunter2" not in data and is_encrypted(data)
    parsed = header_of(data, "x")
    assert (parsed.doc["serial"], parsed.doc["lineage"]) == (3, "L")
    assert parsed.metas == META and not parsed.legacy
    assert unseal(parsed, KEY, "x") == b'{"secret": "hunter2"}'


def test_every_write_uses_a_fresh_nonce() -> None:
    nonces = {base64.b64decode(json.loads(sealed())["encrypted_data"])[:12] for _ in range(3)}
    assert len(nonces) == 3


def test_a_wrong_key_is_refused() -> None:
    with pytest.raises(EncryptionError, match="cannot decrypt x: the key is wrong, or the file was changed"):
        unseal(header_of(sealed(), "x"), os.urandom(32), "x")


@pytest.mark.parametrize("at", [0, 5, 12, -1])  # the nonce, the ciphertext, the tag
def test_a_changed_byte_of_the_sealed_data_is_refused(at: int) -> None:
    doc = json.loads(sealed())
    raw = bytearray(base64.b64decode(doc["encrypted_data"]))
    raw[at] ^= 1
    doc["encrypted_data"] = base64.b64encode(bytes(raw)).decode()
    with pytest.raises(EncryptionError, match="the key is wrong, or the file was changed"):
        unseal(header_of(json.dumps(doc).encode(), "x"), KEY, "x")


def test_truncated_foreign_and_future_documents_are_clear_errors() -> None:
    data = sealed()
    assert not is_encrypted(data[: len(data) // 2]) and looks_sealed(data[: len(data) // 2])
    with pytest.raises(EncryptionError, match="is encrypted but damaged"):
        header_of(data[: len(data) // 2], "the state")
    with pytest.raises(EncryptionError, match="does not read"):
        header_of(b'{"encryption": {"format": "other"}, "encrypted_data": ""}', "the state")
    future = json.loads(data)
    future["encryption_version"] = "v1"
    with pytest.raises(EncryptionError, match='encryption_version "v1"; ctl reads "v0"'):
        header_of(json.dumps(future).encode(), "the state")


def test_a_state_in_ctls_earlier_layout_is_still_read_and_rewritten_in_opentofus(tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate").write_bytes(LEGACY.read_bytes())
    keys = KeyProviderConfig("pbkdf2", "main", {"passphrase": PASSPHRASE, "iterations": 200_000})
    store = EncryptingStore(LocalStore(tmp_path / "ctl.tfstate"),
                            Target("state", TargetConfig(MethodConfig("aes_gcm", "main", keys))))
    snap = store.read(DEFAULT_WORKSPACE)
    assert snap is not None and json.loads(snap.data)["serial"] == 4
    assert store.needs_rewrite(DEFAULT_WORKSPACE)  # the next apply writes it again, in OpenTofu's layout
    store.write(DEFAULT_WORKSPACE, snap.data, expected=snap.version)
    assert json.loads((tmp_path / "ctl.tfstate").read_bytes())["encryption_version"] == "v0"
    assert json.loads(store.read(DEFAULT_WORKSPACE).data)["lineage"] == "0c5b1d5e-legacy-layout"
    assert not store.needs_rewrite(DEFAULT_WORKSPACE)


def test_the_earlier_layout_still_authenticates_its_header(tmp_path: Path) -> None:
    doc = json.loads(LEGACY.read_bytes())
    doc["encryption"]["method"] = "aes_gcm.other"
    (tmp_path / "ctl.tfstate").write_text(json.dumps(doc))
    keys = KeyProviderConfig("pbkdf2", "main", {"passphrase": PASSPHRASE, "iterations": 200_000})
    store = EncryptingStore(LocalStore(tmp_path / "ctl.tfstate"),
                            Target("state", TargetConfig(MethodConfig("aes_gcm", "main", keys))))
    with pytest.raises(EncryptionError, match="the key is wrong, or the file was changed"):
        store.read(DEFAULT_WORKSPACE)
