"""Shell completion: the generated scripts are current, and a real bash completes commands,
resource addresses from the state, ``--target`` values and workspace names.

Completion answers are mostly asked in-process (``cli.main.run`` under ``_CTL_COMPLETE``, as the
scripts ask the executable); the bash tests source the committed script in a real ``bash`` and
call its completion function the way bash does on Tab, which runs the real ``ctl`` executable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import DEFAULT_FILENAME, WORKSPACES_DIR, LocalStore
from cli.completion import addresses as completion_addresses
from cli.completion import backend as completion_backend
from cli.completion import workspaces as completion_workspaces
from cli.main import run
from engine.session import select_workspace, selected_workspace
from engine.state.address import format_key
from engine.state.manager import StateManager
from engine.state.model import InstanceState, new_state
from engine.state_tools.access import read_state
from engine.state_tools.listing import list_addresses

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS = REPO / "completions"
CTL = Path(sys.executable).with_name("ctl")
SCRIPTS = {"bash": "ctl.bash", "zsh": "_ctl", "fish": "ctl.fish"}
RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'
TFDATA = 'provider["terraform.io/builtin/terraform"]'
CONFIG = 'resource "terraform_data" "keep" {\n  input = "k"\n}\n'

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def write_state(state_file: Path, workspace: str = DEFAULT_WORKSPACE) -> StateManager:
    """A state with single, counted, for_each (with a dot in a key) and module instances."""
    state = new_state()
    state.set_instance("random_id.a", InstanceState(attributes={"id": "AQID", "byte_length": 3}), RANDOM)
    for i in (0, 1, 2, 10):
        state.set_instance(f"random_id.many[{i}]", InstanceState(attributes={"id": f"m{i}"}), RANDOM)
    state.set_instance('terraform_data.t["x.y"]', InstanceState(attributes={"id": "tx"}), TFDATA)
    state.set_instance('module.net["eu"].random_id.b', InstanceState(attributes={"id": "nb"}), RANDOM)
    state.set_instance("module.net.module.sub.random_id.c[0]", InstanceState(attributes={"id": "nc"}), RANDOM)
    manager = StateManager(LocalStore(state_file), workspace)
    manager.load()
    manager.persist(state)
    return manager


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / "main.tf").write_text(CONFIG)
    monkeypatch.chdir(folder)
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "_CTL_COMPLETE"):
        monkeypatch.delenv(name, raising=False)
    return folder


def complete(words: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The values ``ctl`` answers for bash when the command line is ``words`` (last word incomplete)."""
    monkeypatch.setenv("_CTL_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split(" ")) - 1))
    capsys.readouterr()
    assert run([]) == 0
    monkeypatch.delenv("_CTL_COMPLETE")
    lines = capsys.readouterr().out.splitlines()
    return [line.partition(",")[2] for line in lines if line.startswith("plain,")]


def instances_as_listed(root: Path) -> list[str]:
    """What ``ctl state list`` prints, in completion's order (root module first, then by text)."""
    return sorted(list_addresses(read_state(root), []), key=completion_addresses.address_order)


# -- the scripts ---------------------------------------------------------------------------------------


def test_completion_scripts_are_current(tmp_path: Path) -> None:
    """Regenerated as `make completions` does, each script equals the committed one."""
    assert CTL.exists(), f"the ctl executable is not installed at {CTL}"
    for shell, name in SCRIPTS.items():
        out = tmp_path / name
        with out.open("wb") as f:
            subprocess.run([str(CTL)], env={**os.environ, "_CTL_COMPLETE": f"source_{shell}"}, stdout=f, check=True)
        assert out.read_bytes() == (COMPLETIONS / name).read_bytes(), f"completions/{name} is stale: make completions"


def test_click_and_typer_spellings_give_the_same_script(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    scripts = []
    for instruction in ("source_bash", "bash_source"):
        monkeypatch.setenv("_CTL_COMPLETE", instruction)
        assert run([]) == 0
        scripts.append(capsys.readouterr().out)
    assert scripts[0] == scripts[1]
    assert "_CTL_COMPLETE=bash_complete" in scripts[0]


def test_an_unknown_instruction_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("_CTL_COMPLETE", "tcsh_source")
    assert run([]) == 1
    assert "Unsupported completion instruction" in capsys.readouterr().err


# -- in a real bash ------------------------------------------------------------------------------------


def bash_complete(words: list[str], cwd: Path) -> tuple[list[str], str]:
    """Source completions/ctl.bash in bash and complete ``words`` as Tab would: (COMPREPLY, complete -p)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = (
        f"source '{COMPLETIONS / 'ctl.bash'}'\n"
        "complete -p ctl\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
        "_ctl_completion ctl\n"
        'printf "reply:%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{CTL.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("_CTL_COMPLETE", None)
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    replies = [line[len("reply:"):] for line in proc.stdout.splitlines() if line.startswith("reply:")]
    return [r for r in replies if r], proc.stdout


@needs_bash
def test_bash_completes_a_command(root: Path) -> None:
    replies, out = bash_complete(["ctl", "st"], root)
    assert "complete -o nosort -F _ctl_completion ctl" in out
    assert replies == ["state"]


@needs_bash
def test_bash_completes_resource_addresses_for_state_show(root: Path) -> None:
    write_state(root / "ctl.tfstate")
    replies, _ = bash_complete(["ctl", "state", "show", ""], root)
    assert "random_id.a" in replies
    assert "random_id.many[10]" in replies
    # for_each keys keep their quotes: bash inserts the value as it would be typed
    assert "'terraform_data.t[\"x.y\"]'" in replies
    assert [r.strip("'") for r in replies] == instances_as_listed(root)
    narrowed, _ = bash_complete(["ctl", "state", "show", "random_id.many"], root)
    assert narrowed == ["random_id.many[0]", "random_id.many[1]", "random_id.many[2]", "random_id.many[10]"]


# -- what is offered -----------------------------------------------------------------------------------


def test_state_show_offers_exactly_the_instances_state_list_prints(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_state(root / "ctl.tfstate")
    offered = complete("ctl state show ", monkeypatch, capsys)
    assert [a.strip("'") for a in offered] == instances_as_listed(root)


def test_target_offers_instances_resources_and_modules(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_state(root / "ctl.tfstate")
    offered = [a.strip("'") for a in complete("ctl plan --target ", monkeypatch, capsys)]
    for address in ("random_id.many", "random_id.many[1]", "module.net", 'module.net["eu"]',
                    'module.net["eu"].random_id.b', "module.net.module.sub", "module.net.module.sub.random_id.c"):
        assert address in offered
    assert "random_id.a" in offered and offered.count("random_id.a") == 1
    assert [a.strip("'") for a in complete("ctl apply --target module.net.", monkeypatch, capsys)] == [
        "module.net.module.sub", "module.net.module.sub.random_id.c", "module.net.module.sub.random_id.c[0]"]
    assert complete("ctl destroy --exclude random_id.many[1", monkeypatch, capsys) == [
        "random_id.many[1]", "random_id.many[10]"]


def test_replace_and_state_commands(root: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    write_state(root / "ctl.tfstate")
    assert complete("ctl apply --replace random_id.m", monkeypatch, capsys) == [
        "random_id.many[0]", "random_id.many[1]", "random_id.many[2]", "random_id.many[10]"]
    assert "random_id.many" in complete("ctl state rm random_id.m", monkeypatch, capsys)
    assert "random_id.many" in complete("ctl state mv random_id.m", monkeypatch, capsys)
    assert complete("ctl state mv random_id.a ", monkeypatch, capsys) == []  # the new name is the user's
    assert "random_id.a" in complete("ctl state list random", monkeypatch, capsys)


def test_no_state_offers_nothing_and_never_fails(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert complete("ctl state show ", monkeypatch, capsys) == []
    (root / "ctl.tfstate").write_text("{not json")
    assert complete("ctl state show ", monkeypatch, capsys) == []
    assert complete("ctl -C /no/such/dir state show ", monkeypatch, capsys) == []
    assert complete("ctl -C /no/such/dir workspace select ", monkeypatch, capsys) == []


def test_chdir_and_workspaces_pick_the_state(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    store = LocalStore(root / "ctl.tfstate")
    write_state(root / "ctl.tfstate")
    staging = new_state()
    staging.set_instance("random_id.only_in_staging", InstanceState(attributes={"id": "s"}), RANDOM)
    manager = StateManager(store, "staging")
    manager.load()
    manager.persist(staging)
    monkeypatch.chdir(tmp_path)
    assert "random_id.a" in complete("ctl -C cfg state show ", monkeypatch, capsys)
    select_workspace(root, "staging")
    assert complete("ctl --chdir cfg state show ", monkeypatch, capsys) == ["random_id.only_in_staging"]
    monkeypatch.setenv("CTL_WORKSPACE", DEFAULT_WORKSPACE)
    assert "random_id.a" in complete("ctl -C cfg state show ", monkeypatch, capsys)


def test_a_local_backend_path_is_followed(root: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (root / "backend.tf").write_text('terraform {\n  backend "local" {\n    path = "states/app.tfstate"\n  }\n}\n')
    write_state(root / "states" / "app.tfstate")
    offered = [a.strip("'") for a in complete("ctl state show ", monkeypatch, capsys)]
    assert offered == instances_as_listed(root)
    (root / "backend.tf").unlink()
    (root / "backend.tf.json").write_text(json.dumps({"terraform": {"backend": {"local": {"path": "states/app.tfstate"}}}}))
    assert [a.strip("'") for a in complete("ctl state show ", monkeypatch, capsys)] == offered


def test_a_remote_backend_is_not_contacted(root: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (root / "backend.tf").write_text('terraform {\n  backend "s3" {\n    bucket = "b"\n    key = "k"\n  }\n}\n')
    write_state(root / "ctl.tfstate")  # a stale local file must not be offered as the remote state
    assert complete("ctl state show ", monkeypatch, capsys) == []
    assert complete("ctl workspace select ", monkeypatch, capsys) == []


def test_an_interrupted_applys_journal_is_seen(root: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    manager = write_state(root / "ctl.tfstate")
    manager.load()
    manager.journal.record_intent("random_id.fresh", "create")
    manager.journal.record_result("random_id.fresh", "create", InstanceState(attributes={"id": "f"}), provider=RANDOM)
    manager.journal.record_intent("random_id.a", "delete")
    manager.journal.record_removed("random_id.a")
    manager.journal.record_intent("random_id.never", "create")  # no result: an orphan, not in the state
    offered = [a.strip("'") for a in complete("ctl state show ", monkeypatch, capsys)]
    assert "random_id.fresh" in offered and "random_id.a" not in offered and "random_id.never" not in offered
    assert offered == instances_as_listed(root)


def test_workspace_names(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("prod", "staging"):
        (root / WORKSPACES_DIR / name).mkdir(parents=True)
    assert complete("ctl workspace select ", monkeypatch, capsys) == ["prod", "staging"]
    select_workspace(root, "staging")
    assert complete("ctl workspace select ", monkeypatch, capsys) == ["default", "prod"]
    assert complete("ctl workspace delete ", monkeypatch, capsys) == ["prod"]
    assert complete("ctl workspace select p", monkeypatch, capsys) == ["prod"]


# -- the facts completion mirrors instead of importing ---------------------------------------------------


def test_mirrored_facts_match_the_engine(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert completion_backend.STATE_FILE == DEFAULT_FILENAME
    assert completion_workspaces.WORKSPACES_DIR == WORKSPACES_DIR
    assert completion_workspaces.DEFAULT_WORKSPACE == DEFAULT_WORKSPACE
    assert completion_workspaces.selected_workspace(root) == selected_workspace(root)
    select_workspace(root, "blue")
    assert completion_workspaces.selected_workspace(root) == selected_workspace(root) == "blue"
    monkeypatch.setenv("TF_WORKSPACE", "green")
    assert completion_workspaces.selected_workspace(root) == selected_workspace(root) == "green"
    for key in (None, 0, 12, "a", 'q"uote', "ünï"):
        assert completion_addresses._key(key) == format_key(key)
    store = LocalStore(root / "ctl.tfstate")
    assert completion_workspaces.state_file(root) == store.state_path("green")
    (root / WORKSPACES_DIR / "green").mkdir(parents=True)
    assert completion_workspaces.workspaces(root) == store.workspaces()
