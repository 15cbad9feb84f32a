"""A sealed document opens only with its key and only unchanged."""

from __future__ import annotations

import json
import os

import pytest

from engine.encryption.envelope import header_of, is_encrypted, seal, unseal
from engine.encryption.errors import EncryptionError

KEY = os.urandom(32)
HEADER = {"method": "aes_gcm.main", "key_provider": "pbkdf2.main", "key_meta": {"salt": "x"}}


def sealed(plaintext: bytes = b'{"secret": "hunter2"}') -> bytes:
    return seal(plaintext, KEY, HEADER, {"serial": 3, "lineage": "L"})


def test_round_trip_keeps_facts_readable_and_the_secret_hidden() -> None:
    data = sealed()
    assert b"hunter2" not in data and is_encrypted(data)
    doc = header_of(data, "x")
    assert (doc["serial"], doc["lineage"]) == (3, "L")
    assert unseal(doc, KEY, "x") == b'{"secret": "hunter2"}'


def test_every_write_uses_a_fresh_nonce() -> None:
    assert json.loads(sealed())["encryption"]["nonce"] != json.loads(sealed())["encryption"]["nonce"]


def test_a_wrong_key_is_refused() -> None:
    with pytest.raises(EncryptionError, match="the key is wrong, or the file was changed"):
        unseal(header_of(sealed(), "x"), os.urandom(32), "x")


@pytest.mark.parametrize("change", ["serial", "lineage", "method", "body", "nonce"])
def test_a_changed_header_or_body_is_refused(change: str) -> None:
    doc = json.loads(sealed())
    if change in ("serial", "lineage"):
        doc[change] = 4 if change == "serial" else "M"
    elif change == "method":
        doc["encryption"]["method"] = "aes_gcm.other"
    elif change == "nonce":
        doc["encryption"]["nonce"] = "AAAAAAAAAAAAAAAA"
    else:
        body = bytearray(doc["encrypted_data"].encode())
        body[5] = ord("A") if body[5] != ord("A") else ord("B")
        doc["encrypted_data"] = body.decode()
    with pytest.raises(EncryptionError):
        unseal(header_of(json.dumps(doc).encode(), "x"), KEY, "x")


def test_truncated_and_foreign_documents_are_clear_errors() -> None:
    data = sealed()
    assert not is_encrypted(data[: len(data) // 2])
    with pytest.raises(EncryptionError, match="does not read"):
        header_of(b'{"encryption": {"format": "other"}, "encrypted_data": ""}', "the state")
