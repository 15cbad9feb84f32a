"""What the local backend adds to the contract for history, heartbeats and the probe: where the files
are, and how it copes with a state file changed behind its back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.local.store import LocalStore
from tests.backends.contract import NonExclusiveLocalStore, state_bytes
from vocab.locks import LockInfo, who_am_i


@pytest.fixture
def store(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


def test_history_files_sit_beside_the_state(store: LocalStore, tmp_path: Path) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    store.write("staging", state_bytes(5), expected=None)
    history = tmp_path / "ctl.tfstate.history"
    assert sorted(p.name for p in history.iterdir()) == ["1.json", "1.tfstate", "current.json"]
    assert (history / "1.tfstate").read_bytes() == state_bytes(1)
    sidecar = json.loads((history / "1.json").read_text())
    assert sidecar["serial"] == 1 and sidecar["who"] == who_am_i()
    assert (tmp_path / "ctl.tfstate.d" / "staging" / "ctl.tfstate.history" / "current.json").exists()
    assert store.workspaces() == [DEFAULT_WORKSPACE, "staging"]  # history folders are not workspaces


def test_a_state_changed_outside_ctl_is_kept_with_an_unknown_writer(
    store: LocalStore, tmp_path: Path
) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    (tmp_path / "ctl.tfstate").write_bytes(state_bytes(3))  # an editor, a git checkout
    edited = store.read(DEFAULT_WORKSPACE)
    assert edited is not None
    store.write(DEFAULT_WORKSPACE, state_bytes(4), expected=edited.version)
    (entry,) = store.history(DEFAULT_WORKSPACE)
    assert entry.serial == 3 and entry.who.startswith("unknown")


def test_a_lost_sidecar_is_recomputed_from_the_kept_document(store: LocalStore, tmp_path: Path) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1, resources=[{"mode": "managed"}]), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    (tmp_path / "ctl.tfstate.history" / "1.json").unlink()
    (entry,) = store.history(DEFAULT_WORKSPACE)
    assert (entry.serial, entry.resources, entry.who) == (1, 1, "unknown")


def test_a_document_without_a_serial_is_still_kept(store: LocalStore, tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate").write_bytes(b"not a state at all")
    current = store.read(DEFAULT_WORKSPACE)
    assert current is not None
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=current.version)
    assert store.read_history(DEFAULT_WORKSPACE, 0) == b"not a state at all"


def test_renewal_rewrites_the_lock_file_in_place(store: LocalStore, tmp_path: Path) -> None:
    info = LockInfo(Operation="OperationTypeApply")
    store.lock(DEFAULT_WORKSPACE, info)
    renewed = store.renew_lock(DEFAULT_WORKSPACE, info)
    raw = json.loads((tmp_path / "ctl.tfstate.tflock").read_text())
    assert raw["ID"] == info.ID and raw["Heartbeat"] == renewed.Heartbeat
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_probe_leaves_no_scratch_file(store: LocalStore, tmp_path: Path) -> None:
    store.probe()
    assert not [p for p in tmp_path.iterdir() if ".probe-" in p.name]


def test_the_probe_names_the_missing_guarantee_and_cleans_up(tmp_path: Path) -> None:
    broken = NonExclusiveLocalStore(tmp_path / "ctl.tfstate")
    with pytest.raises(BackendError, match=r"does not refuse a second exclusive create \(hard link or O_CREAT\|O_EXCL\)"):
        broken.probe()
    assert not [p for p in tmp_path.iterdir() if ".probe-" in p.name]
