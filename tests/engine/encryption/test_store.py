"""The encrypting store over a real local backend: what reaches the disk, and what it refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, BackupReader, LocalStateFile, PieceWriter, StateFileOpener
from backends.local.store import LocalStore
from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
from engine.encryption.errors import EncryptionError
from engine.encryption.store import EncryptingStore, encrypting_store
from engine.encryption.target import Target
from engine.state.encode import encode_state
from engine.state.manager import ERRORED_STATE_FILE, StateManager
from engine.state.model import new_state

SECRET = "hunter2-in-state"


def pbkdf2(name: str, passphrase: str) -> MethodConfig:
    keys = KeyProviderConfig("pbkdf2", name, {"passphrase": passphrase, "iterations": 200_000})
    return MethodConfig("aes_gcm", name, keys)


def store_at(tmp_path: Path, method: MethodConfig, fallback: MethodConfig | None = None) -> EncryptingStore:
    return encrypting_store(LocalStore(tmp_path / "ctl.tfstate"), Target("state", TargetConfig(method, fallback)),
                           tmp_path / ".ctl")


def state_bytes(serial: int, lineage: str = "L") -> bytes:
    state = new_state()
    state.serial, state.lineage = serial, lineage
    doc = json.loads(encode_state(state))
    doc["outputs"] = {"pw": {"value": SECRET, "type": "string", "sensitive": True}}
    return json.dumps(doc).encode()


def every_file(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_state_history_and_journal_reach_the_disk_sealed(tmp_path: Path) -> None:
    store = store_at(tmp_path, pbkdf2("a", "sixteen-characters!"))
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    first = store.inner.read(DEFAULT_WORKSPACE)
    assert first is not None
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=first.version)
    store.journal_append(DEFAULT_WORKSPACE, json.dumps({"kind": "intent", "address": "x", "pw": SECRET}).encode())
    assert not [p for p in every_file(tmp_path) if SECRET.encode() in p.read_bytes()]
    assert json.loads(store.read(DEFAULT_WORKSPACE).data)["serial"] == 2
    assert SECRET.encode() in store.read_history(DEFAULT_WORKSPACE, 1)
    assert [json.loads(e)["pw"] for e in store.journal_read(DEFAULT_WORKSPACE)] == [SECRET]
    assert [e.serial for e in store.history(DEFAULT_WORKSPACE)] == [1]  # facts readable without the key


def test_an_old_version_put_back_is_refused(tmp_path: Path) -> None:
    store = store_at(tmp_path, pbkdf2("a", "sixteen-characters!"))
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    shutil.copy(tmp_path / "ctl.tfstate", tmp_path / "old")
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=store.inner.read(DEFAULT_WORKSPACE).version)
    shutil.copy(tmp_path / "old", tmp_path / "ctl.tfstate")
    with pytest.raises(EncryptionError, match="serial 1, older than serial 2"):
        store.read(DEFAULT_WORKSPACE)


def test_a_header_moved_onto_another_state_is_refused(tmp_path: Path) -> None:
    store = store_at(tmp_path, pbkdf2("a", "sixteen-characters!"))
    sealed = json.loads(store.seal_state(state_bytes(5, "L")))
    sealed["serial"] = 6  # the facts beside the ciphertext are checked against the state inside it
    (tmp_path / "ctl.tfstate").write_text(json.dumps(sealed))
    with pytest.raises(EncryptionError, match=r"serial \(5\) differs from its header \(6\)"):
        store.read(DEFAULT_WORKSPACE)
    assert json.loads((tmp_path / "ctl.tfstate").read_text())["serial"] == 6  # nothing written over it


def test_rotation_reads_with_the_fallback_and_rewrites_with_the_new_key(tmp_path: Path) -> None:
    old, new = pbkdf2("old", "the-old-passphrase!"), pbkdf2("new", "the-new-passphrase!")
    store_at(tmp_path, old).write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    with pytest.raises(EncryptionError, match=r"encrypted with key_provider\.pbkdf2\.old"):
        store_at(tmp_path, new).read(DEFAULT_WORKSPACE)
    rotating = store_at(tmp_path, new, fallback=old)
    snap = rotating.read(DEFAULT_WORKSPACE)
    assert snap is not None and rotating.needs_rewrite(DEFAULT_WORKSPACE)
    rotating.write(DEFAULT_WORKSPACE, state_bytes(2), expected=snap.version)
    assert json.loads(store_at(tmp_path, new).read(DEFAULT_WORKSPACE).data)["serial"] == 2


def test_plaintext_is_read_only_through_an_unencrypted_fallback(tmp_path: Path) -> None:
    LocalStore(tmp_path / "ctl.tfstate").write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    with pytest.raises(EncryptionError, match="is not encrypted") as err:
        store_at(tmp_path, pbkdf2("a", "sixteen-characters!")).read(DEFAULT_WORKSPACE)
    assert err.value.hint == ('To encrypt existing plaintext, add method "unencrypted" "NAME" {} to the encryption '
                              "block and fallback { method = method.unencrypted.NAME } to its state block, run "
                              "once, then remove them.")  # HCL's braces, each printed once
    migrating = store_at(tmp_path, pbkdf2("a", "sixteen-characters!"), MethodConfig("unencrypted", "u", None))
    assert migrating.read(DEFAULT_WORKSPACE) is not None and migrating.needs_rewrite(DEFAULT_WORKSPACE)


class _WriteFails(LocalStore):
    """A local store whose state writes fail, as a full disk or a revoked permission would."""

    def write(self, workspace: str, data: bytes, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")


def test_the_errored_state_is_sealed_too(tmp_path: Path) -> None:
    target = Target("state", TargetConfig(pbkdf2("a", "sixteen-characters!")))
    store = encrypting_store(_WriteFails(tmp_path / "ctl.tfstate"), target, tmp_path / ".ctl")
    manager = StateManager(store, errored_dir=tmp_path)
    state = manager.load()
    with pytest.raises(Exception, match="No space left on device"):
        manager.persist(state)
    errored = (tmp_path / ERRORED_STATE_FILE).read_bytes()
    assert b"encrypted_data" in errored
    assert json.loads(store.open_state(errored, "errored"))["lineage"] == state.lineage


class _GainedAMethod(LocalStore):
    """A backend that gained a method the wrapper has not been taught: it hands over stored bytes."""

    def stored_bytes(self, workspace: str) -> bytes:
        snap = self.read(workspace)
        return b"" if snap is None else snap.data


def test_a_store_method_the_wrapper_does_not_write_out_is_not_reachable_through_it(tmp_path: Path) -> None:
    inner = _GainedAMethod(tmp_path / "ctl.tfstate")
    store = encrypting_store(inner, Target("state", TargetConfig(pbkdf2("a", "sixteen-characters!"))),
                             tmp_path / ".ctl")
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert SECRET.encode() not in inner.stored_bytes(DEFAULT_WORKSPACE)
    for name in ("stored_bytes", "write_pieces", "open_state_file", "path"):
        assert hasattr(inner, name)
        with pytest.raises(AttributeError):
            getattr(store, name)
    assert not isinstance(store, PieceWriter) and not isinstance(store, StateFileOpener)
    assert isinstance(store, BackupReader) and isinstance(store, LocalStateFile)  # sealed, or a path only
    assert store.state_path(DEFAULT_WORKSPACE) == inner.state_path(DEFAULT_WORKSPACE)
    assert store.read_backup(DEFAULT_WORKSPACE) is None
