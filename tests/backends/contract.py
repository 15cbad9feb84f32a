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

Stores built on ``backends.objectstore.store.ObjectStateStore`` (S3, GCS, Azure) are additionally checked
for what only a remote store can get wrong: an unlock whose read went stale must not delete the
newer lock. A backend whose server cannot check that (fake-gcs-server ignores preconditions on
delete) sets ``conditional_delete_limit`` to the reason, and the test says so instead of passing.

A backend names the optional capabilities it has (``capabilities``, the Protocols of
``backends.base``). Each one is tested on the plain store and on the store wrapped for encryption
(``engine.encryption``): the wrapper must claim exactly the capabilities it can keep sealed, and
every one it claims must leave only ciphertext in the backend and give the plaintext back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest

from backends.base import (
    DEFAULT_WORKSPACE,
    BackendError,
    BackupReader,
    JournalSync,
    LocalStateFile,
    LockLost,
    LockMismatch,
    PieceWriter,
    SealedStore,
    StateConflict,
    StateFileOpener,
    StateStore,
)
from backends.local.store import LocalStore
from backends.objectstore.objects import StoredObject
from backends.objectstore.store import ObjectStateStore
from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
from engine.encryption.store import encrypting_store
from engine.encryption.target import Target
from vocab.errors import CtlError, ExitCode, LockHeld
from vocab.locks import LockInfo, who_am_i

StoreFactory = Callable[[], StateStore]
RACERS = 8
SECRET = "s3cr3t-in-the-bucket"

# Every optional capability a store may claim, and those a store wrapped for encryption may claim
# only when the store it wraps has them (the others it claims over any store, or never).
CAPABILITIES: tuple[type, ...] = (PieceWriter, StateFileOpener, JournalSync, BackupReader, LocalStateFile, SealedStore)
SEALED_WHEN_WRAPPED_HAS = frozenset({BackupReader, LocalStateFile})
SEALED_ALWAYS = frozenset({JournalSync, SealedStore})


@dataclasses.dataclass(frozen=True)
class Layered:
    """The store under test (``store``) and the backend's own store beneath it (``raw``: the same one
    when not encrypted), to look at what is at rest."""

    store: StateStore
    raw: StateStore
    encrypted: bool


def sealing(store: StateStore, seen_dir: Path) -> StateStore:
    """``store`` wrapped as a configuration with an ``encryption`` block wraps it."""
    keys = KeyProviderConfig("pbkdf2", "k", {"passphrase": "sixteen-characters!", "iterations": 200_000})
    return encrypting_store(store, Target("state", TargetConfig(MethodConfig("aes_gcm", "k", keys))), seen_dir)


def claimed(store: StateStore) -> frozenset[type]:
    return frozenset(c for c in CAPABILITIES if isinstance(store, c))


def secret_state(serial: int) -> bytes:
    return state_bytes(serial, outputs={"pw": {"value": SECRET, "type": "string", "sensitive": True}})


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


def _rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class NonExclusiveLocalStore(LocalStore):
    """A deliberately broken store: its "exclusive" create overwrites (like a filesystem that ignores
    O_EXCL, or an S3-compatible server that ignores If-None-Match)."""

    def _create_exclusive(self, path: Path, data: bytes) -> None:
        path.write_bytes(data)


class BlindSwapLocalStore(LocalStore):
    """A deliberately broken store: its compare-and-swap never compares."""

    def _matches(self, current: str | None, expected: str | None) -> bool:
        return True


def broken_copy(store: StateStore, guarantee: str) -> StateStore:
    """A client of the same storage that ignores one guarantee: ``create`` or ``swap``.

    Local stores get the broken subclasses above; object stores get their condition dropped from
    every put, which is what a server that ignores the condition headers does.
    """
    if isinstance(store, LocalStore):
        cls = NonExclusiveLocalStore if guarantee == "create" else BlindSwapLocalStore
        return cls(store.path)
    if isinstance(store, ObjectStateStore):
        honest_put = store._put

        def careless_put(key: str, data: bytes, **kwargs: Any) -> str:
            if guarantee == "create":
                kwargs["if_absent"] = False
            else:
                kwargs["if_match"] = None
            return honest_put(key, data, **kwargs)

        store._put = careless_put
        return store
    raise TypeError(f"no broken variant of {type(store).__name__}")


class StateStoreContract:
    """The shared test suite; subclasses provide the ``make_store`` fixture."""

    # Set by a backend whose test server cannot check a conditional delete: the reason, said in the skip.
    conditional_delete_limit: str = ""
    # The optional capabilities (Protocols of backends.base) the backend's store has.
    capabilities: ClassVar[frozenset[type]] = frozenset()

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
        holder = info.value.holder
        assert holder is not None
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

    # -- lock heartbeats ------------------------------------------------------------------------

    def test_a_new_lock_has_its_heartbeat_at_its_creation(self, store: StateStore) -> None:
        before = datetime.now(UTC) - timedelta(seconds=5)  # some slack for a server's clock
        store.lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply"))
        held = store.lock_info(DEFAULT_WORKSPACE)
        assert held is not None and held.Heartbeat and held.Heartbeat == held.Created
        assert _rfc3339(held.Heartbeat) >= before

    def test_renewing_advances_the_heartbeat_and_keeps_the_rest(self, make_store: StoreFactory) -> None:
        holder, observer = make_store(), make_store()
        info = LockInfo(Operation="OperationTypeApply", Info="long apply")
        holder.lock(DEFAULT_WORKSPACE, info)
        first = observer.lock_info(DEFAULT_WORKSPACE)
        assert first is not None
        time.sleep(0.01)
        renewed = holder.renew_lock(DEFAULT_WORKSPACE, info)
        assert _rfc3339(renewed.Heartbeat) > _rfc3339(first.Heartbeat)
        seen = observer.lock_info(DEFAULT_WORKSPACE)
        assert seen is not None and seen.Heartbeat == renewed.Heartbeat
        assert dataclasses.replace(seen, Heartbeat="") == dataclasses.replace(first, Heartbeat="")
        time.sleep(0.01)
        again = holder.renew_lock(DEFAULT_WORKSPACE, renewed)  # renewing with what renewal returned
        assert _rfc3339(again.Heartbeat) > _rfc3339(renewed.Heartbeat)

    def test_renewing_a_force_unlocked_lock_reports_it_lost(self, make_store: StoreFactory) -> None:
        holder, rescuer = make_store(), make_store()
        info = LockInfo()
        holder.lock(DEFAULT_WORKSPACE, info)
        rescuer.unlock(DEFAULT_WORKSPACE, "", force=True)
        with pytest.raises(LockLost) as err:
            holder.renew_lock(DEFAULT_WORKSPACE, info)
        assert info.ID in err.value.summary and "removed" in err.value.summary
        assert err.value.exit_code == ExitCode.ERROR
        assert holder.lock_info(DEFAULT_WORKSPACE) is None  # renewal never re-creates a broken lock

    def test_renewing_a_replaced_lock_reports_it_lost_and_leaves_the_new_one(
        self, make_store: StoreFactory
    ) -> None:
        holder, rescuer = make_store(), make_store()
        mine, theirs = LockInfo(), LockInfo(Who="ci@runner-7", Operation="OperationTypeApply")
        holder.lock(DEFAULT_WORKSPACE, mine)
        rescuer.unlock(DEFAULT_WORKSPACE, "", force=True)
        rescuer.lock(DEFAULT_WORKSPACE, theirs)
        before = rescuer.lock_info(DEFAULT_WORKSPACE)
        with pytest.raises(LockLost) as err:
            holder.renew_lock(DEFAULT_WORKSPACE, mine)
        assert theirs.ID in err.value.summary and "ci@runner-7" in err.value.summary
        assert rescuer.lock_info(DEFAULT_WORKSPACE) == before

    def test_renewing_a_workspace_that_was_never_locked_reports_it_lost(self, store: StateStore) -> None:
        with pytest.raises(LockLost):
            store.renew_lock(DEFAULT_WORKSPACE, LockInfo())

    # -- unlock results -------------------------------------------------------------------------

    def test_unlock_returns_the_lock_it_removed(self, store: StateStore) -> None:
        info = LockInfo(Operation="OperationTypeApply", Info="release me")
        store.lock(DEFAULT_WORKSPACE, info)
        removed = store.unlock(DEFAULT_WORKSPACE, info.ID)
        assert (removed.ID, removed.Who, removed.Operation, removed.Info) == (
            info.ID,
            info.Who,
            info.Operation,
            info.Info,
        )
        assert removed.Heartbeat  # as stored, not as passed in

    def test_a_forced_unlock_returns_who_held_the_lock(self, make_store: StoreFactory) -> None:
        holder, rescuer = make_store(), make_store()
        info = LockInfo(Who="ci@runner-7", Operation="OperationTypeApply")
        holder.lock(DEFAULT_WORKSPACE, info)
        removed = rescuer.unlock(DEFAULT_WORKSPACE, "not-their-id", force=True)
        assert (removed.ID, removed.Who) == (info.ID, "ci@runner-7")

    def test_unlock_with_a_wrong_id_raises_lock_mismatch_naming_the_holder(self, store: StateStore) -> None:
        info = LockInfo(Who="ci@runner-7")
        store.lock(DEFAULT_WORKSPACE, info)
        with pytest.raises(LockMismatch) as err:
            store.unlock(DEFAULT_WORKSPACE, "not-the-id")
        assert err.value.holder.ID == info.ID and err.value.holder.Who == "ci@runner-7"
        assert err.value.exit_code == ExitCode.ERROR
        assert "ci@runner-7" in err.value.summary

    def test_an_unlock_whose_read_went_stale_never_deletes_the_newer_lock(
        self, make_store: StoreFactory
    ) -> None:
        """The slow-unlock race: A reads its lock, A's lock is broken, B locks, A's delete arrives."""
        holder, rescuer = make_store(), make_store()
        if not isinstance(holder, ObjectStateStore):
            pytest.skip("the local store reads, checks and deletes under one flock: nothing can go stale")
        if self.conditional_delete_limit:
            pytest.skip(self.conditional_delete_limit)
        mine, theirs = LockInfo(), LockInfo(Who="ci@runner-7")
        holder.lock(DEFAULT_WORKSPACE, mine)
        lock_key = holder._lock_key(DEFAULT_WORKSPACE)
        stale = holder._get(lock_key)
        assert stale is not None
        rescuer.unlock(DEFAULT_WORKSPACE, "", force=True)
        rescuer.lock(DEFAULT_WORKSPACE, theirs)
        reads: list[StoredObject | None] = [stale]
        honest_get = holder._get

        def first_read_is_stale(key: str, **kwargs: Any) -> StoredObject | None:
            return reads.pop() if key == lock_key and reads else honest_get(key, **kwargs)

        holder._get = first_read_is_stale
        with pytest.raises(LockMismatch) as err:  # the delete was refused; the re-read shows B
            holder.unlock(DEFAULT_WORKSPACE, mine.ID)
        assert err.value.holder.ID == theirs.ID
        held = rescuer.lock_info(DEFAULT_WORKSPACE)
        assert held is not None and held.ID == theirs.ID

    # -- history --------------------------------------------------------------------------------

    def test_every_write_keeps_the_version_it_replaces(self, store: StateStore) -> None:
        assert store.history(DEFAULT_WORKSPACE) == []
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        assert store.history(DEFAULT_WORKSPACE) == []  # nothing was replaced yet
        v2 = store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v2)
        history = store.history(DEFAULT_WORKSPACE)
        assert [e.serial for e in history] == [1, 2]
        assert store.read_history(DEFAULT_WORKSPACE, 1) == state_bytes(1)
        assert store.read_history(DEFAULT_WORKSPACE, 2) == state_bytes(2)
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.data == state_bytes(3)

    def test_history_entries_say_who_wrote_each_version_when_and_what_it_held(
        self, store: StateStore
    ) -> None:
        started = datetime.now(UTC) - timedelta(seconds=5)
        resources = [{"mode": "managed", "type": "t", "name": f"r{i}", "instances": []} for i in range(3)]
        first = state_bytes(4, resources=resources, ctl_version="9.8.7")
        v1 = store.write(DEFAULT_WORKSPACE, first, expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(5), expected=v1)
        (entry,) = store.history(DEFAULT_WORKSPACE)
        assert (entry.serial, entry.resources, entry.version, entry.who) == (4, 3, "9.8.7", who_am_i())
        assert started <= _rfc3339(entry.time) <= datetime.now(UTC) + timedelta(seconds=5)

    def test_the_current_entry_describes_the_state_before_it_is_replaced(self, store: StateStore) -> None:
        assert store.current_entry(DEFAULT_WORKSPACE) is None
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(6, ctl_version="1.2.3"), expected=None)
        current = store.current_entry(DEFAULT_WORKSPACE)
        assert current is not None
        assert (current.serial, current.version, current.who, current.policy_override) == (6, "1.2.3", who_am_i(), "")
        store.write(DEFAULT_WORKSPACE, state_bytes(7), expected=v1)
        (kept,) = store.history(DEFAULT_WORKSPACE)
        assert (kept.serial, kept.time, kept.who) == (current.serial, current.time, current.who)

    def test_a_policy_override_is_kept_with_the_version_it_wrote(self, store: StateStore) -> None:
        reason = "CHG-1234: bucket stays public for the launch — approved by Ana Núñez"
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None, policy_override=reason)
        assert store.current_entry(DEFAULT_WORKSPACE).policy_override == reason
        v2 = store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v2)
        first, second = store.history(DEFAULT_WORKSPACE)
        assert (first.serial, first.policy_override) == (1, reason)
        assert (second.serial, second.policy_override) == (2, "")  # the next run gave no override

    def test_a_very_long_override_is_kept_shortened_not_refused(self, store: StateStore) -> None:
        reason = "approved: " + "ü" * 3000
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None, policy_override=reason)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        (kept,) = store.history(DEFAULT_WORKSPACE)
        assert kept.policy_override.startswith("approved: üü")
        assert reason.startswith(kept.policy_override.rstrip("…"))

    def test_history_is_kept_per_workspace(self, store: StateStore) -> None:
        v1 = store.write("staging", state_bytes(1), expected=None)
        store.write("staging", state_bytes(2), expected=v1)
        assert [e.serial for e in store.history("staging")] == [1]
        assert store.history(DEFAULT_WORKSPACE) == []

    def test_a_refused_write_adds_nothing_to_the_history(self, store: StateStore) -> None:
        v1 = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        with pytest.raises(StateConflict):
            store.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v1)
        assert [e.serial for e in store.history(DEFAULT_WORKSPACE)] == [1]

    def test_reading_a_serial_that_is_not_kept_is_a_clear_error(self, store: StateStore) -> None:
        store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        with pytest.raises(CtlError, match="serial 7"):
            store.read_history(DEFAULT_WORKSPACE, 7)

    def test_a_deleted_workspace_leaves_no_history_or_journal(self, store: StateStore) -> None:
        v1 = store.write("staging", state_bytes(1), expected=None)
        store.write("staging", state_bytes(2), expected=v1)
        store.journal_append("staging", b'{"seq":1}')
        store.delete_workspace("staging")
        assert store.history("staging") == [] and store.journal_read("staging") == []
        store.write("staging", state_bytes(1), expected=None)  # a new workspace of that name starts clean
        assert store.history("staging") == []

    # -- journal across clients -----------------------------------------------------------------

    def test_journal_appends_from_two_clients_never_overwrite_each_other(
        self, make_store: StoreFactory
    ) -> None:
        first, second = make_store(), make_store()
        first.journal_append(DEFAULT_WORKSPACE, b'{"seq":1}')
        second.journal_append(DEFAULT_WORKSPACE, b'{"seq":2}')
        first.journal_append(DEFAULT_WORKSPACE, b'{"seq":3}')  # its idea of the next slot is stale
        assert make_store().journal_read(DEFAULT_WORKSPACE) == [b'{"seq":1}', b'{"seq":2}', b'{"seq":3}']

    # -- probe ----------------------------------------------------------------------------------

    def test_probe_passes_and_leaves_nothing_behind(self, store: StateStore) -> None:
        store.probe()
        store.probe()  # repeatable: every probe uses its own scratch object
        assert store.workspaces() == [DEFAULT_WORKSPACE]
        assert store.read(DEFAULT_WORKSPACE) is None and store.lock_info(DEFAULT_WORKSPACE) is None

    @pytest.mark.parametrize(
        ("guarantee", "message"),
        [("create", "second conditional create|second exclusive create"), ("swap", "stale compare-and-swap")],
    )
    def test_probe_refuses_a_store_without_the_guarantee(
        self, make_store: StoreFactory, guarantee: str, message: str
    ) -> None:
        broken = broken_copy(make_store(), guarantee)
        if guarantee == "create":  # the breakage is real: two lockers both "win"
            broken.lock(DEFAULT_WORKSPACE, LockInfo())
            broken.lock(DEFAULT_WORKSPACE, LockInfo())
            broken.unlock(DEFAULT_WORKSPACE, "", force=True)
        else:  # ... or a stale compare-and-swap goes through
            v1 = broken.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
            make_store().write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
            if isinstance(broken, ObjectStateStore):  # its write() compares first; the put itself is blind
                broken._put(broken._state_key(DEFAULT_WORKSPACE), state_bytes(3), if_match=v1)
            else:
                broken.write(DEFAULT_WORKSPACE, state_bytes(3), expected=v1)
            snap = make_store().read(DEFAULT_WORKSPACE)
            assert snap is not None and snap.data == state_bytes(3)
        with pytest.raises(BackendError, match=message) as err:
            broken.probe()
        assert err.value.hint
        make_store().probe()  # the honest client of the same storage passes

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

    # -- optional capabilities, plain and encrypted ------------------------------------------------

    @pytest.fixture(params=["plain", "encrypted"])
    def layered(self, request: pytest.FixtureRequest, make_store: StoreFactory, tmp_path: Path) -> Layered:
        raw = make_store()
        if request.param == "plain":
            return Layered(raw, raw, encrypted=False)
        return Layered(sealing(raw, tmp_path / "seen"), raw, encrypted=True)

    def _claims(self, layered: Layered, capability: type) -> None:
        """Skip, saying why, when the store does not claim ``capability`` (which the claims test
        checks is as it should be), so each capability test runs wherever the capability is."""
        if not isinstance(layered.store, capability):
            how = "wrapped for encryption" if layered.encrypted else "plain"
            pytest.skip(f"{type(layered.raw).__name__} ({how}) has no {capability.__name__}")

    def test_the_store_claims_exactly_its_capabilities(self, layered: Layered) -> None:
        assert claimed(layered.raw) == self.capabilities
        if layered.encrypted:  # nothing that would hand over bytes as stored; the rest as the backend has them
            assert claimed(layered.store) == SEALED_ALWAYS | (self.capabilities & SEALED_WHEN_WRAPPED_HAS)
        else:
            assert claimed(layered.store) == self.capabilities

    def test_a_state_reads_back_whole_and_rests_sealed_when_encrypted(self, layered: Layered) -> None:
        store, raw = layered.store, layered.raw
        v1 = store.write(DEFAULT_WORKSPACE, secret_state(1), expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        store.journal_append(DEFAULT_WORKSPACE, json.dumps({"kind": "intent", "pw": SECRET}).encode())
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and snap.data == state_bytes(2)
        assert store.read_history(DEFAULT_WORKSPACE, 1) == secret_state(1)
        assert [e.serial for e in store.history(DEFAULT_WORKSPACE)] == [1]  # listed without the key
        assert json.loads(store.journal_read(DEFAULT_WORKSPACE)[0])["pw"] == SECRET
        at_rest = [raw.read_history(DEFAULT_WORKSPACE, 1), *raw.journal_read(DEFAULT_WORKSPACE)]
        assert all((SECRET.encode() in data) is not layered.encrypted for data in at_rest)
        if layered.encrypted:
            stored = raw.read(DEFAULT_WORKSPACE)
            assert stored is not None and b"encrypted_data" in stored.data

    def test_a_journal_entry_must_be_a_single_line_when_encrypted_too(self, layered: Layered) -> None:
        with pytest.raises(ValueError):
            layered.store.journal_append(DEFAULT_WORKSPACE, b'{"a":\n1}')
        assert layered.raw.journal_read(DEFAULT_WORKSPACE) == []

    def test_read_backup_gives_the_replaced_document(self, layered: Layered) -> None:
        self._claims(layered, BackupReader)
        store = layered.store
        assert isinstance(store, BackupReader)
        assert store.read_backup(DEFAULT_WORKSPACE) is None  # nothing replaced yet
        v1 = store.write(DEFAULT_WORKSPACE, secret_state(1), expected=None)
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=v1)
        assert store.read_backup(DEFAULT_WORKSPACE) == secret_state(1)
        if layered.encrypted:
            assert isinstance(layered.raw, BackupReader)
            kept = layered.raw.read_backup(DEFAULT_WORKSPACE)
            assert kept is not None and SECRET.encode() not in kept and b"encrypted_data" in kept

    def test_journal_sync_makes_deferred_entries_durable_in_order(self, layered: Layered,
                                                                 make_store: StoreFactory) -> None:
        self._claims(layered, JournalSync)
        store = layered.store
        assert isinstance(store, JournalSync)
        store.journal_sync(DEFAULT_WORKSPACE)  # no journal yet: nothing to do, no error
        entries = [json.dumps({"seq": i, "pw": SECRET}).encode() for i in range(1, 4)]
        for entry in entries:
            store.journal_append(DEFAULT_WORKSPACE, entry, sync=False)
        store.journal_sync(DEFAULT_WORKSPACE)
        assert store.journal_read(DEFAULT_WORKSPACE) == entries
        at_rest = make_store().journal_read(DEFAULT_WORKSPACE)  # another client of the same storage
        assert len(at_rest) == 3 and all((SECRET.encode() in e) is not layered.encrypted for e in at_rest)
        store.journal_clear(DEFAULT_WORKSPACE)
        store.journal_sync(DEFAULT_WORKSPACE)  # a cleared journal: nothing to do, no error

    def test_the_local_state_file_is_the_stored_document(self, layered: Layered) -> None:
        self._claims(layered, LocalStateFile)
        store = layered.store
        assert isinstance(store, LocalStateFile)
        for workspace in (DEFAULT_WORKSPACE, "staging"):
            store.write(workspace, secret_state(1), expected=None)
            stored = layered.raw.read(workspace)
            assert stored is not None and store.state_path(workspace).read_bytes() == stored.data
            assert (SECRET.encode() in stored.data) is not layered.encrypted
        assert store.state_path("staging") != store.state_path(DEFAULT_WORKSPACE)

    def test_write_pieces_stores_the_document_the_pieces_make(self, layered: Layered) -> None:
        self._claims(layered, PieceWriter)
        store = layered.store
        assert isinstance(store, PieceWriter)
        first = store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
        document = secret_state(2)
        pieces = [document[i : i + 5] for i in range(0, len(document), 5)]
        written = store.write_pieces(DEFAULT_WORKSPACE, lambda: iter(pieces), expected=first)
        assert (written.size, written.sha256) == (len(document), hashlib.sha256(document).digest())
        snap = store.read(DEFAULT_WORKSPACE)
        assert snap is not None and (snap.data, snap.version) == (document, written.version)
        assert store.read_history(DEFAULT_WORKSPACE, 1) == state_bytes(1)
        with pytest.raises(StateConflict):
            store.write_pieces(DEFAULT_WORKSPACE, lambda: iter(pieces), expected=first)

    def test_open_state_file_gives_what_read_gives(self, layered: Layered) -> None:
        self._claims(layered, StateFileOpener)
        store = layered.store
        assert isinstance(store, StateFileOpener)
        with store.open_state_file(DEFAULT_WORKSPACE) as missing:
            assert missing is None
        document = secret_state(3)
        version = store.write(DEFAULT_WORKSPACE, document, expected=None)
        with store.open_state_file(DEFAULT_WORKSPACE) as opened:
            assert opened is not None
            assert (opened.version, opened.size, opened.sha256) == (version, len(document),
                                                                     hashlib.sha256(document).digest())
            assert opened.file.read() == document

    def test_a_sealed_store_seals_and_opens_documents_outside_it(self, layered: Layered) -> None:
        self._claims(layered, SealedStore)
        store = layered.store
        assert isinstance(store, SealedStore)
        sealed = store.seal_state(secret_state(4))
        assert SECRET.encode() not in sealed and b"encrypted_data" in sealed
        assert store.open_state(sealed, "errored.tfstate") == secret_state(4)
        store.write(DEFAULT_WORKSPACE, secret_state(1), expected=None)
        assert store.read(DEFAULT_WORKSPACE) is not None and not store.needs_rewrite(DEFAULT_WORKSPACE)

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
        assert exc.holder is not None  # a refusal names the winner (else reported as an error below)
        queue.put(("held", exc.holder.ID))
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
