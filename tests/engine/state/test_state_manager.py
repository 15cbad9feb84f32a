"""StateManager: serials, lineage, conflicts, crash recovery and compaction, on a real local store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, StateConflict
from backends.local.store import LocalStore
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from engine.state.journal import Orphan
from engine.state.manager import LineageMismatch, StateManager
from engine.state.model import InstanceState, new_state


@pytest.fixture
def store(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


def manager(store: LocalStore, tmp_path: Path, **kw: object) -> StateManager:
    return StateManager(store, DEFAULT_WORKSPACE, errored_dir=tmp_path, **kw)


def stored(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "ctl.tfstate").read_bytes())


def test_first_persist_creates_the_state_with_serial_1(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    assert state.serial == 0 and not m.replayed and m.orphans == []
    state.set_instance("null_resource.a", InstanceState(attributes={"id": "a"}))
    m.persist(state)
    assert state.serial == 1
    doc = stored(tmp_path)
    assert doc["serial"] == 1 and doc["lineage"] == state.lineage
    assert doc["resources"][0]["instances"][0]["attributes"] == {"id": "a"}


def test_every_write_bumps_the_serial_and_keeps_the_lineage(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    for i in range(3):
        state.set_instance(f"null_resource.n{i}", InstanceState(attributes={"id": str(i)}))
        m.persist(state)
    again = manager(store, tmp_path).load()
    assert again.serial == 3 == stored(tmp_path)["serial"]
    assert again.lineage == state.lineage


def test_an_unchanged_state_is_not_rewritten(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    state.set_instance("null_resource.a", InstanceState(attributes={"id": "a"}))
    m.persist(state)
    before = (tmp_path / "ctl.tfstate").stat().st_mtime_ns
    m2 = manager(store, tmp_path)
    m2.persist(m2.load())
    assert stored(tmp_path)["serial"] == 1
    assert (tmp_path / "ctl.tfstate").stat().st_mtime_ns == before


def test_a_state_of_another_lineage_is_refused(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    m.persist(m.load())
    intruder = new_state()
    with pytest.raises(LineageMismatch) as err:
        m.persist(intruder)
    assert intruder.lineage in err.value.summary and str(tmp_path / "ctl.tfstate") in err.value.summary
    assert stored(tmp_path)["lineage"] != intruder.lineage


def test_a_concurrent_write_is_refused_and_the_result_saved_as_errored_state(
    store: LocalStore, tmp_path: Path
) -> None:
    first = manager(store, tmp_path)
    first.persist(first.load())
    mine, theirs = manager(store, tmp_path), manager(store, tmp_path)
    my_state, their_state = mine.load(), theirs.load()
    their_state.set_instance("null_resource.theirs", InstanceState(attributes={"id": "t"}))
    theirs.persist(their_state)
    my_state.set_instance("null_resource.mine", InstanceState(attributes={"id": "m"}))
    with pytest.raises(StateConflict) as err:
        mine.persist(my_state)
    errored = tmp_path / "errored.tfstate"
    assert f"ctl state push {errored}" in err.value.hint
    saved = decode_state(errored.read_bytes(), str(errored))
    assert saved.instance("null_resource.mine") is not None
    assert decode_state((tmp_path / "ctl.tfstate").read_bytes(), "x").instance("null_resource.theirs")
    assert my_state.serial == 1  # the failed write did not advance the caller's serial


def test_load_replays_a_crashed_apply_and_reports_orphans(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    m.persist(state)
    m.journal.record_intent("null_resource.a", "create")
    m.journal.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a"}))
    m.journal.record_intent("null_resource.b", "create", planned_identity="b")
    # the process dies here; the next run:
    m2 = manager(store, tmp_path)
    recovered = m2.load()
    assert m2.replayed
    assert recovered.instance("null_resource.a") is not None
    assert m2.orphans == [Orphan("null_resource.b", "create", "b")]
    # the next apply settles the orphan (it found the object by its planned identity)
    m2.journal.record_result("null_resource.b", "create", InstanceState(attributes={"id": "b"}))
    recovered.set_instance("null_resource.b", InstanceState(attributes={"id": "b"}))
    m2.compact(recovered)
    assert store.journal_read(DEFAULT_WORKSPACE) == []
    m3 = manager(store, tmp_path)
    final = m3.load()
    assert not m3.replayed and m3.orphans == []
    assert {str(a) for a, _ in final.instances()} == {"null_resource.a", "null_resource.b"}


def test_a_first_apply_that_crashed_before_any_write_is_recovered(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    m.journal.record_intent("null_resource.a", "create")
    m.journal.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a"}))
    m2 = manager(store, tmp_path)
    recovered = m2.load()
    assert recovered.lineage == state.lineage
    assert recovered.instance("null_resource.a") is not None
    m2.compact(recovered)
    assert stored(tmp_path)["lineage"] == state.lineage


def test_a_crash_between_writing_state_and_clearing_the_journal_is_harmless(
    store: LocalStore, tmp_path: Path
) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    m.journal.record_intent("null_resource.a", "create")
    m.journal.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a"}))
    state.set_instance("null_resource.a", InstanceState(attributes={"id": "a"}))
    m.persist(state)  # ...and the process dies before the journal is cleared
    m2 = manager(store, tmp_path)
    s2 = m2.load()
    assert not m2.replayed  # the snapshot already holds everything the journal says
    s2.remove_instance("null_resource.a")  # e.g. `ctl state rm`, which writes without a journal
    m2.persist(s2)
    assert len(store.journal_read(DEFAULT_WORKSPACE)) == 2  # the stale journal is still there
    m3 = manager(store, tmp_path)
    assert m3.load().instance("null_resource.a") is None  # ...and does not resurrect the resource


def test_maybe_compact_bounds_the_journal(store: LocalStore, tmp_path: Path) -> None:
    """Compaction keeps the journal no larger than the state, and the bytes linear.

    A full write every fixed number of entries would write O(N²) bytes over a large apply; the
    snapshots written here must add up to a small multiple of the final state's size.
    """
    m = manager(store, tmp_path, compact_entries=10, compact_seconds=3600)
    state = m.load()
    state_file = tmp_path / "ctl.tfstate"
    writes, snapshot_bytes = 0, 0
    for i in range(400):
        addr = f"null_resource.n{i}"
        m.journal.record_intent(addr, "create")
        state.set_instance(addr, InstanceState(attributes={"id": str(i)}))
        m.journal.record_result(addr, "create", state.instance(addr))
        if m.maybe_compact(state):
            writes += 1
            snapshot_bytes += state_file.stat().st_size
            journal = b"\n".join(store.journal_read(DEFAULT_WORKSPACE))
            assert journal == b""  # a compaction empties the journal
    m.compact(state)
    final = state_file.stat().st_size
    assert writes >= 3  # it did compact along the way
    assert snapshot_bytes <= 3 * final  # geometric, not once per 10 entries
    assert len(StateManager(store, DEFAULT_WORKSPACE).load().resources) == 400


def test_maybe_compact_after_the_time_limit(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path, compact_entries=1000, compact_seconds=0)
    state = m.load()
    assert not m.maybe_compact(state)  # nothing to compact
    m.journal.record_intent("null_resource.a", "create")
    m.journal.record_failed("null_resource.a", "create")  # settled: an open intent outlives compaction
    assert m.maybe_compact(state)
    assert store.journal_read(DEFAULT_WORKSPACE) == []


def test_workspace_states_are_named_in_messages(store: LocalStore, tmp_path: Path) -> None:
    m = StateManager(store, "staging", errored_dir=tmp_path)
    m.persist(m.load())
    (tmp_path / "ctl.tfstate.d" / "staging" / "ctl.tfstate").write_bytes(b"{oops")
    with pytest.raises(Exception) as err:
        StateManager(store, "staging").load()
    assert 'workspace "staging"' in str(err.value)


def test_a_run_keeps_the_version_it_started_from_not_its_own_snapshots(store: LocalStore, tmp_path: Path) -> None:
    """A long apply compacts several times; only the state before it goes to backup and history."""
    first = manager(store, tmp_path)
    state = first.load()
    state.set_instance("null_resource.before", InstanceState(attributes={"id": "0"}))
    first.persist(state)  # serial 1: what the next run starts from
    run = manager(store, tmp_path)
    state = run.load()
    for i in range(3):  # three snapshots written by the same run
        state.set_instance(f"null_resource.n{i}", InstanceState(attributes={"id": str(i)}))
        run.persist(state)
    assert [h.serial for h in store.history(DEFAULT_WORKSPACE)] == [1]
    backup = json.loads((tmp_path / "ctl.tfstate.backup").read_bytes())
    assert backup["serial"] == 1


def test_a_state_that_cannot_be_encoded_is_refused_and_the_stored_one_kept(store: LocalStore, tmp_path: Path) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    state.set_instance("null_resource.a", InstanceState(attributes={"id": "a"}))
    m.persist(state)
    before = (tmp_path / "ctl.tfstate").read_bytes()
    state.set_instance("null_resource.b", InstanceState(attributes={"id": "b", "n": float("nan")}))
    with pytest.raises(ValueError, match="not JSON compliant"):
        m.persist(state)  # written as it is encoded: the error comes halfway through the file
    assert (tmp_path / "ctl.tfstate").read_bytes() == before
    assert not (tmp_path / "errored.tfstate").exists()  # nothing was written, nothing to push back
    assert state.serial == 1 and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    state.set_instance("null_resource.b", InstanceState(attributes={"id": "b", "n": 1.5}))
    m.persist(state)  # and the manager carries on from the stored version
    assert stored(tmp_path)["serial"] == 2


def test_a_large_state_is_written_in_pieces_with_the_bytes_of_a_whole_encoding(
    store: LocalStore, tmp_path: Path
) -> None:
    m = manager(store, tmp_path)
    state = m.load()
    for i in range(3000):  # about 1.5 MB: more than one chunk of the streamed write
        state.set_instance(f"null_resource.n{i:04d}", InstanceState(attributes={"id": str(i), "pad": "x" * 400}))
    m.persist(state)
    assert (tmp_path / "ctl.tfstate").read_bytes() == encode_state(state)
    mtime = (tmp_path / "ctl.tfstate").stat().st_mtime_ns
    again = manager(store, tmp_path)
    again.persist(again.load())  # unchanged: compared by the digest the streamed write reported
    assert (tmp_path / "ctl.tfstate").stat().st_mtime_ns == mtime


def test_an_encrypting_store_is_never_bypassed_by_a_plaintext_stream(tmp_path: Path) -> None:
    from engine.encryption.config import KeyProviderConfig, MethodConfig, TargetConfig
    from engine.encryption.store import encrypting_store
    from engine.encryption.target import Target

    keys = KeyProviderConfig("pbkdf2", "k", {"passphrase": "sixteen-characters!", "iterations": 200_000})
    sealed = encrypting_store(LocalStore(tmp_path / "ctl.tfstate"),
                              Target("state", TargetConfig(MethodConfig("aes_gcm", "k", keys))), tmp_path / ".ctl")
    m = StateManager(sealed, DEFAULT_WORKSPACE, errored_dir=tmp_path)
    state = m.load()
    state.set_instance("null_resource.a", InstanceState(attributes={"id": "a", "password": "hunter2-in-state"}))
    m.persist(state)
    assert b"hunter2-in-state" not in (tmp_path / "ctl.tfstate").read_bytes()
    assert StateManager(sealed, DEFAULT_WORKSPACE).load().instance("null_resource.a") is not None


def test_the_local_state_is_decoded_from_its_file_never_read_whole(tmp_path: Path) -> None:
    class NoWholeReads(LocalStore):
        def read(self, workspace: str) -> None:
            raise AssertionError("the whole state was read into memory")

    m = manager(LocalStore(tmp_path / "ctl.tfstate"), tmp_path)
    state = m.load()
    for i in range(50):
        state.set_instance(f"null_resource.n{i:02d}", InstanceState(attributes={"id": str(i)}))
    m.persist(state)
    streamed = manager(NoWholeReads(tmp_path / "ctl.tfstate"), tmp_path)
    loaded = streamed.load()
    assert encode_state(loaded) == encode_state(state)
    mtime = (tmp_path / "ctl.tfstate").stat().st_mtime_ns
    streamed.persist(loaded)  # unchanged: compared by the digest the store reported when opening it
    assert (tmp_path / "ctl.tfstate").stat().st_mtime_ns == mtime
    loaded.set_instance("null_resource.extra", InstanceState(attributes={"id": "x"}))
    streamed.persist(loaded)  # the compare-and-swap holds the version the open file had
    assert stored(tmp_path)["serial"] == state.serial + 1
