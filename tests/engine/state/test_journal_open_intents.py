"""A compaction keeps the intents that have no result yet: an operation still running when the state
is written whole, or one whose provider crashed mid-call, stays unfinished in the journal, so a kill
after the compaction, or the next run, still learns that the object may exist."""

from __future__ import annotations

from pathlib import Path

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from engine.state.journal import Journal, Orphan, replay
from engine.state.model import InstanceState, new_state


def test_open_intents_survive_a_clear_and_settled_ones_do_not(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "ctl.tfstate")
    base = new_state()
    j = Journal(store, DEFAULT_WORKSPACE, lineage=base.lineage, base_serial=base.serial)
    j.record_intent("null_resource.running", "create", planned_identity={"name": "r"})
    j.record_intent("null_resource.done", "create")
    j.record_result("null_resource.done", "create", InstanceState(attributes={"id": "d"}))
    j.record_intent("null_resource.failed", "update")
    j.record_failed("null_resource.failed", "update")
    j.record_intent("null_resource.old", "delete")
    j.record_removed("null_resource.old", deposed="abcd1234")  # a replacement's delete, keyed late
    j.record_intent("null_resource.gone", "delete", deposed="0000ffff")
    j.record_removed("null_resource.gone", deposed="0000ffff")

    j.clear()  # what a compaction does once the snapshot is written

    _, orphans = replay(base, j.entries())
    assert orphans == [Orphan("null_resource.running", "create", {"name": "r"})]
    # Settled later, it is not written again by the next compaction.
    j.record_result("null_resource.running", "create", InstanceState(attributes={"id": "r"}))
    j.clear()
    assert j.entries() == []
