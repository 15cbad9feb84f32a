"""``ctl workspace …``: separate states per workspace, selection, and the guards on delete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends.local.store import LocalStore
from cli.main import run
from engine.state.manager import StateManager
from engine.state.model import InstanceState, new_state

CTL = Path(sys.executable).with_name("ctl")
RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'


def put_object(root: Path, workspace: str, address: str) -> None:
    """Record one object in a workspace's state, as an apply in that workspace would have."""
    manager = StateManager(LocalStore(root / "ctl.tfstate"), workspace)
    state = manager.load()
    state.set_instance(address, InstanceState(attributes={"id": address}), RANDOM)
    manager.persist(state)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tf").write_text('resource "random_id" "a" {\n  byte_length = 2\n}\n')
    put_object(tmp_path, "default", "random_id.a")
    return tmp_path


def test_list_and_show_start_with_default(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "list"]) == 0
    assert capsys.readouterr().out == "* default\n"
    assert run(["workspace", "show"]) == 0
    assert capsys.readouterr().out == "default\n"


def test_new_creates_an_empty_state_and_selects_it(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert 'Created and switched to workspace "dev"' in capsys.readouterr().out
    doc = json.loads((root / "ctl.tfstate.d" / "dev" / "ctl.tfstate").read_text())
    assert doc["resources"] == [] and doc["serial"] == 1
    assert run(["workspace", "list"]) == 0
    assert capsys.readouterr().out == "  default\n* dev\n"
    assert run(["state", "list"]) == 0  # state commands now read the dev state
    assert capsys.readouterr().out == ""


def test_new_refuses_an_existing_or_invalid_name(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["workspace", "new", "dev"]) == 1
    assert 'Workspace "dev" already exists' in capsys.readouterr().err
    assert run(["workspace", "new", "no/slashes"]) == 64
    assert "Invalid workspace name" in capsys.readouterr().err


def test_one_name_rule_for_the_cli_and_the_store(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    long_name = "w" * 100
    for name in ("_ci", long_name, "v1.2-rc_3"):  # names Terraform accepts too
        assert run(["workspace", "new", name]) == 0, name
        assert (root / "ctl.tfstate.d" / name / "ctl.tfstate").is_file()
    for name in (".hidden", "..", "a/b", "-x", "a b"):
        assert run(["workspace", "new", "--", name]) == 64, name
        assert f'Invalid workspace name "{name}"' in capsys.readouterr().err
    monkeypatch.setenv("CTL_WORKSPACE", "../escape")  # reaches the store without `workspace new`
    assert run(["state", "list"]) == 64
    err = capsys.readouterr().err
    assert 'Invalid workspace name "../escape"' in err and "starting with a letter, digit or '_'" in err
    assert not (root.parent / "escape").exists()


def test_select_switches_and_refuses_an_unknown_workspace(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["workspace", "select", "default"]) == 0
    assert run(["state", "list"]) == 0
    assert "random_id.a" in capsys.readouterr().out
    assert run(["workspace", "select", "prod"]) == 1
    err = capsys.readouterr().err
    assert 'Workspace "prod" doesn\'t exist' in err and "ctl workspace new prod" in err
    assert run(["workspace", "show"]) == 0
    assert capsys.readouterr().out == "default\n"
    assert run(["workspace", "select", "--or-create", "prod"]) == 0
    assert run(["workspace", "show"]) == 0
    assert capsys.readouterr().out.endswith("prod\n")


def test_the_environment_overrides_the_selection(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["workspace", "select", "default"]) == 0
    monkeypatch.setenv("CTL_WORKSPACE", "dev")
    capsys.readouterr()
    assert run(["workspace", "show"]) == 0
    assert capsys.readouterr().out == "dev\n"
    assert run(["workspace", "select", "default"]) == 1
    assert "CTL_WORKSPACE" in capsys.readouterr().err


def test_delete_refuses_default_and_the_current_workspace(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "delete", "default"]) == 1
    assert '"default" workspace cannot be deleted' in capsys.readouterr().err
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["workspace", "delete", "dev"]) == 1
    assert "current workspace" in capsys.readouterr().err
    assert run(["workspace", "delete", "nope"]) == 1
    assert 'Workspace "nope" doesn\'t exist' in capsys.readouterr().err
    assert (root / "ctl.tfstate.d" / "dev").is_dir()


def test_delete_refuses_a_workspace_that_still_records_objects(root: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    put_object(root, "dev", "random_id.in_dev")
    assert run(["workspace", "select", "default"]) == 0
    capsys.readouterr()
    assert run(["workspace", "delete", "dev"]) == 1
    err = capsys.readouterr().err
    assert "not empty" in err and "1 resource instance" in err and "--force" in err
    assert (root / "ctl.tfstate.d" / "dev" / "ctl.tfstate").exists()
    assert run(["workspace", "delete", "--force", "dev"]) == 0
    assert "no longer managed" in capsys.readouterr().err
    assert not (root / "ctl.tfstate.d" / "dev").exists()
    assert run(["workspace", "list"]) == 0
    assert capsys.readouterr().out == "* default\n"


def test_delete_of_an_empty_workspace_succeeds(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "tmp"]) == 0
    assert run(["workspace", "select", "default"]) == 0
    assert run(["workspace", "delete", "tmp"]) == 0
    assert 'Deleted workspace "tmp"' in capsys.readouterr().out
    assert not (root / "ctl.tfstate.d" / "tmp").exists()


def test_delete_of_a_locked_workspace_exits_4(root: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["workspace", "new", "dev"]) == 0
    assert run(["state", "lock", "--reason", "dev is busy"]) == 0
    assert run(["workspace", "select", "default"]) == 0
    capsys.readouterr()
    assert run(["workspace", "delete", "dev"]) == 4
    assert "dev is busy" in capsys.readouterr().err
    assert (root / "ctl.tfstate.d" / "dev").is_dir()


def test_executable_new_list_select(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CTL_WORKSPACE", "TF_WORKSPACE")}

    def ctl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CTL), "-C", str(root), *args], capture_output=True, text=True, env=env,
                              timeout=60, check=False)

    assert ctl("workspace", "new", "staging").returncode == 0
    listed = ctl("workspace", "list")
    assert listed.returncode == 0 and listed.stdout == "  default\n* staging\n"
    assert ctl("workspace", "select", "missing").returncode == 1
    assert ctl("workspace", "select", "default").returncode == 0
    assert ctl("workspace", "show").stdout == "default\n"


def test_executable_apply_in_a_workspace_keeps_default_untouched(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CTL_WORKSPACE", "TF_WORKSPACE")}

    def ctl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CTL), "-C", str(root), *args], capture_output=True, text=True, env=env,
                              timeout=60, check=False)

    before = (root / "ctl.tfstate").read_bytes()
    assert ctl("workspace", "new", "qa").returncode == 0
    assert ctl("apply", "--auto-approve").returncode == 0
    assert ctl("state", "list").stdout == "random_id.a\n"
    assert (root / "ctl.tfstate").read_bytes() == before
    assert ctl("workspace", "select", "default").returncode == 0
    refused = ctl("workspace", "delete", "qa")
    assert refused.returncode == 1 and "not empty" in refused.stderr


def test_new_workspace_state_has_a_fresh_lineage(root: Path) -> None:
    assert run(["workspace", "new", "a"]) == 0
    assert run(["workspace", "new", "b"]) == 0
    lineages = {json.loads((root / "ctl.tfstate.d" / n / "ctl.tfstate").read_text())["lineage"] for n in "ab"}
    lineages.add(json.loads((root / "ctl.tfstate").read_text())["lineage"])
    assert len(lineages) == 3
    assert new_state().lineage not in lineages
