"""The local backend: the shared StateStore contract plus what only a file on disk can show."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from backends.base import (
    DEFAULT_WORKSPACE,
    BackendError,
    BackupReader,
    JournalSync,
    LocalStateFile,
    PieceWriter,
    StateConflict,
    StateFileOpener,
)
from backends.local.holders import holder_is_gone, process_alive
from backends.local.store import LocalStore
from tests.backends.contract import StateStoreContract, state_bytes
from vocab.errors import CtlError, LockHeld, UsageError
from vocab.locks import LockInfo


class TestLocalStoreContract(StateStoreContract):
    capabilities = frozenset({PieceWriter, StateFileOpener, JournalSync, BackupReader, LocalStateFile})

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> functools.partial[LocalStore]:
        return functools.partial(LocalStore, tmp_path / "ctl.tfstate")


@pytest.fixture
def store(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


def test_files_are_where_terraform_users_expect_them(store: LocalStore, tmp_path: Path) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write("staging", state_bytes(1), expected=None)
    store.lock("staging", LockInfo())
    store.journal_append("staging", b"{}")
    assert (tmp_path / "ctl.tfstate").read_bytes() == state_bytes(1)
    ws = tmp_path / "ctl.tfstate.d" / "staging"
    assert (ws / "ctl.tfstate").read_bytes() == state_bytes(1)
    assert (ws / "ctl.tfstate.tflock").exists()
    assert (ws / "ctl.tfstate.journal").exists()


def test_a_custom_state_path_is_honoured(tmp_path: Path) -> None:
    custom = LocalStore(tmp_path / "envs" / "prod.tfstate")
    custom.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    custom.write("blue", state_bytes(1), expected=None)
    assert (tmp_path / "envs" / "prod.tfstate").exists()
    assert (tmp_path / "envs" / "ctl.tfstate.d" / "blue" / "prod.tfstate").exists()
    assert custom.describe() == str(tmp_path / "envs" / "prod.tfstate")


def test_write_keeps_the_previous_file_as_backup_and_leaves_no_temp_files(
    store: LocalStore, tmp_path: Path
) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    v2 = store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
    store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v2)
    assert (tmp_path / "ctl.tfstate.backup").read_bytes() == state_bytes(2)
    assert (tmp_path / "ctl.tfstate").read_bytes() == state_bytes(3)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_new_state_files_are_private_to_the_user(store: LocalStore, tmp_path: Path) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert (tmp_path / "ctl.tfstate").stat().st_mode & 0o077 == 0


def test_version_is_the_sha256_of_the_file(store: LocalStore, tmp_path: Path) -> None:
    version = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert version == hashlib.sha256((tmp_path / "ctl.tfstate").read_bytes()).hexdigest()


def test_a_hand_edit_between_read_and_write_is_detected(store: LocalStore, tmp_path: Path) -> None:
    version = store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=None)
    (tmp_path / "ctl.tfstate").write_bytes(state_bytes(3).replace(b'"serial": 3', b'"serial": 4'))
    with pytest.raises(StateConflict) as info:
        store.write(DEFAULT_WORKSPACE, state_bytes(4), expected=version)
    assert str(tmp_path / "ctl.tfstate") in info.value.summary
    assert "serial 4 → 4" in info.value.summary
    assert info.value.hint


def test_conflict_message_names_both_serials(store: LocalStore) -> None:
    v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    store.write(DEFAULT_WORKSPACE, state_bytes(7), expected=v1)
    with pytest.raises(StateConflict, match=r"changed since it was read \(serial 7 → 2\)"):
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)


def test_an_empty_state_file_counts_as_no_state(store: LocalStore, tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate").write_bytes(b"")
    assert store.read(DEFAULT_WORKSPACE) is None
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert store.read(DEFAULT_WORKSPACE) is not None


def test_the_state_file_is_handed_over_open_with_what_a_read_would_give(store: LocalStore, tmp_path: Path) -> None:
    with store.open_state_file(DEFAULT_WORKSPACE) as missing:
        assert missing is None
    (tmp_path / "ctl.tfstate").write_bytes(b"")
    with store.open_state_file(DEFAULT_WORKSPACE) as empty:
        assert empty is None
    data = state_bytes(3)
    version = store.write(DEFAULT_WORKSPACE, data, expected=None)
    with store.open_state_file(DEFAULT_WORKSPACE) as opened:
        assert opened is not None
        assert (opened.version, opened.size, opened.sha256) == (version, len(data), hashlib.sha256(data).digest())
        assert opened.version == store.read(DEFAULT_WORKSPACE).version
        store.write(DEFAULT_WORKSPACE, state_bytes(4), expected=version)  # replaced by a rename meanwhile
        assert opened.file.read() == data  # the open file is still the version it was
    assert opened.file.closed


def test_a_state_path_that_is_a_directory_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate").mkdir()
    with pytest.raises(BackendError, match="is a directory, not a state file"), \
            LocalStore(tmp_path / "ctl.tfstate").open_state_file(DEFAULT_WORKSPACE):
        pass


def test_lock_file_holds_terraform_lock_info_json(store: LocalStore, tmp_path: Path) -> None:
    info = LockInfo(Operation="OperationTypePlan", Info="nightly")
    store.lock(DEFAULT_WORKSPACE, info)
    raw = json.loads((tmp_path / "ctl.tfstate.tflock").read_text())
    assert raw["ID"] == info.ID
    assert raw["Operation"] == "OperationTypePlan"
    assert raw["Path"] == str(tmp_path / "ctl.tfstate")
    assert {"Info", "Who", "Version", "Created"} <= raw.keys()


def test_lock_held_message_says_who_and_how_to_recover(store: LocalStore) -> None:
    info = LockInfo(Operation="OperationTypeApply")
    store.lock(DEFAULT_WORKSPACE, info)
    with pytest.raises(LockHeld) as err:
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    assert info.Who in err.value.summary and info.ID in err.value.summary
    assert f"ctl state unlock {info.ID}" in err.value.hint


def test_a_lock_file_left_empty_by_a_crash_can_be_force_unlocked(store: LocalStore, tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate.tflock").write_bytes(b"")
    with pytest.raises(LockHeld):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    with pytest.raises(CtlError):
        store.unlock(DEFAULT_WORKSPACE, "")
    store.unlock(DEFAULT_WORKSPACE, "", force=True)
    store.lock(DEFAULT_WORKSPACE, LockInfo())


def test_torn_last_journal_line_is_ignored_and_the_next_entry_starts_clean(
    store: LocalStore, tmp_path: Path
) -> None:
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":1}')
    with open(tmp_path / "ctl.tfstate.journal", "ab") as f:  # a crash in the middle of an append
        f.write(b'{"seq":2,"kind":"res')
    assert store.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":1}']
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":3}')
    assert store.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":1}', b'{"seq":3}']


def test_invalid_workspace_names_are_refused(store: LocalStore, tmp_path: Path) -> None:
    for name in ("../escape", "a/b", "", ".hidden"):
        with pytest.raises(UsageError, match="Invalid workspace name"):
            store.write(name, state_bytes(1), expected=None)
    assert not (tmp_path.parent / "escape").exists()


def test_deleting_a_missing_workspace_is_an_error(store: LocalStore) -> None:
    with pytest.raises(CtlError, match='workspace "nope" does not exist'):
        store.delete_workspace("nope")


def test_an_unusable_state_directory_gives_a_clear_error(tmp_path: Path) -> None:
    # A file where the state's directory should be: fails for every user, root included.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    with pytest.raises(BackendError, match="cannot use the state files"):
        LocalStore(blocker / "ctl.tfstate").write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)


def test_a_state_path_that_is_a_directory_gives_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "ctl.tfstate").mkdir()
    with pytest.raises(BackendError, match="is a directory"):
        LocalStore(tmp_path / "ctl.tfstate").read(DEFAULT_WORKSPACE)
    with pytest.raises(BackendError, match="is a directory"):  # the compare of a write reads it too
        LocalStore(tmp_path / "ctl.tfstate").write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)


def test_process_alive_tells_running_from_finished_processes() -> None:
    assert process_alive(os.getpid())
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert not process_alive(int(finished.stdout))
    assert not process_alive(0)


def test_a_lock_left_by_a_dead_local_process_is_recognised(store: LocalStore) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    store.lock(DEFAULT_WORKSPACE, LockInfo(PID=int(finished.stdout)))
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and holder_is_gone(held)
    assert not holder_is_gone(LockInfo())  # this very process
    assert not holder_is_gone(LockInfo(Who="someone@another-host", PID=int(finished.stdout)))



def test_a_streamed_write_stores_the_pieces_and_reports_their_digest(store: LocalStore, tmp_path: Path) -> None:
    first = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    document = state_bytes(2)
    pieces = [document[i : i + 7] for i in range(0, len(document), 7)]  # many small pieces, as a state's are
    written = store.write_pieces(DEFAULT_WORKSPACE, lambda: iter(pieces), expected=first)
    assert (tmp_path / "ctl.tfstate").read_bytes() == document
    assert written.version == hashlib.sha256(document).hexdigest() == store.read(DEFAULT_WORKSPACE).version
    assert written.size == len(document) and written.sha256 == hashlib.sha256(document).digest()
    assert (tmp_path / "ctl.tfstate.backup").read_bytes() == state_bytes(1)


def test_a_streamed_write_that_fails_midway_leaves_the_stored_state_whole(store: LocalStore, tmp_path: Path) -> None:
    first = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)

    def pieces() -> Any:
        yield state_bytes(2)[:20]
        raise ValueError("Out of range float values are not JSON compliant: nan")

    with pytest.raises(ValueError, match="not JSON compliant"):
        store.write_pieces(DEFAULT_WORKSPACE, pieces, expected=first)
    assert (tmp_path / "ctl.tfstate").read_bytes() == state_bytes(1)
    assert store.read(DEFAULT_WORKSPACE).version == first
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_streamed_write_over_a_changed_state_names_both_serials(store: LocalStore) -> None:
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    with pytest.raises(StateConflict, match=r"changed since it was read \(serial 1 → 7\)"):
        store.write_pieces(DEFAULT_WORKSPACE, lambda: (state_bytes(7),), expected="stale")
