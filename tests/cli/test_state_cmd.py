"""``ctl state …`` as a user runs it: listing, showing, renaming, forgetting, pull/push and locks."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore
from cli.main import run
from engine.state.manager import StateManager
from engine.state.model import InstanceState, State, new_state
from vocab.values import SENSITIVE, mark

CTL = Path(sys.executable).with_name("ctl")
RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'
TFDATA = 'provider["terraform.io/builtin/terraform"]'
CONFIG = 'resource "terraform_data" "keep" {\n  input = "k"\n}\n'


def write_state(root: Path, workspace: str = DEFAULT_WORKSPACE) -> State:
    """A state with a single instance, a counted resource, a for_each resource, a module and a secret."""
    state = new_state()
    state.set_instance("random_id.a", InstanceState(attributes={"id": "AQID", "byte_length": 3}), RANDOM)
    for i in range(2):
        state.set_instance(f"random_id.many[{i}]", InstanceState(attributes={"id": f"m{i}", "byte_length": 2}), RANDOM)
    state.set_instance('terraform_data.t["x"]', InstanceState(attributes={"id": "tx", "input": "x"}), TFDATA)
    state.set_instance("module.net.random_id.b", InstanceState(attributes={"id": "nb", "byte_length": 1}), RANDOM)
    secret = InstanceState.from_marked({"id": "none", "length": 8, "result": mark("hunter22", frozenset({SENSITIVE}))})
    state.set_instance("random_password.pw", secret, RANDOM)
    manager = StateManager(LocalStore(root / "ctl.tfstate"), workspace)
    manager.load()
    manager.persist(state)
    return state


def stored(root: Path) -> dict:
    return json.loads((root / "ctl.tfstate").read_text())


def addresses(root: Path) -> list[str]:
    doc = stored(root)
    out = []
    for res in doc["resources"]:
        prefix = (res.get("module", "") + ".") if res.get("module") else ""
        for inst in res["instances"]:
            key = inst.get("index_key")
            suffix = "" if key is None else (f"[{key}]" if isinstance(key, int) else f'["{key}"]')
            out.append(f"{prefix}{res['type']}.{res['name']}{suffix}")
    return sorted(out)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID", "CTL_LOCK_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tf").write_text(CONFIG)
    write_state(tmp_path)
    return tmp_path


# -- list and show ----------------------------------------------------------------------------------


def test_list_prints_every_instance_root_module_first(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "list"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "random_id.a", "random_id.many[0]", "random_id.many[1]", "random_password.pw", 'terraform_data.t["x"]',
        "module.net.random_id.b",
    ]


def test_list_filters_by_resource_and_module_prefix(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "list", "random_id.many", "module.net"]) == 0
    assert capsys.readouterr().out.splitlines() == ["random_id.many[0]", "random_id.many[1]", "module.net.random_id.b"]
    assert run(["state", "list", "random_id.man"]) == 0  # a prefix of a name is not a match
    assert capsys.readouterr().out == ""


def test_list_json_and_id_filter(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "list", "--json", "--id", "m1"]) == 0
    assert json.loads(capsys.readouterr().out) == ["random_id.many[1]"]


def test_list_of_a_directory_without_state_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["state", "list"]) == 0
    assert capsys.readouterr().out == ""


def test_list_rejects_a_malformed_address(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "list", "random_id.a[x]"]) == 1
    assert "invalid resource address" in capsys.readouterr().err


def test_show_masks_secrets_unless_asked(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "show", "random_password.pw"]) == 0
    out = capsys.readouterr().out
    assert 'resource "random_password" "pw"' in out
    assert "(sensitive value)" in out and "hunter22" not in out
    assert run(["state", "show", "random_password.pw", "--show-sensitive"]) == 0
    assert "hunter22" in capsys.readouterr().out


def test_show_json_is_the_show_json_resource_shape(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "show", "random_id.many[1]", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["address"] == "random_id.many[1]" and doc["index"] == 1
    assert doc["provider_name"] == "registry.terraform.io/hashicorp/random"
    assert doc["values"] == {"id": "m1", "byte_length": 2}
    assert run(["state", "show", "random_password.pw", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["values"]["result"] == "(sensitive value)" and doc["sensitive_values"] == {"result": True}


def test_show_of_an_unknown_address_names_it(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "show", "random_id.zzz"]) == 1
    err = capsys.readouterr().err
    assert '"random_id.zzz"' in err and "ctl state list" in err


def test_show_of_a_resource_with_several_instances_lists_them(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "show", "random_id.many"]) == 1
    assert "random_id.many[0], random_id.many[1]" in capsys.readouterr().err


# -- mv ---------------------------------------------------------------------------------------------


def test_mv_renames_an_instance_bumps_the_serial_and_keeps_a_backup(root: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "mv", "random_id.a", "random_id.renamed"]) == 0
    assert 'Move "random_id.a" to "random_id.renamed"' in capsys.readouterr().out
    doc = stored(root)
    assert doc["serial"] == 2
    assert json.loads((root / "ctl.tfstate.backup").read_text())["serial"] == 1
    res = next(r for r in doc["resources"] if r["name"] == "renamed")
    assert res["provider"] == RANDOM and res["instances"][0]["attributes"]["id"] == "AQID"
    assert "random_id.a" not in addresses(root)


def test_mv_of_a_whole_resource_moves_every_instance(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "mv", "random_id.many", "random_id.other"]) == 0
    assert "Successfully moved 2 object(s)." in capsys.readouterr().out
    assert {"random_id.other[0]", "random_id.other[1]"} <= set(addresses(root))
    assert not any(a.startswith("random_id.many") for a in addresses(root))


def test_mv_between_an_instance_key_and_none(root: Path) -> None:
    assert run(["state", "mv", "random_id.many[1]", "random_id.single"]) == 0
    assert run(["state", "mv", "random_id.a", "random_id.many[5]"]) == 0
    assert {"random_id.single", "random_id.many[0]", "random_id.many[5]"} <= set(addresses(root))


def test_mv_of_a_module_moves_everything_inside(root: Path) -> None:
    assert run(["state", "mv", "module.net", "module.network"]) == 0
    assert "module.network.random_id.b" in addresses(root)


def test_mv_refuses_an_existing_destination_and_changes_nothing(root: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    before = (root / "ctl.tfstate").read_bytes()
    assert run(["state", "mv", "random_id.a", "random_id.many[0]"]) == 1
    assert "random_id.many[0] already exists" in capsys.readouterr().err
    assert run(["state", "mv", "random_id.a", "terraform_data.a"]) == 1
    assert "types differ" in capsys.readouterr().err
    assert run(["state", "mv", "random_id.nothing", "random_id.b"]) == 1
    assert "does not match anything" in capsys.readouterr().err
    assert (root / "ctl.tfstate").read_bytes() == before


def test_mv_dry_run_only_tells(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (root / "ctl.tfstate").read_bytes()
    assert run(["state", "mv", "--dry-run", "random_id.a", "random_id.b"]) == 0
    assert 'Would move "random_id.a" to "random_id.b"' in capsys.readouterr().out
    assert (root / "ctl.tfstate").read_bytes() == before


# -- rm ---------------------------------------------------------------------------------------------


def test_rm_forgets_instances_resources_and_modules(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "rm", "random_id.many[0]", "random_password.pw", "module.net"]) == 0
    out = capsys.readouterr().out
    assert "Removed random_id.many[0]" in out and "Successfully removed 3 resource instance(s)." in out
    assert addresses(root) == ["random_id.a", "random_id.many[1]", 'terraform_data.t["x"]']
    assert stored(root)["serial"] == 2


def test_rm_with_one_unknown_address_removes_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (root / "ctl.tfstate").read_bytes()
    assert run(["state", "rm", "random_id.a", "random_id.typo"]) == 1
    assert '"random_id.typo"' in capsys.readouterr().err
    assert (root / "ctl.tfstate").read_bytes() == before


def test_rm_waits_for_nobody_when_the_state_is_locked(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock", "--reason", "maintenance"]) == 0
    lock_id = capsys.readouterr().out.strip()
    assert run(["state", "rm", "random_id.a"]) == 4
    err = capsys.readouterr().err
    assert lock_id in err and "maintenance" in err and f"ctl state unlock {lock_id}" in err
    assert "random_id.a" in addresses(root)


def test_rm_runs_under_a_lock_handed_down_with_ctl_lock_id(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock"]) == 0
    lock_id = capsys.readouterr().out.strip()
    monkeypatch.setenv("CTL_LOCK_ID", lock_id)
    assert run(["state", "rm", "random_id.a"]) == 0
    assert "random_id.a" not in addresses(root)
    assert (root / "ctl.tfstate.tflock").exists()  # the wrapper's lock stays held


def test_no_lock_edits_with_a_warning(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock"]) == 0
    capsys.readouterr()
    assert run(["state", "rm", "--lock=false", "random_id.a"]) == 0
    assert "Not locking the state" in capsys.readouterr().err
    assert "random_id.a" not in addresses(root)


# -- pull and push ----------------------------------------------------------------------------------


def test_pull_prints_the_stored_document(root: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert run(["state", "pull"]) == 0
    assert capsysbinary.readouterr().out == (root / "ctl.tfstate").read_bytes()


def test_pull_includes_an_interrupted_applys_journal_and_can_be_pushed_back(
    root: Path, capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    manager = StateManager(LocalStore(root / "ctl.tfstate"))
    manager.load()
    manager.journal.record_intent("random_id.late", "create")
    manager.journal.record_result("random_id.late", "create", InstanceState(attributes={"id": "late"}))
    assert run(["state", "pull"]) == 0
    doc = json.loads(capsysbinary.readouterr().out)
    assert doc["serial"] == 2 and any(r["name"] == "late" for r in doc["resources"])
    (tmp_path / "pulled.tfstate").write_text(json.dumps(doc))
    assert run(["state", "push", "pulled.tfstate"]) == 0
    assert stored(root)["serial"] == 2 and "random_id.late" in addresses(root)
    assert not (root / "ctl.tfstate.journal").exists()


def _variant(root: Path, name: str, **changes: object) -> Path:
    doc = stored(root)
    doc.update(changes)
    path = root / name
    path.write_text(json.dumps(doc))
    return path


def test_push_refuses_an_older_copy_another_lineage_and_a_diverged_copy(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (root / "ctl.tfstate").read_bytes()
    _variant(root, "older.tfstate", serial=0)
    _variant(root, "other.tfstate", lineage="another-state", serial=9)
    _variant(root, "diverged.tfstate", outputs={"x": {"value": 1, "type": "number"}})
    assert run(["state", "push", "older.tfstate"]) == 1
    assert "lower than the stored serial 1" in capsys.readouterr().err
    assert run(["state", "push", "other.tfstate"]) == 1
    assert "lineage another-state differs" in capsys.readouterr().err
    assert run(["state", "push", "diverged.tfstate"]) == 1
    err = capsys.readouterr().err
    assert "different content" in err and "--force" in err
    assert (root / "ctl.tfstate").read_bytes() == before


def test_push_force_overwrites_but_never_lowers_the_serial(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _variant(root, "older.tfstate", serial=0, resources=[])
    assert run(["state", "push", "--force", "older.tfstate"]) == 0
    assert "--force" in capsys.readouterr().err
    doc = stored(root)
    assert doc["resources"] == [] and doc["serial"] == 2


def test_push_of_a_newer_copy_keeps_its_serial(root: Path) -> None:
    _variant(root, "newer.tfstate", serial=7, resources=[])
    assert run(["state", "push", "newer.tfstate"]) == 0
    assert stored(root)["serial"] == 7 and addresses(root) == []


def test_push_reads_standard_input(root: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    data = (root / "ctl.tfstate").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert run(["state", "push", "-"]) == 0
    assert "already identical" in capsys.readouterr().err


def test_push_of_an_unreadable_file_is_a_clear_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "push", "missing.tfstate"]) == 64
    assert "Cannot read missing.tfstate" in capsys.readouterr().err
    (root / "junk.tfstate").write_text("{not json")
    assert run(["state", "push", "junk.tfstate"]) == 1


# -- locks ------------------------------------------------------------------------------------------


def test_lock_status_unlock_round_trip(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock-status"]) == 0
    assert "not locked" in capsys.readouterr().out
    assert run(["state", "lock", "--reason", "release 42"]) == 0
    lock_id = capsys.readouterr().out.strip()
    assert run(["state", "lock-status"]) == 0
    out = capsys.readouterr().out
    assert lock_id in out and "release 42" in out and "OperationTypeStateLock" in out
    assert "no longer runs" not in out  # held on purpose, not left behind by a crash
    assert run(["state", "lock-status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["locked"] is True and doc["lock"]["ID"] == lock_id and doc["age_seconds"] >= 0
    assert run(["state", "unlock", lock_id]) == 0
    assert "successfully unlocked" in capsys.readouterr().out
    assert run(["state", "lock-status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"locked": False}


def test_a_second_lock_exits_4_and_describes_the_holder(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock", "--json", "--reason", "first"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["Path"].endswith("ctl.tfstate") and info["Info"] == "first"
    assert run(["state", "lock"]) == 4
    err = capsys.readouterr().err
    assert info["ID"] in err and "first" in err and info["Who"] in err


def test_unlock_with_a_wrong_id_shows_the_real_holder(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["state", "lock"]) == 0
    lock_id = capsys.readouterr().out.strip()
    assert run(["state", "unlock", "not-the-id"]) == 1
    err = capsys.readouterr().err
    assert "not-the-id does not match" in err and lock_id in err
    assert (root / "ctl.tfstate.tflock").exists()
    assert run(["state", "unlock", "--force", "not-the-id"]) == 0
    assert not (root / "ctl.tfstate.tflock").exists()
    assert run(["state", "unlock", lock_id]) == 1
    assert "not locked" in capsys.readouterr().err


# -- through the real executable ----------------------------------------------------------------------


def _ctl(root: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID")}
    return subprocess.run([str(CTL), "-C", str(root), *args], capture_output=True, text=True, env=env,
                          timeout=60, check=False, **kw)


def test_executable_applies_then_lists_and_moves(root: Path) -> None:
    (root / "ctl.tfstate").unlink()
    (root / "main.tf").write_text('resource "random_id" "a" {\n  count = 2\n  byte_length = 2\n}\n')
    assert _ctl(root, "apply", "--auto-approve").returncode == 0
    listed = _ctl(root, "state", "list")
    assert listed.returncode == 0 and listed.stdout == "random_id.a[0]\nrandom_id.a[1]\n"
    moved = _ctl(root, "state", "mv", "random_id.a[1]", "random_id.a[7]")
    assert moved.returncode == 0, moved.stderr
    assert _ctl(root, "state", "list", "--json").stdout.strip() == '[\n  "random_id.a[0]",\n  "random_id.a[7]"\n]'


def test_executable_lock_blocks_rm_with_exit_4_until_unlocked(root: Path) -> None:
    locked = _ctl(root, "state", "lock", "--reason", "hands off")
    assert locked.returncode == 0
    lock_id = locked.stdout.strip()
    blocked = _ctl(root, "state", "rm", "random_id.a")
    assert blocked.returncode == 4 and "hands off" in blocked.stderr and lock_id in blocked.stderr
    assert _ctl(root, "state", "unlock", lock_id).returncode == 0
    assert _ctl(root, "state", "rm", "random_id.a").returncode == 0
    assert "random_id.a" not in addresses(root)
