"""A realistic configuration over the six small real providers, through a whole lifecycle, with ctl
and Terraform 1.0.3 side by side.

Each tool works in a directory of its own with the same files. At every step the two must agree on
the exit code and on the planned action of every address; after each apply their states must hold
the same instances with the same attributes (values where they are not random, the shape of the
value where they are), the same output types, and each tool must plan nothing on the state and files
the other left.

Two differences are by choice and checked as such. ``dependencies`` are not compared: Terraform
1.0.3 records a resource's direct dependencies, ctl every resource it depends on (which only orders
destroys). Like Terraform 1.11 and OpenTofu, ctl lists the attributes a provider's schema marks
sensitive in ``sensitive_attributes``; Terraform 1.0.3 lists only those the configuration made
sensitive, so on ctl's state it plans to drop that mark: an update in name only, changing no value.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = r'''
terraform {
  required_providers {
    random   = { source = "hashicorp/random" }
    null     = { source = "hashicorp/null" }
    local    = { source = "hashicorp/local" }
    time     = { source = "hashicorp/time" }
    archive  = { source = "hashicorp/archive" }
    external = { source = "hashicorp/external" }
  }
}

variable "envs" {
  type    = set(string)
  default = ["dev", "prod"]
}

variable "zones" {
  type    = list(string)
  default = ["a", "b"]
}

variable "no_tags" {
  type    = map(string)
  default = {}
}

variable "generation" {
  type    = number
  default = 1
}

resource "random_id" "server" {
  byte_length = 4
  keepers     = { generation = var.generation }
}

resource "random_pet" "name" {
  keepers = { server = random_id.server.hex }
}

resource "random_password" "db" {
  length  = 16
  special = false
}

resource "null_resource" "per_env" {
  for_each = var.envs
  triggers = {
    env    = each.key
    server = random_id.server.hex
  }
  provisioner "local-exec" {
    command = "echo ${each.key} >> provisioned.txt"
  }
}

data "external" "net" {
  program = ["sh", "-c", "echo '{\"cidr\": \"10.0.0.0/8\"}'"]
}

resource "null_resource" "net" {
  triggers = { cidr = data.external.net.result.cidr }
}

resource "local_file" "settings" {
  filename = "${path.module}/out/settings.txt"
  content  = "pet=${random_pet.name.id}\n"
}

data "archive_file" "settings" {
  type        = "zip"
  source_file = local_file.settings.filename
  output_path = "${path.module}/out/settings.zip"
}

resource "time_static" "born" {
  triggers = { server = random_id.server.hex }
}

module "svc" {
  source   = "./modules/svc"
  for_each = var.envs
  name     = each.key
}

output "pet" {
  value = random_pet.name.id
}

output "db_password" {
  value     = random_password.db.result
  sensitive = true
}

output "envs" {
  value = var.envs
}

output "env_ids" {
  value = { for k, v in null_resource.per_env : k => v.id }
}

output "zones" {
  value = var.zones
}

output "no_tags" {
  value = var.no_tags
}

output "net_triggers" {
  value = null_resource.net.triggers
}

output "listed" {
  value = tolist([[1, 2], ["x"]])
}

output "archive_size" {
  value = data.archive_file.settings.output_size
}

output "svc" {
  value = { for k, m in module.svc : k => m.suffix }
}
'''

MODULE = '''
variable "name" {
  type = string
}

resource "random_string" "suffix" {
  length  = 6
  special = false
  upper   = false
  keepers = { name = var.name }
}

output "suffix" {
  value = "${var.name}-${random_string.suffix.result}"
}
'''

# Attributes whose values are drawn at random or from the clock: compared by shape, not value.
RANDOM_VALUED = {
    "random_id": None, "random_pet": {"id", "keepers"}, "random_password": {"result", "bcrypt_hash"},
    "random_string": {"result", "id"}, "null_resource": {"id", "triggers"}, "time_static": None,
    "local_file": {"content", "content_md5", "content_sha1", "content_sha256", "content_sha512",
                   "content_base64sha256", "content_base64sha512", "id"},
    "archive_file": {"output_md5", "output_sha", "output_sha256", "output_sha512", "output_base64sha256",
                     "output_base64sha512", "output_size", "id"},
}


def _shape(value: Any) -> Any:
    """The JSON type of a value, all the way down."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def _comparable_instances(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for resource in state["resources"]:
        prefix = f"{resource['module']}." if resource.get("module") else ""
        mode = "data." if resource["mode"] == "data" else ""
        base = f"{prefix}{mode}{resource['type']}.{resource['name']}"
        random_valued = RANDOM_VALUED.get(resource["type"], set())
        for instance in resource["instances"]:
            key = instance.get("index_key")
            address = base if key is None else f"{base}[{json.dumps(key)}]"
            attributes = {name: _shape(value) if random_valued is None or name in random_valued else value
                          for name, value in instance["attributes"].items()}
            out[address] = {
                "provider": resource["provider"],
                "schema_version": instance["schema_version"],
                "attributes": attributes,
                "status": instance.get("status"),
            }
    return out


def _outputs(state: dict[str, Any]) -> dict[str, Any]:
    return {name: {"type": out["type"], "sensitive": out.get("sensitive", False)}
            for name, out in state["outputs"].items()}


def _actions(plan_json: dict[str, Any]) -> dict[str, list[str]]:
    return {rc["address"]: rc["change"]["actions"] for rc in plan_json["resource_changes"]
            if rc["change"]["actions"] != ["no-op"] and rc["change"]["actions"] != ["read"]}


class Pair:
    """The same configuration under Terraform 1.0.3 and under ctl."""

    def __init__(self, root: Path, mirror: Path) -> None:
        self.dirs: dict[str, Path] = {}
        for tool in ("terraform", "ctl"):
            work = root / tool
            (work / "modules" / "svc").mkdir(parents=True)
            (work / "main.tf").write_text(CONFIG)
            (work / "modules" / "svc" / "main.tf").write_text(MODULE)
            self.dirs[tool] = work
        self.terraform = TerraformDir(self.dirs["terraform"], mirror)
        self.ctl = Project(self.dirs["ctl"])
        self.mirror = mirror

    def init(self) -> None:
        self.terraform.init()
        self.ctl.ok("init", "-plugin-dir", str(self.mirror))

    def plans(self, *args: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Both tools' saved plans (``plan -out``) as ``show -json`` documents."""
        self.terraform.run("plan", "-input=false", "-no-color", "-out=tfplan", *args)
        theirs = json.loads(self.terraform.run("show", "-json", "tfplan").stdout)
        self.ctl.ok("plan", "--out", "ctlplan", *args)
        ours = json.loads(self.ctl.ok("show", "--json", "ctlplan").stdout)
        return theirs, ours

    def apply_saved(self) -> None:
        self.terraform.run("apply", "-input=false", "-no-color", "tfplan")
        self.ctl.ok("apply", "ctlplan")

    def states(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.terraform.state(), self.ctl.state()

    def assert_same_states(self, step: str) -> None:
        theirs, ours = self.states()
        assert _comparable_instances(ours) == _comparable_instances(theirs), step
        assert _outputs(ours) == _outputs(theirs), step

    def assert_no_changes(self, step: str) -> None:
        self.terraform.plan(expect=0)
        result = self.ctl.ctl("plan", "--detailed-exitcode")
        assert result.code == 0, f"{step}\n{result}"


@pytest.fixture
def pair(tmp_path: Path, real_providers: Path) -> Pair:
    made = Pair(tmp_path, real_providers)
    made.init()
    return made


def test_validate_plan_apply_replan_and_replace_as_terraform(pair: Pair) -> None:
    assert pair.ctl.ctl("validate").code == 0
    pair.terraform.run("validate", "-no-color")

    theirs, ours = pair.plans()
    assert _actions(ours) == _actions(theirs)
    assert len(_actions(ours)) == 10  # every managed instance is created
    pair.apply_saved()
    pair.assert_same_states("create")
    for tool, work in pair.dirs.items():
        provisioned = sorted((work / "provisioned.txt").read_text().split())
        assert provisioned == ["dev", "prod"], tool
    pair.assert_no_changes("re-plan after create")

    # A keeper changes: exactly what Terraform replaces is replaced.
    theirs, ours = pair.plans("-var", "generation=2")
    assert _actions(ours) == _actions(theirs)
    assert _actions(ours)["random_id.server"] == ["delete", "create"]
    pair.apply_saved()
    pair.assert_same_states("replace")

    # One environment fewer in a set variable, through a saved plan.
    theirs, ours = pair.plans("-var", "generation=2", "-var", 'envs=["dev"]')
    assert _actions(ours) == _actions(theirs)
    pair.apply_saved()
    pair.assert_same_states("shrink a set")


def _swap(pair: Pair) -> None:
    """Each directory takes the other tool's state and the files its apply wrote."""
    terraform_dir, ctl_dir = pair.dirs["terraform"], pair.dirs["ctl"]
    for generated in ("out", "provisioned.txt"):
        a, b = terraform_dir / generated, ctl_dir / generated
        parked = terraform_dir.parent / f"parked-{generated}"
        shutil.move(a, parked)
        shutil.move(b, a)
        shutil.move(parked, b)
    written_by_terraform = (terraform_dir / "terraform.tfstate").read_text()
    (terraform_dir / "terraform.tfstate").write_text(pair.ctl.state_file.read_text())
    pair.ctl.state_file.write_text(written_by_terraform)


def test_each_tool_plans_nothing_on_the_state_the_other_wrote(pair: Pair) -> None:
    pair.terraform.apply()
    pair.ctl.ok("apply", "--auto-approve")
    _swap(pair)
    result = pair.ctl.ctl("plan", "--detailed-exitcode")
    assert result.code == 0, result
    pair.terraform.run("plan", "-input=false", "-no-color", "-out=tfplan", expect=None)
    theirs = json.loads(pair.terraform.run("show", "-json", "tfplan").stdout)
    for change in theirs["resource_changes"]:
        assert change["change"]["before"] == change["change"]["after"], change["address"]
        assert change["change"]["after_unknown"] in ({}, None), change["address"]
        if change["change"]["actions"] != ["no-op"]:  # the mark Terraform 1.0.3 drops, nothing else
            assert change["type"] == "random_password", change["address"]
    assert all(out["actions"] == ["no-op"] for out in theirs.get("output_changes", {}).values()), \
        theirs["output_changes"]


def test_import_state_mv_rm_and_destroy_as_terraform(pair: Pair) -> None:
    pair.terraform.apply()
    pair.ctl.ok("apply", "--auto-approve")

    # import: a random_string adopts the value it is given.
    extra = "\nresource \"random_string\" \"imported\" {\n  length = 8\n}\n"
    for work in pair.dirs.values():
        with (work / "main.tf").open("a") as f:
            f.write(extra)
    pair.terraform.run("import", "-input=false", "-no-color", "random_string.imported", "abcdefgh")
    pair.ctl.ok("import", "random_string.imported", "abcdefgh")
    theirs, ours = pair.states()
    assert _comparable_instances(ours)["random_string.imported"] == \
        _comparable_instances(theirs)["random_string.imported"]
    imported = next(r for r in ours["resources"] if r["name"] == "imported")["instances"][0]["attributes"]
    assert imported["result"] == "abcdefgh"

    # state mv with the configuration renamed plans nothing; state rm forgets without destroying.
    for work in pair.dirs.values():
        text = (work / "main.tf").read_text().replace('"random_pet" "name"', '"random_pet" "renamed"')
        (work / "main.tf").write_text(text.replace("random_pet.name.id", "random_pet.renamed.id"))
    pair.terraform.run("state", "mv", "random_pet.name", "random_pet.renamed")
    pair.ctl.ok("state", "mv", "random_pet.name", "random_pet.renamed")
    pair.assert_no_changes("after state mv")
    pair.terraform.run("state", "rm", "null_resource.net")
    pair.ctl.ok("state", "rm", "null_resource.net")
    theirs, ours = pair.plans()
    assert _actions(ours) == _actions(theirs) == {"null_resource.net": ["create"]}

    pair.terraform.run("destroy", "-auto-approve", "-input=false", "-no-color")
    pair.ctl.ok("destroy", "--auto-approve")
    theirs, ours = pair.states()
    assert [r for r in ours["resources"] if r["mode"] == "managed"] == []
    assert [r for r in theirs["resources"] if r["mode"] == "managed"] == []
    for work in pair.dirs.values():
        assert not (work / "out" / "settings.txt").exists()
