"""Taking the state lock: --lock-timeout parsing, waiting with backoff, release, CTL_LOCK_ID reuse."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, LockInfo
from backends.local.store import LocalStore
from engine.locking.acquire import acquire
from engine.locking.hold import held_lock
from engine.locking.options import parse_duration
from vocab.errors import CtlError, ExitCode, LockHeld, UsageError

WS = DEFAULT_WORKSPACE


@pytest.fixture
def store(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0", 0), ("30s", 30), ("5m", 300), ("1h30m", 5400), ("1.5s", 1.5), ("500ms", 0.5), ("2h", 7200)],
)
def test_durations_use_terraforms_syntax(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "30", "5 m", "-1s", "1d", "s", "1h-30m"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_duration(text)
    assert err.value.exit_code == ExitCode.USAGE
    assert "30s" in err.value.hint


def test_timeout_zero_tries_once(store: LocalStore) -> None:
    store.lock(WS, LockInfo(Info="other run"))
    start = time.monotonic()
    with pytest.raises(LockHeld) as err:
        acquire(store, WS, LockInfo(), 0)
    assert time.monotonic() - start < 0.5
    assert err.value.holder is not None and err.value.holder.Info == "other run"
    assert err.value.exit_code == ExitCode.LOCK_HELD


def test_waiting_gives_up_at_the_timeout(store: LocalStore) -> None:
    store.lock(WS, LockInfo())
    start = time.monotonic()
    with pytest.raises(LockHeld) as err:
        acquire(store, WS, LockInfo(), 1.5)
    elapsed = time.monotonic() - start
    assert 1.5 <= elapsed < 2.5
    assert "after waiting 1.5s" in err.value.summary


def test_waiting_succeeds_once_the_holder_releases(store: LocalStore) -> None:
    other = LockInfo(Info="other run")
    store.lock(WS, other)
    releaser = threading.Timer(0.3, store.unlock, args=(WS, other.ID))
    releaser.start()
    mine = LockInfo(Info="mine")
    start = time.monotonic()
    got = acquire(store, WS, mine, 10)
    elapsed = time.monotonic() - start
    releaser.join()
    assert got.ID == mine.ID
    held = store.lock_info(WS)
    assert held is not None and held.ID == mine.ID
    assert 0.9 <= elapsed < 1.9  # second attempt after the first 1 s backoff


def test_held_lock_releases_after_success_and_after_failure(store: LocalStore) -> None:
    with held_lock(store, WS, "OperationTypeApply", "apply") as info:
        held = store.lock_info(WS)
        assert held is not None and held.ID == info.ID and held.Operation == "OperationTypeApply"
    assert store.lock_info(WS) is None
    with pytest.raises(RuntimeError, match="boom"), held_lock(store, WS, "OperationTypeApply"):
        raise RuntimeError("boom")
    assert store.lock_info(WS) is None


def test_held_lock_reports_a_lock_removed_behind_its_back(store: LocalStore) -> None:
    with (
        pytest.raises(CtlError, match="could not release the state lock"),
        held_lock(store, WS, "OperationTypeApply"),
    ):
        store.unlock(WS, "", force=True)
        store.lock(WS, LockInfo(Info="somebody else"))
    held = store.lock_info(WS)
    assert held is not None and held.Info == "somebody else"  # their lock survives


def test_reusing_a_lock_id_checks_it_and_leaves_the_lock(store: LocalStore) -> None:
    wrapper = LockInfo(Info="wrapper script")
    store.lock(WS, wrapper)
    with held_lock(store, WS, "OperationTypeApply", reuse_id=wrapper.ID) as info:
        assert info.ID == wrapper.ID
    held = store.lock_info(WS)
    assert held is not None and held.ID == wrapper.ID


def test_reusing_a_lock_id_that_is_not_held_is_an_error(store: LocalStore) -> None:
    not_locked = pytest.raises(CtlError, match=r"CTL_LOCK_ID is abc but the state .* is not locked")
    with not_locked, held_lock(store, WS, "OperationTypeApply", reuse_id="abc"):
        pass
    store.lock(WS, LockInfo(Info="someone else"))
    with (
        pytest.raises(LockHeld, match="CTL_LOCK_ID is abc"),
        held_lock(store, WS, "OperationTypeApply", reuse_id="abc"),
    ):
        pass
