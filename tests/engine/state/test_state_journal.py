"""The apply journal: what a crashed apply leaves behind is rebuilt, and unfinished work reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from engine.state.journal import Journal, Orphan, parse_entries, planned_identity, replay
from engine.state.model import InstanceState, OutputValue, State, new_state
from vocab.values import UNKNOWN, Marked


@pytest.fixture
def store(tmp_path: Path) -> LocalStore:
    return LocalStore(tmp_path / "ctl.tfstate")


def journal_for(store: LocalStore, state: State) -> Journal:
    return Journal(store, DEFAULT_WORKSPACE, lineage=state.lineage, base_serial=state.serial)


def test_completed_operations_are_replayed_and_unfinished_ones_are_orphans(store: LocalStore) -> None:
    base = new_state()
    base.set_instance("null_resource.old", InstanceState(attributes={"id": "old"}))
    j = journal_for(store, base)
    j.record_intent("null_resource.a", "create", planned_identity={"name": "a"})
    j.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a-1"}))
    j.record_intent("null_resource.old", "delete")
    j.record_removed("null_resource.old")
    j.record_intent('null_resource.b["x"]', "create", planned_identity={"name": "bx"})  # crash here
    j.record_intent("null_resource.c", "update")

    state, orphans = replay(base, j.entries())

    a = state.instance("null_resource.a")
    assert a is not None and a.attributes == {"id": "a-1"}
    assert state.instance("null_resource.old") is None
    assert state.instance('null_resource.b["x"]') is None
    assert orphans == [
        Orphan('null_resource.b["x"]', "create", {"name": "bx"}),
        Orphan("null_resource.c", "update"),
    ]
    assert base.instance("null_resource.old") is not None  # the snapshot itself is untouched


def test_results_are_applied_in_order(store: LocalStore) -> None:
    base = new_state()
    j = journal_for(store, base)
    for version in ("v1", "v2", "v3"):
        j.record_intent("null_resource.a", "update")
        j.record_result("null_resource.a", "update", InstanceState(attributes={"v": version}))
    state, orphans = replay(base, j.entries())
    got = state.instance("null_resource.a")
    assert got is not None and got.attributes == {"v": "v3"} and orphans == []


def test_replaced_resources_settle_both_halves(store: LocalStore) -> None:
    base = new_state()
    base.set_instance("null_resource.r", InstanceState(attributes={"id": "1"}))
    j = journal_for(store, base)
    j.record_intent("null_resource.r", "delete")
    j.record_removed("null_resource.r")
    j.record_intent("null_resource.r", "create", planned_identity="r")
    state, orphans = replay(base, j.entries())
    assert state.instance("null_resource.r") is None
    assert orphans == [Orphan("null_resource.r", "create", "r")]


def test_a_failed_operation_is_not_an_orphan_and_changes_nothing(store: LocalStore) -> None:
    base = new_state()
    j = journal_for(store, base)
    j.record_intent("null_resource.a", "create")
    j.record_failed("null_resource.a", "create")
    state, orphans = replay(base, j.entries())
    assert orphans == [] and state.instance("null_resource.a") is None


def test_secrets_keep_their_sensitivity_through_the_journal(store: LocalStore) -> None:
    base = new_state()
    j = journal_for(store, base)
    inst = InstanceState.from_marked({"id": "p", "result": Marked("hunter2")}, schema_version=3)
    j.record_intent("random_password.p", "create")
    j.record_result(
        "random_password.p", "create", inst, provider='provider["registry.terraform.io/hashicorp/random"]'
    )
    state, _ = replay(base, j.entries())
    got = state.instance("random_password.p")
    assert got is not None and got.schema_version == 3
    assert isinstance(got.marked_attributes()["result"], Marked)


def test_outputs_are_replayed(store: LocalStore) -> None:
    base = new_state()
    base.outputs["gone"] = OutputValue("x", "string")
    j = journal_for(store, base)
    j.record_output("url", OutputValue("https://example.com", "string"))
    j.record_output("gone", None)
    state, _ = replay(base, j.entries())
    assert state.outputs == {"url": OutputValue("https://example.com", "string")}


def test_entries_the_snapshot_already_contains_are_not_applied_twice(store: LocalStore) -> None:
    base = new_state()
    j = journal_for(store, base)
    j.record_intent("null_resource.a", "create")
    j.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a"}))
    # the full state was written (serial 1) but the crash came before the journal was cleared,
    # and the user then removed the resource from state by hand (serial 2)
    newer = base.copy()
    newer.serial = 2
    state, orphans = replay(newer, j.entries())
    assert state.instance("null_resource.a") is None and orphans == []


def test_entries_for_another_lineage_are_ignored(store: LocalStore) -> None:
    j = journal_for(store, new_state())
    j.record_intent("null_resource.a", "create")
    j.record_result("null_resource.a", "create", InstanceState(attributes={"id": "a"}))
    other = new_state()
    state, orphans = replay(other, j.entries())
    assert state.instance("null_resource.a") is None and orphans == []


def test_garbage_and_torn_lines_are_skipped(store: LocalStore, tmp_path: Path) -> None:
    base = new_state()
    j = journal_for(store, base)
    j.record_intent("null_resource.a", "create")
    with open(tmp_path / "ctl.tfstate.journal", "ab") as f:
        f.write(b"not json\n")
        f.write(
            b'{"seq": 9, "kind": "result", "op": "create", "address": "null_resource.a"}\n'
        )  # no attributes
        f.write(b'{"seq": 10, "kind": "res')  # torn by the crash
    entries = j.entries()
    assert [e["seq"] for e in entries] == [1, 9]
    state, orphans = replay(base, entries)
    assert state.instance("null_resource.a") is None
    assert orphans == [Orphan("null_resource.a", "create")]  # a malformed result settles nothing


def test_entries_are_single_json_lines_with_the_documented_fields(store: LocalStore, tmp_path: Path) -> None:
    base = new_state()
    j = journal_for(store, base)
    j.record_intent("null_resource.a", "create", planned_identity={"name": "a\nb"})
    j.record_result(
        "null_resource.a",
        "create",
        InstanceState(attributes={"id": "a", "text": "line1\nline2"}, dependencies=["null_resource.z"]),
    )
    lines = (tmp_path / "ctl.tfstate.journal").read_bytes().splitlines()
    assert len(lines) == 2
    intent, result = (json.loads(line) for line in lines)
    assert {"seq", "kind", "op", "address", "planned_identity", "time"} <= intent.keys()
    assert (intent["seq"], intent["kind"], intent["op"]) == (1, "intent", "create")
    assert {"attributes", "sensitive_attributes", "dependencies", "schema_version"} <= result.keys()
    assert result["attributes"]["text"] == "line1\nline2"
    assert parse_entries([b"[]", b'{"kind": 1, "address": "x"}']) == []


def test_unknown_operations_are_programming_errors(store: LocalStore) -> None:
    j = journal_for(store, new_state())
    with pytest.raises(ValueError):
        j.record_intent("null_resource.a", "explode")
    with pytest.raises(ValueError):
        j.record_result("null_resource.a", "create")  # a create result needs the new object


def test_planned_identity_leaves_out_arguments_with_a_secret_anywhere_inside() -> None:
    planned = {
        "name": "db",
        "tags": {"owner": "ops", "token": Marked("hunter2")},
        "users": ["a", Marked("b")],
        "password": Marked("hunter2"),
        "arn": UNKNOWN,
    }
    identity = planned_identity(planned)
    assert identity == {"name": "db"}
    assert planned_identity(Marked({"name": "db"})) is None
    assert "hunter2" not in json.dumps(identity)


def test_an_intent_without_sync_is_readable_at_once_and_costs_no_fsync(
        store: LocalStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Intents of objects that live only in state are written without an fsync of their own: a killed
    ctl loses nothing (the line is in the file), and the next synced entry makes both durable."""
    import os

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    j = journal_for(store, new_state())
    j.record_intent("terraform_data.a", "create")  # the first entry creates the file: synced
    first = len(synced)
    j.record_intent("terraform_data.b", "create", sync=False)
    assert len(synced) == first
    assert [e["address"] for e in j.entries()] == ["terraform_data.a", "terraform_data.b"]
    j.record_result("terraform_data.b", "create", InstanceState(attributes={"id": "b"}))
    assert len(synced) == first + 1


def test_grouped_results_are_in_the_file_at_once_and_share_one_fsync(
        store: LocalStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Group commit: inside ``grouped`` each result is written at once (a killed ctl finds it), and
    ``flush`` makes the whole batch durable with one fsync; an intent that must be durable is not
    deferred, and its fsync settles what the batch owed."""
    import os

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    j = journal_for(store, new_state())
    j.record_intent("terraform_data.a", "create")  # the first entry creates the file: synced
    with j.grouped():
        first = len(synced)
        for name in ("a", "b", "c"):
            j.record_result(f"terraform_data.{name}", "create", InstanceState(attributes={"id": name}))
        assert len(synced) == first  # nothing synced yet ...
        assert [e["kind"] for e in j.entries()] == ["intent", "result", "result", "result"]  # ... all written
        j.flush()
        assert len(synced) == first + 1
        j.flush()  # nothing owed: no fsync
        assert len(synced) == first + 1
        j.record_result("terraform_data.d", "create", InstanceState(attributes={"id": "d"}))
        j.record_intent("aws_s3_bucket.e", "create")  # reaches out: durable before the call, at once
        assert len(synced) == first + 2
        j.flush()  # the intent's fsync covered the result written before it
        assert len(synced) == first + 2
        j.record_result("terraform_data.f", "create", InstanceState(attributes={"id": "f"}))
    assert len(synced) == first + 3  # leaving the group flushes what it still owed
    j.record_result("terraform_data.g", "create", InstanceState(attributes={"id": "g"}))
    assert len(synced) == first + 4  # outside a group every result is synced on its own


def test_grouping_falls_back_to_an_fsync_per_entry_on_a_store_without_journal_sync(store: LocalStore) -> None:
    class Plain:
        """A store offering only the base interface's journal calls."""

        def __init__(self) -> None:
            self.syncs: list[bool] = []

        def journal_append(self, workspace: str, entry: bytes, *, sync: bool = True) -> None:
            self.syncs.append(sync)

    plain = Plain()
    j = Journal(plain, DEFAULT_WORKSPACE)
    with j.grouped():
        j.record_result("terraform_data.a", "create", InstanceState(attributes={"id": "a"}))
        j.flush()
    assert plain.syncs == [True]


def test_journal_sync_of_a_cleared_journal_does_nothing(store: LocalStore) -> None:
    store.journal_sync(DEFAULT_WORKSPACE)  # no journal yet (or cleared by a compaction): no error
