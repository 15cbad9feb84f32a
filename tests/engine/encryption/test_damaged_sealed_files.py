"""Sealed files damaged on purpose: each is one clear error (or a skipped journal line), fast."""

from __future__ import annotations

import base64
import json
import logging
import time
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
from engine.encryption.errors import EncryptionError
from engine.encryption.keys import MAX_ITERATIONS, Pbkdf2
from engine.encryption.store import EncryptingStore, encrypting_store
from engine.encryption.target import Target
from engine.state.encode import encode_state
from engine.state.journal import Journal, parse_entries
from engine.state.model import new_state

PASSPHRASE = "sixteen-characters!"


def pbkdf2(name: str = "a", passphrase: str = PASSPHRASE, **settings: object) -> MethodConfig:
    keys = KeyProviderConfig("pbkdf2", name, {"passphrase": passphrase, "iterations": 200_000, **settings})
    return MethodConfig("aes_gcm", name, keys)


def store_at(tmp_path: Path, method: MethodConfig | None = None, fallback: MethodConfig | None = None) -> EncryptingStore:
    return encrypting_store(LocalStore(tmp_path / "ctl.tfstate"),
                           Target("state", TargetConfig(method or pbkdf2(), fallback)), tmp_path / ".ctl")


def with_iterations(path: Path, stored: str) -> None:
    """Write ``stored`` (JSON text) as the iteration count in the file's key metadata."""
    doc = json.loads(path.read_bytes())
    meta = base64.b64decode(doc["meta"]["key_provider.pbkdf2.a"]).replace(b'"iterations":200000',
                                                                           b'"iterations":' + stored.encode())
    doc["meta"]["key_provider.pbkdf2.a"] = base64.b64encode(meta).decode()
    path.write_text(json.dumps(doc))


def sealed_state(tmp_path: Path) -> Path:
    state = new_state()
    state.serial, state.lineage = 1, "L"
    store_at(tmp_path).write(DEFAULT_WORKSPACE, encode_state(state), expected=None)
    return tmp_path / "ctl.tfstate"


@pytest.mark.parametrize("stored", ["Infinity", "-Infinity", "NaN", "1e400", "2.5e5", "true", '"600000"'])
def test_an_iteration_count_that_is_not_a_whole_number_is_damage(tmp_path: Path, stored: str) -> None:
    path = sealed_state(tmp_path)
    with_iterations(path, stored)
    with pytest.raises(EncryptionError, match=r"the stored metadata of key_provider\.pbkdf2\.a is damaged") as err:
        store_at(tmp_path).read(DEFAULT_WORKSPACE)
    assert err.value.summary.startswith("the state at ")  # names the file it read


def test_a_huge_iteration_count_is_refused_at_once_naming_the_cap(tmp_path: Path) -> None:
    path = sealed_state(tmp_path)
    with_iterations(path, "59999999")
    started = time.monotonic()
    with pytest.raises(EncryptionError) as err:
        store_at(tmp_path).read(DEFAULT_WORKSPACE)
    assert time.monotonic() - started < 5  # no key is derived with a count an attacker chose
    assert "asks for 59,999,999 PBKDF2 iterations" in err.value.summary
    assert f"{MAX_ITERATIONS:,}" in err.value.summary and "Restore" in err.value.hint


def test_the_configuration_cannot_ask_for_more_than_the_cap() -> None:
    provider = Pbkdf2(KeyProviderConfig("pbkdf2", "a", {"passphrase": PASSPHRASE, "iterations": MAX_ITERATIONS + 1}))
    with pytest.raises(EncryptionError, match=f"iterations must be a whole number from 200,000 to {MAX_ITERATIONS:,}"):
        provider.write_key()


@pytest.mark.parametrize("keep", [0.9, 0.5, 0.1])
@pytest.mark.parametrize("fallback", [None, MethodConfig("unencrypted", "old", None)])
def test_a_truncated_sealed_state_is_called_damaged(tmp_path: Path, keep: float,
                                                     fallback: MethodConfig | None) -> None:
    path = sealed_state(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])
    with pytest.raises(EncryptionError) as err:
        store_at(tmp_path, fallback=fallback).read(DEFAULT_WORKSPACE)
    assert "is encrypted but damaged: it is truncated" in err.value.summary
    assert "not encrypted" not in err.value.summary and "fallback" not in err.value.hint


def journal_of(store: EncryptingStore, count: int) -> Journal:
    journal = Journal(store, DEFAULT_WORKSPACE, lineage="L", base_serial=0)
    for n in range(count):
        journal.record_intent(f"terraform_data.x[{n}]", "create")
    return journal


@pytest.mark.parametrize("damage", ["cut", "flip", "garbage", "plaintext"])
def test_one_damaged_line_of_a_sealed_journal_is_skipped_with_a_warning(
        tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    store = store_at(tmp_path)
    journal_of(store, 3)
    path = tmp_path / "ctl.tfstate.journal"
    lines = path.read_bytes().split(b"\n")
    if damage == "cut":
        lines[1] = lines[1][: len(lines[1]) // 2]
    elif damage == "flip":
        doc = json.loads(lines[1])
        doc["encrypted_data"] = ("B" if doc["encrypted_data"][0] == "A" else "A") + doc["encrypted_data"][1:]
        lines[1] = json.dumps(doc, separators=(",", ":")).encode()
    elif damage == "garbage":
        lines[1] = b"\x00\xff not a line"
    else:  # an unauthenticated entry slipped in among sealed ones
        lines[1] = b'{"seq":2,"kind":"intent","op":"delete","address":"terraform_data.x[1]"}'
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level(logging.WARNING):
        entries = parse_entries(store_at(tmp_path).journal_read(DEFAULT_WORKSPACE))
    assert [e["address"] for e in entries] == ["terraform_data.x[0]", "terraform_data.x[2]"]
    assert "1 unreadable entry (line 2), skipped" in caplog.text


def test_a_sealed_journal_read_with_the_wrong_key_still_stops(tmp_path: Path) -> None:
    journal_of(store_at(tmp_path), 2)
    with pytest.raises(EncryptionError, match="cannot decrypt entry 1 of the apply journal: the key is wrong"):
        store_at(tmp_path, pbkdf2(passphrase="another-passphrase!")).journal_read(DEFAULT_WORKSPACE)


def test_a_plaintext_journal_under_enforced_encryption_stops(tmp_path: Path) -> None:
    journal_of(LocalStore(tmp_path / "ctl.tfstate"), 2)
    with pytest.raises(EncryptionError, match="entry 1 of the apply journal is not encrypted"):
        store_at(tmp_path).journal_read(DEFAULT_WORKSPACE)
