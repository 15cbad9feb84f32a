"""Terraform's flags mean on ctl what they mean on Terraform, through the real ``ctl`` executable.

tests/cli/test_terraform_flags.py checks that every flag is accepted; this checks what the ones
ctl newly takes do: init's -input, -backend=false, -from-module and -lockfile=readonly,
-compact-warnings, =true/=false on every flag, import's -config and -allow-missing-config,
workspace new -state, graph -plan, refresh, and the legacy -state answered with what to do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, Project

MIRROR = REPO.parent / "shared" / "providers"
DATA = 'resource "terraform_data" "a" {\n  input = "a"\n}\n'


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "cfg"
    root.mkdir()
    return Project(root)


def test_init_takes_input_false_and_upgrade_false(project: Project) -> None:
    project.write(DATA)
    res = project.ctl("init", "-input=false", "-upgrade=false", "-get=false", "-no-color")
    assert res.code == 0, res
    assert "ctl has been successfully initialized!" in res.stdout


def test_init_with_backend_false_leaves_the_backend_alone(project: Project) -> None:
    project.write(DATA + 'terraform {\n  backend "local" {\n    path = "elsewhere.tfstate"\n  }\n}\n')
    res = project.ctl("init", "-backend=false")
    assert res.code == 0, res
    assert "--backend=false" in res.stdout
    assert not project.path(".ctl", "backend.json").exists()
    assert project.ctl("validate").code == 0
    project.ok("init")
    assert json.loads(project.path(".ctl", "backend.json").read_text())["type"] == "local"


def test_init_from_module_copies_a_local_module_into_an_empty_directory(project: Project) -> None:
    module = project.root.parent / "example"
    (module / "files").mkdir(parents=True)
    (module / "main.tf").write_text(DATA)
    (module / "files" / "x.txt").write_text("x")
    res = project.ctl("init", "-from-module=../example")
    assert res.code == 0, res
    assert project.path("main.tf").read_text() == DATA and project.path("files", "x.txt").exists()
    assert "Plan: 1 to add" in project.ok("plan").stdout

    again = project.ctl("init", "-from-module=../example")
    assert again.code == 1 and "without configuration files" in again.stderr, again
    remote = project.ctl("init", "-from-module=hashicorp/consul/aws")
    assert remote.code == 1 and "not a local directory" in remote.stderr, remote


@pytest.fixture
def mirror() -> Path:
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "null").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


def test_init_lockfile_readonly_never_changes_the_lock_file(project: Project, mirror: Path) -> None:
    project.write('terraform {\n  required_providers {\n    null = { source = "hashicorp/null" }\n  }\n}\n'
                  'resource "null_resource" "a" {}\n')
    lock = project.path(".terraform.lock.hcl")
    res = project.ctl("init", f"-plugin-dir={mirror}", "-lockfile=readonly")
    assert res.code == 1, res
    assert "--lockfile=readonly" in res.stderr and not lock.exists()

    project.ok("init", f"-plugin-dir={mirror}")
    pinned = lock.read_bytes()
    project.ok("init", f"-plugin-dir={mirror}", "-lockfile=readonly")
    assert lock.read_bytes() == pinned
    assert project.ctl("init", "-lockfile=sometimes").code == 64


def test_compact_warnings_show_each_warning_as_one_line(project: Project) -> None:
    project.write(DATA)
    project.path("terraform.tfvars").write_text('undeclared = "x"\n')
    full = project.ctl("plan", "-refresh=false")
    compact = project.ctl("plan", "-refresh=false", "-compact-warnings")
    assert full.code == compact.code == 0, compact
    summary = 'Value for undeclared variable "undeclared"'
    assert summary in full.stderr and summary in compact.stderr
    assert "sets it, but the root module does not declare it" in full.stderr
    assert "sets it, but the root module does not declare it" not in compact.stderr
    assert [line for line in compact.stderr.splitlines() if line.strip()] == [
        f"Warning: terraform.tfvars:1:14: {summary}"]


def test_true_and_false_spell_every_flag(project: Project) -> None:
    project.write(DATA)
    asked = project.ctl("apply", "-auto-approve=false")
    assert asked.code == 1 and "needs confirmation" in asked.stderr, asked
    assert project.ctl("apply", "-auto-approve=true", "-lock=true").code == 0
    assert project.ctl("plan", "-detailed-exitcode=false", "-lock=false", "-refresh=true").code == 0
    wrong = project.ctl("plan", "-lock=maybe")
    assert wrong.code == 64 and 'Invalid value "maybe" for --lock' in wrong.stderr, wrong

    project.write('resource "terraform_data" "a" {\ninput = "a"\n}\n')
    before = project.path("main.tf").read_text()
    checked = project.ctl("fmt", "-list=false", "-write=false", "-check=true")
    assert checked.code == 2 and checked.stdout == "", checked  # not formatted; nothing listed
    assert project.path("main.tf").read_text() == before


def test_the_legacy_state_option_says_what_to_do_instead(project: Project) -> None:
    project.write(DATA)
    res = project.ctl("plan", "-state=other.tfstate")
    assert res.code == 64, res
    assert "legacy option" in res.stderr and 'backend "local"' in res.stderr


def test_workspace_new_with_state_starts_from_that_state(project: Project) -> None:
    project.write(DATA)
    project.apply()
    saved = project.root.parent / "saved.tfstate"
    saved.write_text(project.ok("state", "pull").stdout)
    res = project.ctl("workspace", "new", "-lock=false", "-lock-timeout=1s", "-state", str(saved), "copy")
    assert res.code == 0, res
    assert project.ok("workspace", "show").stdout.strip() == "copy"
    assert project.ok("state", "list").stdout.split() == ["terraform_data.a"]
    assert project.ctl("plan", "-detailed-exitcode").code == 0  # the copy's object is the configuration's

    bad = project.ctl("workspace", "new", "-state=main.tf", "broken")
    assert bad.code == 1 and "corrupt" in bad.stderr, bad
    assert "broken" not in project.ok("workspace", "list").stdout


RANDOM = 'resource "random_id" "kept" {\n  byte_length = 4\n}\n'


def test_import_with_allow_missing_config_and_config(project: Project, tmp_path: Path) -> None:
    project.write(RANDOM)
    refused = project.ctl("import", "random_id.other", "3q2-7w")
    assert refused.code == 1 and "does not exist in the configuration" in refused.stderr, refused
    res = project.ctl("import", "-allow-missing-config", "random_id.other", "3q2-7w")
    assert res.code == 0, res
    assert project.instances()["random_id.other"]["attributes"]["b64_url"] == "3q2-7w"
    plan = project.ok("plan")
    assert "random_id.other will be destroyed" in plan.stdout

    elsewhere = Project(tmp_path / "elsewhere")
    elsewhere.root.mkdir()
    imported = elsewhere.ctl("import", f"-config={project.root}", "random_id.kept", "AAECAw")
    assert imported.code == 0, imported
    assert project.instances()["random_id.kept"]["attributes"]["b64_url"] == "AAECAw"


def test_graph_plan_expands_instances_as_the_plan_did(project: Project) -> None:
    project.write('variable "n" {\n  default = 1\n}\nresource "terraform_data" "a" {\n  count = var.n\n}\n')
    assert project.ctl("plan", "-var", "n=3", "-out=tfplan").code == 0
    planned = project.ok("graph", "-plan=tfplan", "-type=plan", "-draw-cycles").stdout
    plain = project.ok("graph").stdout
    assert '"terraform_data.a[2]"' in planned and '"terraform_data.a[2]"' not in plain
    assert project.ctl("graph", "-type=nonsense").code == 64


def test_refresh_records_an_object_deleted_outside_ctl(project: Project) -> None:
    project.write('resource "local_file" "f" {\n  filename = "${path.module}/f.txt"\n  content = "x"\n}\n')
    project.apply()
    project.path("f.txt").unlink()
    res = project.ctl("refresh", "-input=false", "-lock-timeout=1s")
    assert res.code == 0, res
    assert project.instances() == {}
    assert not project.path("f.txt").exists()  # refresh changes no real object


def test_dash_v_prints_the_version(project: Project) -> None:
    assert project.ok("-v").stdout == project.ok("--version").stdout




def test_output_and_state_read_a_state_file_as_terraform_does(project: Project, tmp_path: Path) -> None:
    from tests.plugin.terraform_cli import TerraformDir

    project.write('output "greeting" {\n  value = { text = "hi", n = 2 }\n}\noutput "s" {\n  value = "x"\n}\n' + DATA)
    project.apply()
    saved = tmp_path / "elsewhere.tfstate"
    saved.write_text(project.ok("state", "pull").stdout)
    project.ok("destroy", "--auto-approve")  # the backend's state is now empty: only the file has them
    tf = TerraformDir(tmp_path / "tf", Path("/nonexistent"))
    state = f"-state={saved}"

    for args in (["output", state, "-json"], ["output", state, "-raw", "s"], ["state", "list", state]):
        ours, theirs = project.ctl(*args), tf.run(*args, expect=0)
        assert ours.code == 0, ours
        if "-json" in args:
            assert json.loads(ours.stdout) == json.loads(theirs.stdout)
        else:
            assert ours.stdout == theirs.stdout, (ours, theirs.output)
    shown = project.ctl("state", "show", state, "terraform_data.a")
    assert shown.code == 0 and '"a"' in shown.stdout, shown
    assert project.ok("state", "list").stdout == ""
