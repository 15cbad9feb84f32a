"""The StateStore contract: behaviour every backend (local, S3, GCS, Azure) must show.

Use it by subclassing ``StateStoreContract`` in a test module and providing a ``make_store``
fixture that returns a *picklable* zero-argument factory (a top-level function or a
``functools.partial``). Each call must return a new client for the same, initially empty storage:
two calls stand for two ctl processes sharing one backend, and the race tests call the factory in
freshly spawned processes.

    class TestLocalStore(StateStoreContract):
        @pytest.fixture
        def make_store(self, tmp_path):
            return functools.partial(LocalStore, tmp_path / "ctl.tfstate")
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from typing import Any

import pytest

from backends.base import DEFAULT_WORKSPACE, LockInfo, StateConflict, StateStore
from engine.errors import CtlError, ExitCode, LockHeld

StoreFactory = Callable[[], StateStore]
RACERS = 8


def state_bytes(serial: int, lineage: str = "3f2b8f0e-5d1c-4c43-9a49-8d1f0c7f6a11", **extra: Any) -> bytes:
    """A small but valid version 4 state document."""
    doc = {
        "version": 4,
        "terraform_version": "1.5.0",
        "serial": serial,
        "lineage": lineage,
        "outputs": {},
        "resources": [],
        **extra,
    }
    return json.dumps(doc, indent=2).encode() + b"\n"


class StateStoreContract:
    """The shared test suite; subclasses provide the ``make_store`` fixture."""

    @pytest.fixture
    def make_store(self) -> StoreFactory:
        raise NotImplementedError("a backend's test module provides the make_store fixture")

    @pytest.fixture
    def store(self, make_store: StoreFactory) -> StateStore:
        return make_store()

    # -- state documents ------------------------------------------------------------------------

    def test_reading_a_missing_state_gives_none(self, store: StateStore) -> None:
        assert store.read(DEFAULT_WORKSPACE) is None

    def test_written_state_reads_back_with_the_returned_version(self, store: StateStore) -> None:
        data = state_bytes(1)
        version = store.write(DEFAULT_WORKSPACE, data, expected=None)
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None
        assert snap.data == data
        assert snap.version == version

    def test_each_write_gives_a_new_version(self, store: StateStore) -> None:
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        v2 = store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        assert v1 != v2
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.version == v2 and snap.data == state_bytes(2)

    def test_write_against_a_stale_version_is_refused_and_changes_nothing(self, store: StateStore) -> None:
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        with pytest.raises(StateConflict) as info:
            store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v1)
        assert "changed since it was read" in info.value.summary
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.data == state_bytes(2)

    def test_creating_a_state_that_already_exists_is_refused(self, store: StateStore) -> None:
        store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        with pytest.raises(StateConflict):
            store.write(DEFAULT_WORKSPACE, state_bytes(1, lineage="other"), expected=None)
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.data == state_bytes(1)

    def test_two_clients_cannot_both_write_from_the_same_read(self, make_store: StoreFactory) -> None:
        first, second = make_store(), make_store()
        first.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        seen_by_first = first.read(DEFAULT_WORKSPACE)
        seen_by_second = second.read(DEFAULT_WORKSPACE)
        assert seen_by_first is not None and seen_by_second is not None
        second.write(DEFAULT_WORKSPACE, state_bytes(2), expected=seen_by_second.version)
        with pytest.raises(StateConflict):
            first.write(
                DEFAULT_WORKSPACE, state_bytes(2, lineage="lost-update"), expected=seen_by_first.version
            )

    def test_the_replaced_state_is_kept_as_a_backup(self, store: StateStore) -> None:
        read_backup = getattr(store, "read_backup", None)
        if read_backup is None:
            pytest.skip("this store keeps backups in a way the contract cannot read (object versioning)")
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        assert read_backup(DEFAULT_WORKSPACE) == state_bytes(1)

    # -- locks ----------------------------------------------------------------------------------

    def test_lock_is_visible_and_released_by_unlock(self, store: StateStore) -> None:
        info = LockInfo(Operation="OperationTypeApply", Info="contract test")
        store.lock(DEFAULT_WORKSPACE, info)
        held = store.lock_info(DEFAULT_WORKSPACE)
        assert held is not None
        assert (held.ID, held.Operation, held.Info, held.Who) == (
            info.ID,
            info.Operation,
            info.Info,
            info.Who,
        )
        store.unlock(DEFAULT_WORKSPACE, info.ID)
        assert store.lock_info(DEFAULT_WORKSPACE) is None
        store.lock(DEFAULT_WORKSPACE, LockInfo())  # free again

    def test_second_lock_is_refused_with_the_holders_info(self, make_store: StoreFactory) -> None:
        mine, theirs = make_store(), make_store()
        first = LockInfo(Operation="OperationTypeApply", Info="first")
        mine.lock(DEFAULT_WORKSPACE, first)
        with pytest.raises(LockHeld) as info:
            theirs.lock(DEFAULT_WORKSPACE, LockInfo(Info="second"))
        assert info.value.exit_code == ExitCode.LOCK_HELD
        holder = info.value.holder  # type: ignore[attr-defined]
        assert holder.ID == first.ID and holder.Info == "first"
        assert first.ID in str(info.value)

    def test_unlock_with_a_wrong_id_is_refused_and_the_lock_stays(self, store: StateStore) -> None:
        info = LockInfo()
        store.lock(DEFAULT_WORKSPACE, info)
        with pytest.raises(CtlError) as err:
            store.unlock(DEFAULT_WORKSPACE, "not-the-id")
        assert not isinstance(err.value, LockHeld)
        assert "not-the-id" in err.value.summary and info.ID in err.value.summary
        held = store.lock_info(DEFAULT_WORKSPACE)
        assert held is not None and held.ID == info.ID

    def test_force_unlock_removes_any_lock(self, make_store: StoreFactory) -> None:
        holder, rescuer = make_store(), make_store()
        holder.lock(DEFAULT_WORKSPACE, LockInfo())
        rescuer.unlock(DEFAULT_WORKSPACE, "whatever", force=True)
        assert rescuer.lock_info(DEFAULT_WORKSPACE) is None

    def test_unlocking_an_unlocked_state_is_an_error(self, store: StateStore) -> None:
        with pytest.raises(CtlError):
            store.unlock(DEFAULT_WORKSPACE, "no-such-lock")

    def test_locks_are_per_workspace(self, store: StateStore) -> None:
        store.lock(DEFAULT_WORKSPACE, LockInfo())
        other = LockInfo()
        store.lock("staging", other)  # not blocked by the default workspace's lock
        held = store.lock_info("staging")
        assert held is not None and held.ID == other.ID

    # -- workspaces -----------------------------------------------------------------------------

    def test_default_workspace_is_always_listed(self, store: StateStore) -> None:
        assert store.workspaces() == [DEFAULT_WORKSPACE]

    def test_workspaces_are_listed_isolated_and_deletable(self, store: StateStore) -> None:
        store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        store.write("staging", state_bytes(7), expected=None)
        store.write("prod", state_bytes(9), expected=None)
        assert store.workspaces() == [DEFAULT_WORKSPACE, "prod", "staging"]
        snap = store.read("staging")
        assert snap is not None and snap.data == state_bytes(7)
        store.delete_workspace("staging")
        assert store.workspaces() == [DEFAULT_WORKSPACE, "prod"]
        assert store.read("staging") is None
        default = store.read(DEFAULT_WORKSPACE)
        assert default is not None and default.data == state_bytes(1)

    def test_the_default_workspace_cannot_be_deleted(self, store: StateStore) -> None:
        with pytest.raises(CtlError):
            store.delete_workspace(DEFAULT_WORKSPACE)

    # -- journal --------------------------------------------------------------------------------

    def test_journal_keeps_entries_in_order_until_cleared(self, store: StateStore) -> None:
        assert store.journal_read(DEFAULT_WORKSPACE) == []
        entries = [json.dumps({"seq": i, "kind": "intent"}).encode() for i in range(1, 6)]
        for entry in entries:
            store.journal_append(DEFAULT_WORKSPACE, entry)
        assert store.journal_read(DEFAULT_WORKSPACE) == entries
        assert store.journal_read("staging") == []
        store.journal_clear(DEFAULT_WORKSPACE)
        assert store.journal_read(DEFAULT_WORKSPACE) == []
        store.journal_clear(DEFAULT_WORKSPACE)  # clearing an empty journal is fine

    def test_journal_entries_must_be_single_lines(self, store: StateStore) -> None:
        with pytest.raises(ValueError):
            store.journal_append(DEFAULT_WORKSPACE, b'{"a":\n1}')
        assert store.journal_read(DEFAULT_WORKSPACE) == []

    # -- races between processes ----------------------------------------------------------------

    def test_exactly_one_of_many_racing_processes_gets_the_lock(self, make_store: StoreFactory) -> None:
        results = _race(_race_lock, make_store)
        winners = [r for r in results if r[0] == "won"]
        assert len(winners) == 1, results
        assert sorted(r[0] for r in results) == ["held"] * (RACERS - 1) + ["won"]
        held = make_store().lock_info(DEFAULT_WORKSPACE)
        assert held is not None and winners[0][1] == held.ID
        # every loser was told who won
        assert {r[1] for r in results if r[0] == "held"} == {winners[0][1]}

    def test_exactly_one_of_many_racing_writes_from_one_read_succeeds(self, make_store: StoreFactory) -> None:
        store = make_store()
        base = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        results = _race(_race_write, make_store, base)
        assert sorted(r[0] for r in results) == ["conflict"] * (RACERS - 1) + ["won"], results
        winner = next(r for r in results if r[0] == "won")
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.version == winner[1]


def _race(target: Callable[..., None], make_store: StoreFactory, *args: Any) -> list[tuple[str, str]]:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(RACERS)
    queue = ctx.Queue()
    procs = [ctx.Process(target=target, args=(make_store, i, barrier, queue, *args)) for i in range(RACERS)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    return results


def _race_lock(make_store: StoreFactory, i: int, barrier: Any, queue: Any) -> None:
    store = make_store()
    info = LockInfo(Info=f"racer {i}")
    barrier.wait()
    try:
        store.lock(DEFAULT_WORKSPACE, info)
        queue.put(("won", info.ID))
    except LockHeld as exc:
        queue.put(("held", exc.holder.ID))  # type: ignore[attr-defined]
    except Exception as exc:  # reported, so the test shows it instead of hanging
        queue.put(("error", repr(exc)))


def _race_write(make_store: StoreFactory, i: int, barrier: Any, queue: Any, base: str) -> None:
    store = make_store()
    data = state_bytes(2, racer=i)
    barrier.wait()
    try:
        queue.put(("won", store.write(DEFAULT_WORKSPACE, data, expected=base)))
    except StateConflict:
        queue.put(("conflict", ""))
    except Exception as exc:
        queue.put(("error", repr(exc)))
