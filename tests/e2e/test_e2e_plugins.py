"""Provider plugins end to end: the real Go-built test providers driven by the real ``ctl``.

Each test initialises a configuration with ``ctl init -plugin-dir`` and runs the commands a user
runs. The providers keep every object as a JSON file under ``objs/``, so what a test checks on disk
is what the provider really did: created, changed, replaced, drifted, imported, destroyed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, wait_until

# Both providers take the same arguments (tests/providers/README.md): one configuration template.
CONFIG = """
terraform {{
  required_providers {{
    {p} = {{ source = "ctltest/{p}", version = "~> 1.0" }}
  }}
}}

provider "{p}" {{
  root = "objs"
}}

variable "name" {{
  default = "alpha"
}}

variable "size" {{
  default = 3
}}

resource "{p}_{kind}" "a" {{
  name   = var.name
  size   = var.size
  tags   = {{ env = "dev" }}
  secret = "s3cr3t-value"
  {extra}
  rule {{
    port = 80
  }}
}}

output "id" {{
  value = {p}_{kind}.a.id
}}
"""

PROVIDERS = {
    "fwtest": {"kind": "thing", "extra": "settings = { level = 2 }"},
    "sdktest": {"kind": "record", "extra": ""},
}


def _project(tmp_path: Path, plugin_dir: Path, provider: str, extra: str = "") -> Project:
    project = Project(tmp_path)
    info = PROVIDERS[provider]
    project.write(CONFIG.format(p=provider, kind=info["kind"], extra=info["extra"] + extra))
    (tmp_path / "objs").mkdir()
    project.ok("init", "-plugin-dir", str(plugin_dir))
    return project


def _objects(project: Project) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(project.path("objs").glob("*.json"))}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_create_noop_update_replace_drift_destroy(tmp_path: Path, plugin_dir: Path, provider: str) -> None:
    project = _project(tmp_path, plugin_dir, provider)
    kind = PROVIDERS[provider]["kind"]
    address = f"{provider}_{kind}.a"

    plan = project.ctl("plan", "--detailed-exitcode")
    assert plan.code == 2, plan
    assert f"# {address} will be created" in plan.stdout
    assert "(known after apply)" in plan.stdout and "s3cr3t-value" not in plan.output

    project.apply()
    (object_id, stored), = _objects(project).items()
    assert stored["name"] == "alpha"
    instance = project.instances()[address]
    assert instance["attributes"]["id"] == object_id
    assert instance["schema_version"] == 1
    assert ["secret"] in [[step["value"] for step in path] for path in instance["sensitive_attributes"]]
    assert project.state()["resources"][0]["provider"] == f'provider["registry.terraform.io/ctltest/{provider}"]'

    assert project.ctl("plan", "--detailed-exitcode").code == 0  # nothing to do

    project.apply("-var", "size=4")  # in place: the same object, changed
    assert list(_objects(project)) == [object_id] and _objects(project)[object_id]["size"] == 4

    replace = project.ok("plan", "-var", "size=4", "-var", "name=beta")
    assert f"# {address} must be replaced" in replace.stdout and "# forces replacement" in replace.stdout
    project.apply("-var", "size=4", "-var", "name=beta")
    ((new_id, renamed),) = _objects(project).items()
    assert new_id != object_id and renamed["name"] == "beta"

    path = project.path("objs", f"{new_id}.json")  # someone edits the object outside ctl
    drifted = json.loads(path.read_text())
    drifted["size"] = 9
    path.write_text(json.dumps(drifted))
    plan = project.ctl("plan", "-var", "size=4", "-var", "name=beta", "--detailed-exitcode")
    assert plan.code == 2 and "changed outside" in plan.stdout and "9 -> 4" in plan.stdout, plan

    project.ok("destroy", "--auto-approve", "-var", "size=4", "-var", "name=beta")
    assert _objects(project) == {} and project.instances() == {}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_import_adopts_an_existing_object(tmp_path: Path, plugin_dir: Path, provider: str) -> None:
    project = _project(tmp_path, plugin_dir, provider)
    address = f"{provider}_{PROVIDERS[provider]['kind']}.a"
    project.apply()
    (object_id,) = _objects(project)
    project.ok("state", "rm", address)
    assert project.instances() == {}

    project.ok("import", address, object_id)
    assert project.instances()[address]["attributes"]["id"] == object_id
    assert project.ctl("plan", "--detailed-exitcode").code == 0

    missing = project.ctl("import", f"{provider}_{PROVIDERS[provider]['kind']}.b", "nope")
    assert missing.code != 0 and "Traceback" not in missing.output


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_provider_diagnostic_names_the_attribute(tmp_path: Path, plugin_dir: Path, provider: str) -> None:
    project = _project(tmp_path, plugin_dir, provider)
    result = project.ctl("plan", "-var", "name=Not Valid!")
    assert result.code == 1, result
    assert "name" in result.stderr and "Traceback" not in result.output
    assert f"{provider}_{PROVIDERS[provider]['kind']}.a" in result.stderr


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_create_that_fails_halfway_is_kept_tainted_and_replaced(tmp_path: Path, plugin_dir: Path,
                                                                   provider: str) -> None:
    project = _project(tmp_path, plugin_dir, provider, extra="\n  fail_after_create = true")
    address = f"{provider}_{PROVIDERS[provider]['kind']}.a"
    failed = project.ctl("apply", "--auto-approve")
    assert failed.code == 1 and "Traceback" not in failed.output, failed
    (object_id,) = _objects(project)  # the provider made it before failing
    instance = project.instances()[address]
    assert instance["status"] == "tainted" and instance["attributes"]["id"] == object_id
    plan = project.ctl("plan")
    assert f"{address} is tainted, so must be replaced" in plan.stdout, plan


def test_kill_during_a_plugin_create_is_recovered(tmp_path: Path, plugin_dir: Path) -> None:
    project = _project(tmp_path, plugin_dir, "fwtest", extra="\n  delay_ms = 20000")
    proc = project.start("apply", "--auto-approve")
    try:
        wait_until(lambda: project.journal_file.exists() and "intent" in project.journal_file.read_text(),
                   timeout=30, what="the create to start")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # The provider process went down with ctl's process group or on its own: nothing left running.
    wait_until(lambda: not _providers_running(tmp_path), timeout=15, what="the provider to exit")
    result = project.ctl("plan")
    assert result.code in (0, 2) and "Traceback" not in result.output, result
    assert "fwtest_thing.a" in result.output  # recovery reports the unfinished create


def test_a_provider_does_not_outlive_ctl_killed_alone(tmp_path: Path, plugin_dir: Path) -> None:
    """``kill -9`` of ctl's process only (not its group): the provider, in a session of its own, goes too."""
    project = _project(tmp_path, plugin_dir, "sdktest", extra="\n  delay_ms = 20000")
    proc = project.start("apply", "--auto-approve")
    try:
        wait_until(lambda: _providers_running(tmp_path), timeout=30, what="the provider to start")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    wait_until(lambda: not _providers_running(tmp_path), timeout=5, what="the provider to exit")


def _providers_running(root: Path) -> bool:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if b"terraform-provider-" in cmd and cwd.startswith(str(root)):
            return True
    return False


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_provider_warning_is_shown_with_the_plan(tmp_path: Path, plugin_dir: Path, provider: str) -> None:
    project = _project(tmp_path, plugin_dir, provider, extra='\n  label = "old-style"')
    result = project.ok("plan")
    assert "Warning" in result.stderr and "label is deprecated" in result.stderr, result
    assert f"{provider}_{PROVIDERS[provider]['kind']}.a" in result.stderr


FUNCTIONS = """
terraform {
  required_providers {
    fwtest = { source = "ctltest/fwtest", version = "~> 1.0" }
  }
}

variable "word" {
  default = "stressed"
}

variable "secret" {
  default   = "hidden"
  sensitive = true
}

resource "terraform_data" "later" {
  input = "known after apply"
}

output "reversed" {
  value = provider::fwtest::reverse(var.word)
}

output "secret_reversed" {
  value     = provider::fwtest::reverse(var.secret)
  sensitive = true
}

output "from_a_resource" {
  value = provider::fwtest::reverse(terraform_data.later.output)
}
"""


def test_provider_defined_functions(tmp_path: Path, plugin_dir: Path) -> None:
    project = Project(tmp_path)
    project.write(FUNCTIONS)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    plan = project.ok("plan")
    assert '"desserts"' in plan.stdout, plan
    assert "from_a_resource = (known after apply)" in plan.stdout, plan  # an unknown argument: unknown
    assert "neddih" not in plan.output
    project.apply()
    outputs = json.loads(project.ok("output", "--json").stdout)
    assert outputs["reversed"]["value"] == "desserts"
    assert outputs["from_a_resource"]["value"] == "ylppa retfa nwonk"
    assert outputs["secret_reversed"] == {"sensitive": True, "type": "string", "value": "neddih"}

    project.write(FUNCTIONS + 'output "bad" {\n  value = provider::fwtest::reverse(1, 2)\n}\n'
                  'output "missing" {\n  value = provider::fwtest::nope("x")\n}\n')
    result = project.ctl("validate")
    assert result.code == 1 and "Traceback" not in result.output, result
    assert "provider::fwtest::reverse" in result.output and "takes 1 argument(s), not 2" in result.output
    assert 'There is no function named "provider::fwtest::nope"' in result.output


def test_ignore_changes_reaches_the_provider(tmp_path: Path, plugin_dir: Path) -> None:
    project = _project(tmp_path, plugin_dir, "fwtest", extra="\n  lifecycle {\n    ignore_changes = [size]\n  }")
    project.apply()
    (object_id, stored), = _objects(project).items()
    assert stored["size"] == 3
    assert project.ctl("plan", "--detailed-exitcode", "-var", "size=7").code == 0  # ignored: nothing to do
    project.apply("-var", "size=7", "-var", "name=alpha")
    assert _objects(project)[object_id]["size"] == 3  # the provider never saw the new size
    assert project.instances()["fwtest_thing.a"]["attributes"]["size"] == 3


# Many instances of one resource: their plans and applies run on the walker's worker threads.
MANY = """
terraform {{
  required_providers {{
    fwtest = {{ source = "ctltest/fwtest", version = "~> 1.0" }}
  }}
}}

provider "fwtest" {{
  root = "objs"
}}

variable "size" {{
  default = 3
}}

resource "fwtest_thing" "t" {{
  count = {n}
  name  = "thing-${{count.index}}"
  size  = var.size
}}
"""

# Runs one ctl command in a fresh interpreter and prints the provider processes still its children.
_LEFT_BEHIND = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from cli.main import run
code = run(sys.argv[2:])
left = []
for proc in Path("/proc").iterdir():
    try:
        stat = (proc / "stat").read_text() if proc.name.isdigit() else ""
    except OSError:
        continue
    comm, _, rest = stat.partition(") ")
    fields = rest.split()
    if fields and int(fields[1]) == os.getpid() and "terraform-provi" in comm:
        left.append(comm.partition("(")[2] + " state " + fields[0])
print(json.dumps({"code": code, "left": left}))
"""


def test_providers_stop_when_the_command_ends(tmp_path: Path, plugin_dir: Path) -> None:
    """A process that runs ctl's commands in-process (a CI wrapper, a long-lived tool) keeps no provider.

    The plan and the apply each stop and reap the provider processes they started as they finish,
    instead of leaving them to the garbage collector or to the interpreter's exit. A provider that
    was killed but not reaped would still show, as a zombie child.
    """
    project = Project(tmp_path)
    project.write(MANY.format(n=40))
    (tmp_path / "objs").mkdir()
    project.ok("init", "-plugin-dir", str(plugin_dir))
    repo = Path(__file__).resolve().parents[2]
    for args in (["plan", "-out", "saved.plan"], ["apply", "--auto-approve", "saved.plan"],
                 ["apply", "--auto-approve", "-var", "size=4"], ["destroy", "--auto-approve"]):
        done = subprocess.run([sys.executable, "-c", _LEFT_BEHIND, str(repo), "-C", str(tmp_path), *args],
                              capture_output=True, text=True, timeout=120)
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert report["code"] == 0, done.stdout + done.stderr
        assert report["left"] == [], f"provider processes outlived `ctl {' '.join(args)}`: {report['left']}"


def test_a_saved_plan_configures_its_provider_with_the_variables_it_was_made_with(
    tmp_path: Path, plugin_dir: Path
) -> None:
    """``plan -var … --out`` then ``apply PLAN``: the provider block's variables are the plan's, as the
    resources' are, not unknown because the apply command is given none."""
    project = _project(tmp_path, plugin_dir, "fwtest")
    config = project.path("main.tf").read_text()
    project.write(config.replace('root = "objs"', "root = var.root") + '\nvariable "root" {\n  type = string\n}\n')
    (tmp_path / "elsewhere").mkdir()
    project.ok("plan", "-var", "root=elsewhere", "--out", "plan.bin")
    project.ok("apply", "plan.bin")
    stored = {p.stem: json.loads(p.read_text()) for p in project.path("elsewhere").glob("*.json")}
    assert [o["name"] for o in stored.values()] == ["alpha"] and not _objects(project)
    assert project.ctl("plan", "--detailed-exitcode", "-var", "root=elsewhere").code == 0
