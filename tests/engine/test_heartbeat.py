"""The lock heartbeat: renewal while a command holds the lock, the reaction to a broken lock, and how a
lock is judged live or apparently abandoned — on the local store and on S3 (moto)."""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from backends.base import DEFAULT_WORKSPACE, BackendError, LockLost, StateStore
from backends.factory import make_store
from backends.local.store import LocalStore
from engine.locking.describe import (
    abandoned_phrase,
    describe_lock,
    held_summary,
    operation_name,
    release_hint,
    unlock_command,
)
from engine.locking.heartbeat import Heartbeat
from engine.locking.hold import locked
from engine.locking.liveness import human_duration, liveness
from engine.locking.options import LockOptions, heartbeat_interval, stale_after
from tests.servers import MotoServer
from vocab.errors import CtlError, LockHeld, UsageError
from vocab.locks import LockInfo


def _stamp(ago: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=ago)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _wait_for(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture(autouse=True)
def _no_lock_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CTL_LOCK_ID", "CTL_LOCK_HEARTBEAT_SECONDS", "CTL_LOCK_STALE_SECONDS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def local(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


@pytest.fixture
def s3_store(moto_server_clean: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateStore:
    for name, value in moto_server_clean.env.items():
        monkeypatch.setenv(name, value)
    bucket = f"ctl-hb-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=bucket)
    settings = {"bucket": bucket, "key": "stack/ctl.tfstate", "endpoint": moto_server_clean.url,
                "use_path_style": True, "region": "us-east-1"}
    return make_store("s3", settings, tmp_path)


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest) -> StateStore:
    name = "local" if request.param == "local" else "s3_store"
    return request.getfixturevalue(name)


# -- judging a lock -----------------------------------------------------------------------------------


def test_abandoned_wording_names_silence_holder_and_operation() -> None:
    info = LockInfo(Who="ci@runner-7", Operation="OperationTypeApply", Created=_stamp(900),
                    Heartbeat=_stamp(12 * 60 + 5))
    live = liveness(info)
    assert live.abandoned
    assert abandoned_phrase(info, live) == "apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)"
    assert unlock_command(info, live) == f"ctl state unlock --force {info.ID}"
    assert held_summary(info, live).startswith("The state is locked, apparently abandoned (no heartbeat for 12m")
    assert f"ctl state unlock --force {info.ID}" in release_hint(info, live)


def test_a_fresh_lock_keeps_the_plain_unlock_command() -> None:
    info = LockInfo(Who="ci@runner-7", Operation="OperationTypeApply", Created=_stamp(3600), Heartbeat=_stamp(20))
    live = liveness(info)
    assert not live.abandoned  # held for an hour, but renewed 20 s ago: a long apply, not a crash
    assert unlock_command(info, live) == f"ctl state unlock {info.ID}"
    assert release_hint(info, live) == f"If no run is active, release it with: ctl state unlock {info.ID}"
    assert held_summary(info, live) == "The state is locked by ci@runner-7 (OperationTypeApply)"


def test_a_lock_without_heartbeat_is_judged_by_its_creation_time() -> None:
    old = LockInfo(Created=_stamp(400), Heartbeat="")  # as Terraform writes lock files
    assert liveness(old).abandoned
    assert not liveness(dataclasses.replace(old, Created=_stamp(10))).abandoned
    unreadable = LockInfo(ID="", Created="", Heartbeat="")
    assert not liveness(unreadable).abandoned  # no time at all: nothing says it is old
    assert unlock_command(unreadable, liveness(unreadable)) == "ctl state unlock --force <ID>"


def test_stale_threshold_and_interval_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (heartbeat_interval(), stale_after()) == (30.0, 300.0)
    info = LockInfo(Created=_stamp(5), Heartbeat=_stamp(2))
    assert not liveness(info).abandoned
    monkeypatch.setenv("CTL_LOCK_STALE_SECONDS", "1")
    monkeypatch.setenv("CTL_LOCK_HEARTBEAT_SECONDS", "0.25")
    assert (heartbeat_interval(), stale_after()) == (0.25, 1.0)
    assert liveness(info).abandoned
    for bad in ("soon", "0", "-3", "inf"):
        monkeypatch.setenv("CTL_LOCK_STALE_SECONDS", bad)
        with pytest.raises(UsageError, match="CTL_LOCK_STALE_SECONDS must be a positive number"):
            stale_after()


def test_durations_and_operation_names_read_naturally() -> None:
    assert [human_duration(s) for s in (0, 59, 60, 719, 3600 + 300, 2 * 86400 + 7200)] == \
        ["0s", "59s", "1m", "11m", "1h5m", "2d2h"]
    assert operation_name("OperationTypeApply") == "apply"
    assert operation_name("OperationTypeStateMv") == "state mv"
    assert operation_name("OperationTypeSomethingNew") == "somethingnew"
    assert operation_name("") == "an unknown operation"


def test_describe_lock_shows_the_heartbeat_and_the_abandoned_status(local: LocalStore) -> None:
    info = LockInfo(Who="ci@runner-7", Operation="OperationTypeApply", Created=_stamp(800),
                    Heartbeat=_stamp(725), PID=0)
    detail, hint = describe_lock(info, local)
    assert f"Heartbeat: {info.Heartbeat} (12m ago)" in detail
    assert "Status:    apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)" in detail
    assert hint.endswith(f"break it with: ctl state unlock --force {info.ID}")
    fresh = dataclasses.replace(info, Heartbeat=_stamp(1))
    detail, hint = describe_lock(fresh, local)
    assert "Status:" not in detail and hint == f"If no run is active, release it with: ctl state unlock {info.ID}"


def test_a_blocked_run_is_told_the_lock_looks_abandoned(local: LocalStore, monkeypatch: pytest.MonkeyPatch) -> None:
    local.lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply"))
    with pytest.raises(LockHeld) as fresh, locked(local, DEFAULT_WORKSPACE, "OperationTypePlan", LockOptions()):
        pass
    assert "apparently abandoned" not in str(fresh.value)
    monkeypatch.setenv("CTL_LOCK_STALE_SECONDS", "1")
    time.sleep(1.1)
    with pytest.raises(LockHeld) as stale, locked(local, DEFAULT_WORKSPACE, "OperationTypePlan", LockOptions()):
        pass
    held = local.lock_info(DEFAULT_WORKSPACE)
    assert held is not None
    assert re.fullmatch(r"The state is locked, apparently abandoned \(no heartbeat for \ds, held by \S+@\S+ "
                        r"for apply\)", stale.value.summary), stale.value.summary
    assert f"ctl state unlock --force {held.ID}" in stale.value.hint


# -- renewing -----------------------------------------------------------------------------------------


def test_the_heartbeat_advances_while_the_lock_is_held(store: StateStore) -> None:
    info = LockInfo(Operation="OperationTypeApply")
    store.lock(DEFAULT_WORKSPACE, info)
    first = store.lock_info(DEFAULT_WORKSPACE)
    assert first is not None
    with Heartbeat(store, DEFAULT_WORKSPACE, info, interval=0.05) as beat:
        _wait_for(lambda: beat.renewals >= 3)
    seen = store.lock_info(DEFAULT_WORKSPACE)
    assert seen is not None and seen.ID == info.ID and seen.Created == first.Created
    assert seen.Heartbeat > first.Heartbeat  # RFC 3339 UTC with fixed width: text order is time order
    assert beat.lost is None
    renewals = beat.renewals
    time.sleep(0.2)
    assert beat.renewals == renewals  # closed: no renewal after the run ends


def test_a_broken_lock_sets_stop_and_is_reported_with_the_new_holder(store: StateStore) -> None:
    mine = LockInfo(Operation="OperationTypeApply")
    store.lock(DEFAULT_WORKSPACE, mine)
    stop = threading.Event()
    # The break and the new lock happen together, as one takeover: a renewal landing between the two
    # would rightly report the lock as removed rather than replaced.
    takeover = threading.Lock()
    real_renew = store.renew_lock

    def renew_outside_the_takeover(workspace: str, info: LockInfo) -> LockInfo:
        with takeover:
            return real_renew(workspace, info)

    store.renew_lock = renew_outside_the_takeover
    with Heartbeat(store, DEFAULT_WORKSPACE, mine, interval=0.05, stop=stop) as beat:
        _wait_for(lambda: beat.renewals >= 1)
        theirs = LockInfo(Operation="OperationTypeStateLock", Who="ops@laptop")
        with takeover:
            store.unlock(DEFAULT_WORKSPACE, "someone-else", force=True)
            store.lock(DEFAULT_WORKSPACE, theirs)
        assert stop.wait(5)
    assert isinstance(beat.lost, LockLost)
    assert f"the lock {mine.ID}" in beat.lost.summary
    assert f"replaced by lock {theirs.ID} of ops@laptop" in beat.lost.summary
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == theirs.ID  # never renewed (or removed) somebody else's lock


def test_a_failing_renewal_is_retried_not_taken_for_a_broken_lock(
        local: LocalStore, caplog: pytest.LogCaptureFixture) -> None:
    info = LockInfo()
    local.lock(DEFAULT_WORKSPACE, info)
    calls: list[int] = []
    real = local.renew_lock

    def flaky(workspace: str, held: LockInfo) -> LockInfo:
        calls.append(1)
        if len(calls) == 1:
            raise BackendError("cannot reach the store")
        return real(workspace, held)

    local.renew_lock = flaky
    stop = threading.Event()
    with caplog.at_level(logging.WARNING, logger="engine.heartbeat"), \
            Heartbeat(local, DEFAULT_WORKSPACE, info, interval=0.05, stop=stop) as beat:
        _wait_for(lambda: beat.renewals >= 1)
    assert beat.lost is None and not stop.is_set()
    assert any("could not renew the state lock" in r.getMessage() for r in caplog.records)


# -- locked(): every command holding the lock ----------------------------------------------------------


def test_locked_renews_and_releases(store: StateStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTL_LOCK_HEARTBEAT_SECONDS", "0.05")
    with locked(store, DEFAULT_WORKSPACE, "OperationTypeStateMv", LockOptions()) as info:
        assert info is not None
        first = store.lock_info(DEFAULT_WORKSPACE)
        assert first is not None
        _wait_for(lambda: (store.lock_info(DEFAULT_WORKSPACE) or first).Heartbeat > first.Heartbeat)
    assert store.lock_info(DEFAULT_WORKSPACE) is None


def test_locked_raises_lock_lost_after_the_body_when_the_lock_was_broken(
        store: StateStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTL_LOCK_HEARTBEAT_SECONDS", "0.05")
    stop = threading.Event()
    finished = []
    with pytest.raises(LockLost) as lost, \
            locked(store, DEFAULT_WORKSPACE, "OperationTypeApply", LockOptions(), stop=stop) as info:
        assert info is not None
        store.unlock(DEFAULT_WORKSPACE, "x", force=True)
        assert stop.wait(5)  # the body is told to start nothing new …
        finished.append(True)  # … and still runs to its end (finish what runs, persist)
    assert finished == [True]
    assert "was removed (force-unlocked)" in lost.value.summary
    assert lost.value.exit_code == 1
    assert store.lock_info(DEFAULT_WORKSPACE) is None


def test_a_failure_after_a_broken_lock_keeps_its_hint(local: LocalStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTL_LOCK_HEARTBEAT_SECONDS", "0.05")
    stop = threading.Event()
    with pytest.raises(LockLost) as lost, \
            locked(local, DEFAULT_WORKSPACE, "OperationTypeApply", LockOptions(), stop=stop):
        local.unlock(DEFAULT_WORKSPACE, "x", force=True)
        theirs = LockInfo(Who="ops@laptop")
        local.lock(DEFAULT_WORKSPACE, theirs)
        assert stop.wait(5)
        raise CtlError("state changed since it was read", hint="push errored.tfstate")
    assert f"replaced by lock {theirs.ID} of ops@laptop" in lost.value.summary
    assert "Then: state changed since it was read" in lost.value.detail
    assert lost.value.hint == "push errored.tfstate"
    held = local.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == theirs.ID  # the new holder's lock is left alone


def test_a_wrappers_lock_reused_through_ctl_lock_id_is_renewed_and_kept(
        store: StateStore, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = LockInfo(Operation="OperationTypeStateLock", PID=0)
    store.lock(DEFAULT_WORKSPACE, wrapper)
    before = store.lock_info(DEFAULT_WORKSPACE)
    assert before is not None
    monkeypatch.setenv("CTL_LOCK_ID", wrapper.ID)
    monkeypatch.setenv("CTL_LOCK_HEARTBEAT_SECONDS", "0.05")
    with locked(store, DEFAULT_WORKSPACE, "OperationTypeApply", LockOptions()) as info:
        assert info is not None and info.ID == wrapper.ID
        _wait_for(lambda: (store.lock_info(DEFAULT_WORKSPACE) or before).Heartbeat > before.Heartbeat)
    after = store.lock_info(DEFAULT_WORKSPACE)
    assert after is not None and after.ID == wrapper.ID  # still held for the wrapper
    assert after.Heartbeat > before.Heartbeat


def test_no_heartbeat_without_the_lock(local: LocalStore) -> None:
    with locked(local, DEFAULT_WORKSPACE, "OperationTypePlan", LockOptions(enabled=False)) as info:
        assert info is None
    assert not any(t.name.startswith("ctl-lock-heartbeat") for t in threading.enumerate())
