"""The local lock file appears whole or not at all, whenever the run taking it is killed.

A child process takes the lock and is sent SIGKILL at the moment chosen: just before the lock's
content is linked into place, or just after. Both leave something the next run understands.
"""

from __future__ import annotations

import errno
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, LockInfo
from backends.local import files as local_files
from backends.local.holders import holder_is_gone
from backends.local.store import LocalStore
from vocab.errors import LockHeld

ROOT = Path(__file__).resolve().parents[2]

_LOCK_AND_DIE = """
import os, signal, sys
from pathlib import Path
from backends.base import DEFAULT_WORKSPACE, LockInfo
from backends.local.store import LocalStore

link = os.link
def link_and_die(src, dst):
    if sys.argv[2] == "after":
        link(src, dst)
    os.kill(os.getpid(), signal.SIGKILL)
os.link = link_and_die
LocalStore(Path(sys.argv[1])).lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply"))
"""


def _lock_and_die(state: Path, moment: str) -> None:
    """Take the lock in a child killed ``before`` or ``after`` the lock file is linked into place."""
    child = subprocess.run(
        [sys.executable, "-c", _LOCK_AND_DIE, str(state), moment], cwd=ROOT, capture_output=True, text=True
    )
    assert child.returncode == -signal.SIGKILL, child.stderr


def _lock_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "tflock" in p.name)


def test_a_run_killed_before_the_lock_appears_leaves_no_lock(tmp_path: Path) -> None:
    state = tmp_path / "ctl.tfstate"
    _lock_and_die(state, "before")
    assert _lock_files(tmp_path) == [".ctl.tfstate.tflock.new"]  # the scratch only: nobody is locked out
    store = LocalStore(state)
    assert store.lock_info(DEFAULT_WORKSPACE) is None
    mine = LockInfo()
    store.lock(DEFAULT_WORKSPACE, mine)  # the dead run's scratch is rewritten, then removed
    assert _lock_files(tmp_path) == ["ctl.tfstate.tflock"]
    store.unlock(DEFAULT_WORKSPACE, mine.ID)
    assert _lock_files(tmp_path) == []


def test_a_run_killed_after_the_lock_appears_leaves_a_lock_naming_it(tmp_path: Path) -> None:
    state = tmp_path / "ctl.tfstate"
    _lock_and_die(state, "after")
    store = LocalStore(state)
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.Operation == "OperationTypeApply"
    assert holder_is_gone(held)  # so the next run says the holder no longer runs, with its ID
    with pytest.raises(LockHeld, match=held.ID):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    store.unlock(DEFAULT_WORKSPACE, held.ID)
    store.lock(DEFAULT_WORKSPACE, LockInfo())
    assert _lock_files(tmp_path) == ["ctl.tfstate.tflock"]


def test_without_hard_links_the_lock_is_still_exclusive_and_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: str, dst: str) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")  # what FAT and some FUSE mounts answer

    monkeypatch.setattr(local_files.os, "link", no_links)
    store = LocalStore(tmp_path / "ctl.tfstate")
    first = LockInfo(Info="first")
    store.lock(DEFAULT_WORKSPACE, first)
    with pytest.raises(LockHeld, match=first.ID):
        store.lock(DEFAULT_WORKSPACE, LockInfo())
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.Info == "first"
    assert _lock_files(tmp_path) == ["ctl.tfstate.tflock"]


def test_a_symbolic_link_at_the_scratch_name_is_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / ".ctl.tfstate.tflock.new").symlink_to(target)
    store = LocalStore(tmp_path / "ctl.tfstate")
    mine = LockInfo()
    store.lock(DEFAULT_WORKSPACE, mine)
    assert target.read_text() == "keep"
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == mine.ID
    assert _lock_files(tmp_path) == ["ctl.tfstate.tflock"]
