"""Encryption over a real backend: what the store holds is sealed, and it reads back whole.

Each backend's test module calls ``check_encrypted_round_trip`` with its own store, so the
encrypting wrapper is exercised against S3 (moto), GCS (fake-gcs-server), Azure Blob (Azurite)
and the local file system alike.
"""

from __future__ import annotations

import json

from backends.base import DEFAULT_WORKSPACE, StateStore
from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
from engine.encryption.store import EncryptingStore
from engine.encryption.target import Target
from tests.backends.contract import state_bytes

SECRET = "s3cr3t-in-the-bucket"


def check_encrypted_round_trip(store: StateStore) -> None:
    keys = KeyProviderConfig("pbkdf2", "k", {"passphrase": "sixteen-characters!", "iterations": 200_000})
    sealed = EncryptingStore(store, Target("state", TargetConfig(MethodConfig("aes_gcm", "k", keys))))
    first = state_bytes(1, outputs={"pw": {"value": SECRET, "type": "string", "sensitive": True}})
    version = sealed.write(DEFAULT_WORKSPACE, first, expected=None)
    sealed.write(DEFAULT_WORKSPACE, state_bytes(2), expected=version)
    sealed.journal_append(DEFAULT_WORKSPACE, json.dumps({"kind": "intent", "address": "a", "pw": SECRET}).encode())
    raw = store.read(DEFAULT_WORKSPACE)
    assert raw is not None and b"encrypted_data" in raw.data and SECRET.encode() not in raw.data
    assert all(SECRET.encode() not in line for line in store.journal_read(DEFAULT_WORKSPACE))
    assert json.loads(sealed.read(DEFAULT_WORKSPACE).data)["serial"] == 2  # type: ignore[union-attr]
    assert SECRET.encode() not in store.read_history(DEFAULT_WORKSPACE, 1)
    assert SECRET.encode() in sealed.read_history(DEFAULT_WORKSPACE, 1)
    assert [e.serial for e in store.history(DEFAULT_WORKSPACE)][-1:] == [1]
    assert json.loads(sealed.journal_read(DEFAULT_WORKSPACE)[0])["pw"] == SECRET
