"""``ctl state history`` and ``ctl state rollback``, plus what ``lock-status`` and ``unlock --force`` say
about abandoned and broken locks — through the CLI on the local backend, through the engine on S3."""

from __future__ import annotations

import json
import logging
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE, StateStore
from backends.factory import make_store
from backends.local.store import LocalStore
from cli.main import run
from engine.locking.options import LockOptions
from engine.state.encode import encode_state
from engine.state.manager import StateManager
from engine.state.model import InstanceState, OutputValue, State, new_state
from engine.state_tools.diff import state_diff
from engine.state_tools.history import history_in
from engine.state_tools.rollback import RollbackPlan, RollbackRefused, rollback_in
from tests.servers import MotoServer
from vocab.errors import CtlError
from vocab.locks import LockInfo

TFDATA = 'provider["terraform.io/builtin/terraform"]'


def _data(state: State, name: str, value: str) -> None:
    state.set_instance(f"terraform_data.{name}", InstanceState(attributes={"id": name, "input": value}), TFDATA)


def write_versions(store: StateStore, workspace: str = DEFAULT_WORKSPACE) -> State:
    """Three versions: serial 1 {a}, serial 2 {a, b}, serial 3 {a changed, c} with an output.

    Each version is written by its own run (a fresh load): a run keeps the version it started from.
    """
    manager = StateManager(store, workspace)
    state = manager.load()
    _data(state, "a", "1")
    manager.persist(state)
    state = manager.load()
    _data(state, "b", "2")
    manager.persist(state)
    state = manager.load()
    state.remove_instance("terraform_data.b")
    _data(state, "a", "changed")
    _data(state, "c", "3")
    state.outputs["url"] = OutputValue("https://example.test")
    manager.persist(state)
    return state


def addresses_of(data: bytes) -> list[str]:
    doc = json.loads(data)
    return sorted(f"{r['type']}.{r['name']}" for r in doc["resources"])


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID", "CTL_LOCK_TIMEOUT", "CTL_LOCK_STALE_SECONDS",
                 "CTL_LOCK_HEARTBEAT_SECONDS", "CTL_LOG", "CTL_LOG_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CI", "true")  # no prompts
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tf").write_text("")
    write_versions(LocalStore(tmp_path / "ctl.tfstate"))
    return tmp_path


def stored(root: Path) -> dict:
    return json.loads((root / "ctl.tfstate").read_text())


# -- history ----------------------------------------------------------------------------------------


def test_history_lists_kept_versions_and_the_current_one(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "history", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["serial"], r["resources"], r["current"]) for r in rows] == \
        [(1, 1, False), (2, 2, False), (3, 2, True)]
    for row in rows[:2]:
        assert "@" in row["who"] and row["time"].endswith("Z") and row["version"]
    assert run(["state", "history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["SERIAL", "TIME", "WHO", "RESOURCES"]
    assert lines[1].split()[0] == "1" and lines[1].split()[3] == "1"
    assert lines[-1].split()[0] == "3" and lines[-1].endswith("(current)")


def test_history_of_an_empty_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["state", "history", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


# -- rollback ---------------------------------------------------------------------------------------


def test_rollback_shows_the_diff_and_writes_a_new_serial(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lineage = stored(root)["lineage"]
    assert run(["state", "rollback", "2", "--auto-approve"]) == 0
    out, err = capsys.readouterr()
    assert "Rolling back from serial 3 to the kept version 2 (written as serial 4)" in out
    assert "  + terraform_data.b  (back in the state)" in out
    assert "  - terraform_data.c  (no longer in the state)" in out
    assert "  ~ terraform_data.a  (input)" in out
    assert "  - output.url" in out
    assert "changed" not in out.split("~ terraform_data.a")[0]  # values are never shown, only names
    assert "the state now has serial 4" in err
    doc = stored(root)
    assert (doc["serial"], doc["lineage"]) == (4, lineage)
    assert addresses_of((root / "ctl.tfstate").read_bytes()) == ["terraform_data.a", "terraform_data.b"]
    assert doc["outputs"] == {}
    kept = LocalStore(root / "ctl.tfstate")
    assert [e.serial for e in kept.history(DEFAULT_WORKSPACE)] == [1, 2, 3]  # the rolled-back one is kept
    assert not (root / "ctl.tfstate.tflock").exists()

    # and a rollback can itself be rolled back
    assert run(["state", "rollback", "3", "--auto-approve"]) == 0
    doc = stored(root)
    assert doc["serial"] == 5 and "url" in doc["outputs"]


def test_rollback_without_input_or_auto_approve_is_refused_with_a_hint(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (root / "ctl.tfstate").read_bytes()
    assert run(["state", "rollback", "1"]) == 1
    out, err = capsys.readouterr()
    assert "+ terraform_data.a" not in out and "~ terraform_data.a  (input)" in out  # the diff was shown
    assert "Rollback needs confirmation, but input is disabled" in err
    assert "ctl state rollback 1 --auto-approve" in err
    assert (root / "ctl.tfstate").read_bytes() == before
    assert not (root / "ctl.tfstate.tflock").exists()


def test_rollback_refuses_a_version_of_another_lineage(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = new_state()
    _data(other, "z", "other")
    other.serial = 1
    (root / "other.tfstate").write_bytes(encode_state(other))
    assert run(["state", "push", "--force", "other.tfstate"]) == 0  # serial 3 of ours is now kept
    capsys.readouterr()
    assert run(["state", "rollback", "2", "--auto-approve"]) == 1
    err = capsys.readouterr().err
    assert "Refusing to roll back to serial 2: its lineage" in err and "differs from the" in err
    doc = stored(root)
    assert doc["lineage"] == other.lineage and addresses_of((root / "ctl.tfstate").read_bytes()) == \
        ["terraform_data.z"]


def test_rollback_refuses_the_current_serial_and_an_unknown_one(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "rollback", "3", "--auto-approve"]) == 1
    assert "Serial 3 is the current state" in capsys.readouterr().err
    assert run(["state", "rollback", "42", "--auto-approve"]) == 1
    err = capsys.readouterr().err
    assert "no state with serial 42" in err and "ctl state history" in err
    assert stored(root)["serial"] == 3


def test_rollback_waits_for_a_held_lock(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    LocalStore(root / "ctl.tfstate").lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply"))
    assert run(["state", "rollback", "2", "--auto-approve"]) == 4
    assert "The state is locked by" in capsys.readouterr().err
    assert stored(root)["serial"] == 3


def test_state_diff_lists_objects_and_outputs_by_name() -> None:
    old, new = new_state(), new_state()
    _data(old, "same", "x")
    _data(new, "same", "x")
    _data(old, "gone", "1")
    _data(new, "back", "1")
    _data(old, "moved", "1")
    _data(new, "moved", "2")
    old.outputs = {"a": OutputValue(1), "b": OutputValue(2)}
    new.outputs = {"b": OutputValue(3), "c": OutputValue(4)}
    diff = state_diff(old, new)
    assert (diff.added, diff.removed, diff.changed) == \
        (["terraform_data.back"], ["terraform_data.gone"], [("terraform_data.moved", ["input"])])
    assert (diff.outputs_added, diff.outputs_removed, diff.outputs_changed) == (["c"], ["a"], ["b"])
    assert state_diff(old, old).empty


# -- the same on S3 ---------------------------------------------------------------------------------


@pytest.fixture
def s3_store(moto_server_clean: MotoServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateStore:
    for name, value in moto_server_clean.env.items():
        monkeypatch.setenv(name, value)
    bucket = f"ctl-history-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=bucket)
    settings = {"bucket": bucket, "key": "stack/ctl.tfstate", "endpoint": moto_server_clean.url,
                "use_path_style": True, "region": "us-east-1"}
    return make_store("s3", settings, tmp_path)


def test_history_and_rollback_round_trip_on_s3(s3_store: StateStore, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTL_LOCK_ID", raising=False)
    write_versions(s3_store, "staging")
    lineage = json.loads(s3_store.read("staging").data)["lineage"]
    rows = history_in(s3_store, "staging")
    assert [(r.serial, r.resources, r.current) for r in rows] == [(1, 1, False), (2, 2, False), (3, 2, True)]
    assert all("@" in r.who for r in rows[:2])

    shown: list[RollbackPlan] = []

    def confirm(plan: RollbackPlan) -> bool:
        shown.append(plan)
        return True

    result = rollback_in(s3_store, "staging", 1, LockOptions(), confirm, errored_dir=tmp_path)
    assert result.written and result.plan.new_serial == 4
    assert shown[0].diff.removed == ["terraform_data.c"] and shown[0].diff.changed == [("terraform_data.a", ["input"])]
    snap = s3_store.read("staging")
    assert snap is not None
    doc = json.loads(snap.data)
    assert (doc["serial"], doc["lineage"]) == (4, lineage)
    assert addresses_of(snap.data) == ["terraform_data.a"]
    assert json.loads(s3_store.read_history("staging", 3))["serial"] == 3  # the replaced version is kept
    assert s3_store.lock_info("staging") is None

    # a cancelled rollback writes nothing and releases the lock
    with pytest.raises(CtlError, match="Rollback cancelled"):
        rollback_in(s3_store, "staging", 2, LockOptions(), lambda p: False, errored_dir=tmp_path)
    assert json.loads(s3_store.read("staging").data)["serial"] == 4
    assert s3_store.lock_info("staging") is None


def test_rollback_on_s3_refuses_another_lineage(s3_store: StateStore, tmp_path: Path) -> None:
    write_versions(s3_store)
    current = s3_store.read(DEFAULT_WORKSPACE)
    assert current is not None
    other = new_state()
    other.serial = 9
    s3_store.write(DEFAULT_WORKSPACE, encode_state(other), expected=current.version)  # like push --force
    with pytest.raises(RollbackRefused, match="lineage"):
        rollback_in(s3_store, DEFAULT_WORKSPACE, 3, LockOptions(), lambda p: True, errored_dir=tmp_path)
    assert json.loads(s3_store.read(DEFAULT_WORKSPACE).data)["lineage"] == other.lineage


# -- abandoned locks and forced unlocks -------------------------------------------------------------


def _old_lock(root: Path, minutes: int) -> LockInfo:
    """A lock file as a crashed CI run leaves it: last heartbeat ``minutes`` ago."""
    stamp = (datetime.now(UTC) - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    created = (datetime.now(UTC) - timedelta(minutes=minutes + 3)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    info = LockInfo(Who="ci@runner-7", Operation="OperationTypeApply", Created=created, Heartbeat=stamp, PID=0)
    (root / "ctl.tfstate.tflock").write_bytes(info.to_json())
    return info


def test_lock_status_reports_an_abandoned_lock(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    info = _old_lock(root, 12)
    assert run(["state", "lock-status"]) == 0
    out = capsys.readouterr().out
    assert "Status:    apparently abandoned (no heartbeat for 12m, held by ci@runner-7 for apply)" in out
    assert f"Break it (only if no run is using the state) with: ctl state unlock --force {info.ID}" in out
    assert run(["state", "lock-status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["abandoned"] is True and doc["unlock_command"] == f"ctl state unlock --force {info.ID}"
    assert 12 * 60 <= doc["heartbeat_age_seconds"] < 13 * 60 and doc["age_seconds"] >= 15 * 60
    assert doc["lock"]["Heartbeat"] == info.Heartbeat


def test_a_short_stale_threshold_makes_a_recent_lock_abandoned(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    info = _old_lock(root, 0)  # renewed "now" …
    assert run(["state", "lock-status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["abandoned"] is False
    assert run(["state", "lock"]) == 4
    err = capsys.readouterr().err
    assert "The state is locked by ci@runner-7" in err and f"ctl state unlock {info.ID}" in err

    (root / "ctl.tfstate.tflock").write_bytes(
        LockInfo(**{**info.__dict__, "Heartbeat": (datetime.now(UTC) - timedelta(seconds=5))
                    .strftime("%Y-%m-%dT%H:%M:%S.%fZ")}).to_json())
    monkeypatch.setenv("CTL_LOCK_STALE_SECONDS", "1")  # … but 5 s is "old" with a 1 s threshold
    assert run(["state", "lock"]) == 4
    err = capsys.readouterr().err
    assert "apparently abandoned (no heartbeat for 5s, held by ci@runner-7 for apply)" in err
    assert f"ctl state unlock --force {info.ID}" in err


def test_unlock_force_prints_and_logs_who_broke_whose_lock(
        root: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    from vocab.locks import who_am_i

    info = _old_lock(root, 12)
    assert run(["state", "unlock", "00000000-0000-4000-8000-000000000000"]) == 1  # wrong ID, no --force
    err = capsys.readouterr().err
    assert f"ctl state unlock --force {info.ID}" in err  # the abandoned lock's exact command
    assert (root / "ctl.tfstate.tflock").exists()

    with caplog.at_level(logging.WARNING, logger="engine.state_ops"):
        assert run(["state", "unlock", "--force", info.ID]) == 0
    err = capsys.readouterr().err
    me = who_am_i()
    assert f"Broke the state lock {info.ID} held by ci@runner-7 (OperationTypeApply" in err
    assert f"broken by {me} with --force" in err
    (record,) = [r for r in caplog.records if r.name == "engine.state_ops"]
    assert record.levelno == logging.WARNING
    assert info.ID in record.getMessage() and "ci@runner-7" in record.getMessage() and me in record.getMessage()
    assert (record.lock_who, record.broken_by, record.lock_operation) == (
        "ci@runner-7", me, "OperationTypeApply")
    assert not (root / "ctl.tfstate.tflock").exists()


def test_unlock_with_the_right_id_needs_no_force_and_logs_nothing(
        root: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    assert run(["state", "lock"]) == 0
    lock_id = capsys.readouterr().out.strip()
    with caplog.at_level(logging.WARNING, logger="engine.state_ops"):
        assert run(["state", "unlock", lock_id]) == 0
    assert "Broke" not in capsys.readouterr().err
    assert not [r for r in caplog.records if r.name == "engine.state_ops"]
