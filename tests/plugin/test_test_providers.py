"""The Go test providers (tests/providers/) under the real Terraform 1.0.3.

Each behaviour checked here is one ctl must reproduce when it speaks the plugin protocol itself, so these
runs are the baseline ctl's own runs are compared with: apply, a clean re-plan, drift seen through the
object files, replacement, import, a schema-version upgrade, a create that fails halfway, validation
diagnostics with attribute paths, and destroy.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.plugin.terraform_cli import TerraformDir

SECRET = "s3cr3t-value"


@dataclass(frozen=True)
class Case:
    """One provider's resource and data source, and how its diagnostics are worded."""

    provider: str
    resource: str
    root_via_env: bool  # one provider takes root from $CTLTEST_ROOT, the other from the provider block
    # Arguments only this provider's resource has. Terraform 1.0.3 panics planning a nested attribute
    # (protocol 6) left null in configuration, a Terraform bug fixed later, so the tests always set it.
    extra_arguments: str
    empty_root_message: str

    @property
    def address(self) -> str:
        return f"{self.resource}.main"


CASES = [
    Case(
        provider="fwtest",
        resource="fwtest_thing",
        root_via_env=False,
        extra_arguments="settings = { level = 2, enabled = true }",
        empty_root_message="Empty root directory",
    ),
    Case(
        provider="sdktest",
        resource="sdktest_record",
        root_via_env=True,
        extra_arguments="",
        empty_root_message='expected "root" to not be an empty string',
    ),
]


def provider_block(case: Case, root: Path | str) -> str:
    argument = "" if case.root_via_env else f'root = "{root}"'
    return f"""
terraform {{
  required_providers {{
    {case.provider} = {{ source = "ctltest/{case.provider}", version = "1.0.0" }}
  }}
}}

provider "{case.provider}" {{
  {argument}
}}
"""


def full_config(case: Case, root: Path, *, name: str = "alpha", size: int = 3) -> str:
    """A resource using most of the provider's schema, and the data source finding it by name and by id."""
    return provider_block(case, root) + f"""
resource "{case.resource}" "main" {{
  name   = "{name}"
  size   = {size}
  tags   = {{ env = "test", team = "infra" }}
  ports  = [80, 443]
  secret = "{SECRET}"
  label  = "legacy"
  {case.extra_arguments}

  rule {{
    port     = 80
    protocol = "tcp"
  }}
  rule {{
    port = 443
  }}
  member {{
    name = "bob"
    role = "admin"
  }}
  member {{
    name = "eve"
  }}
  owner {{
    email = "ops@example.test"
  }}
}}

data "{case.resource}" "by_name" {{
  name       = {case.resource}.main.name
  depends_on = [{case.resource}.main]
}}

data "{case.resource}" "by_id" {{
  id = {case.resource}.main.id
}}

output "found_name" {{
  value = data.{case.resource}.by_id.name
}}

output "found_id" {{
  value = data.{case.resource}.by_name.id
}}

output "found_secret" {{
  value     = data.{case.resource}.by_name.secret
  sensitive = true
}}
"""


@pytest.fixture(params=CASES, ids=[case.provider for case in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    return request.param


@pytest.fixture
def objects(tmp_path: Path) -> Path:
    root = tmp_path / "objects"
    root.mkdir()
    return root


@pytest.fixture
def tf(tmp_path: Path, plugin_dir: Path, case: Case, objects: Path) -> TerraformDir:
    workdir = tmp_path / "work"
    workdir.mkdir()
    env = {"CTLTEST_ROOT": str(objects)} if case.root_via_env else {}
    return TerraformDir(workdir, plugin_dir, env)


def object_files(root: Path) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text()) for path in sorted(root.glob("*.json"))}


def test_lifecycle_apply_drift_replace_import_destroy(case: Case, tf: TerraformDir, objects: Path) -> None:
    tf.write(full_config(case, objects))
    tf.init()
    applied = tf.apply()
    assert "label is deprecated" in applied.output  # a warning diagnostic reaches the user
    assert SECRET not in applied.output

    files = object_files(objects)
    assert len(files) == 1
    (object_id, stored), = files.items()
    assert stored["name"] == "alpha" and stored["size"] == 3 and stored["secret"] == SECRET
    assert stored["tags"] == {"env": "test", "team": "infra"} and stored["ports"] == [80, 443]
    assert stored["mode"] == "standard"  # the default of an optional attribute
    attributes = tf.instance(case.resource, "main")["attributes"]
    assert attributes["id"] == object_id and attributes["created_at"] == stored["created_at"]
    assert re.fullmatch(r"[0-9a-f]{16}", attributes["hash"])
    assert tf.run("output", "-raw", "found_id").stdout == object_id  # the data source found it by name
    assert tf.run("output", "-raw", "found_name").stdout == "alpha"  # ... and by id
    assert "<sensitive>" in tf.run("output", "-no-color").stdout
    assert tf.run("output", "-raw", "found_secret").stdout == SECRET

    tf.plan()  # exit 0: the re-plan sees no change, computed values included

    stored["size"] = 7  # someone edits the object outside Terraform
    (objects / f"{object_id}.json").write_text(json.dumps(stored))
    drift = tf.plan(expect=2)
    assert re.search(r"size\s+= 7 -> 3", drift.stdout), drift.stdout
    assert SECRET not in drift.output

    (objects / f"{object_id}.json").unlink()  # ... or deletes it
    gone = tf.plan(expect=2)
    assert f"{case.address} will be created" in gone.stdout
    tf.apply()
    (object_id,) = object_files(objects)

    tf.plan()  # re-created: in step again
    tf.write(full_config(case, objects, name="beta"))
    replace = tf.plan(expect=2)
    assert f"{case.address} must be replaced" in replace.stdout
    assert re.search(r'name\s+= "alpha" -> "beta" # forces replacement', replace.stdout), replace.stdout
    tf.write(full_config(case, objects))

    tf.run("state", "rm", case.address)
    missing = tf.run("import", "-no-color", case.address, "nosuchobject", expect=1)
    assert "non-existent" in missing.output
    tf.run("import", "-no-color", case.address, object_id)
    assert tf.instance(case.resource, "main")["attributes"]["secret"] == SECRET  # read back from the file
    tf.plan()  # the imported object matches the configuration exactly

    tf.run("destroy", "-auto-approve", "-no-color")
    assert object_files(objects) == {}


def test_create_failing_halfway_leaves_a_tainted_object(case: Case, tf: TerraformDir, objects: Path) -> None:
    tf.write(provider_block(case, objects) + f"""
resource "{case.resource}" "main" {{
  name              = "halfway"
  delay_ms          = 300
  fail_after_create = true
  {case.extra_arguments}
}}
""")
    tf.init()
    started = time.monotonic()
    failed = tf.apply(expect=1)
    assert time.monotonic() - started >= 0.3  # delay_ms slept inside create
    assert "fail_after_create is set" in failed.output
    (object_id,) = object_files(objects)  # the object was written before the error
    instance = tf.instance(case.resource, "main")
    assert instance["status"] == "tainted"
    assert instance["attributes"]["id"] == object_id
    replan = tf.plan(expect=2)
    assert f"{case.address} is tainted, so must be replaced" in replan.stdout


def test_state_written_with_schema_version_0_is_upgraded(case: Case, tf: TerraformDir, objects: Path) -> None:
    tf.write(full_config(case, objects, size=5))
    tf.init()
    tf.apply()
    state = tf.state()
    for resource in state["resources"]:
        if resource["mode"] == "managed":
            instance = resource["instances"][0]
            assert instance["schema_version"] == 1
            instance["schema_version"] = 0
            instance["attributes"]["size"] = "5"  # version 0 kept size as a string
    tf.write_state(state)

    tf.plan("-refresh=false")  # the upgraded state matches the configuration: no changes
    tf.apply("-refresh-only")
    upgraded = tf.instance(case.resource, "main")
    assert upgraded["schema_version"] == 1
    assert upgraded["attributes"]["size"] == 5


def test_validation_diagnostics_name_the_attribute(case: Case, tf: TerraformDir, objects: Path) -> None:
    tf.write(full_config(case, objects, name="Not_Valid"))
    tf.init()
    bad_name = tf.plan(expect=1)
    assert "must match ^[a-z0-9-]+$" in bad_name.output
    assert f'in resource "{case.resource}" "main"' in bad_name.output
    assert re.search(r'name\s+= "Not_Valid"', bad_name.output), bad_name.output
    assert object_files(objects) == {}

    tf.write(provider_block(case, "").replace("{\n  \n}", '{\n  root = ""\n}') + f"""
resource "{case.resource}" "main" {{
  name = "ok"
}}
""")
    empty_root = tf.plan(expect=1)
    assert case.empty_root_message in empty_root.output
    assert 'root = ""' in empty_root.output  # the diagnostic points at the provider argument
