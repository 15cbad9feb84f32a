"""A provider that answers in JSON is read as Terraform reads it, in every call that carries a value.

The provider is a real process (tests/adapters/plugin/json_provider.py) that sets only the ``json``
field of every ``DynamicValue`` it sends: its upgraded state is the stored JSON as it came, its
set members arrive in an order of its own, an integer past a float's precision arrives as a JSON
number, a function's result is JSON, and a destroy answers ``null``. ctl runs it through init, apply (plan, apply, a data
source), a plan after it (upgrade and read), import and destroy.
"""

from __future__ import annotations

import platform
from pathlib import Path

from tests.adapters.plugin import deep_provider, json_provider
from tests.e2e.helpers import Project

_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
ENV = {"CTL_PLUGIN_TLS": "0"}
BIG = 9007199254740993  # 2**53 + 1: a float cannot hold it

CONFIG = f"""
terraform {{
  required_providers {{
    jsonans = {{ source = "ctltest/jsonans" }}
  }}
}}

resource "jsonans_thing" "a" {{
  name   = "alpha"
  size   = {BIG}
  tags   = ["b", "a", "c"]
  labels = {{ env = "dev" }}
}}

data "jsonans_thing" "echo" {{
  name = "beta"
}}

output "echo_id" {{
  value = data.jsonans_thing.echo.id
}}

output "doubled" {{
  value = provider::jsonans::double({BIG})
}}

output "tags" {{
  value = jsonans_thing.a.tags
}}
"""


def _project(tmp_path: Path) -> Project:
    os_arch = f"{platform.system().lower()}_{_ARCH.get(platform.machine(), platform.machine())}"
    deep_provider.write_plugin(tmp_path / "plugins", os_arch, address=json_provider.ADDRESS, module="json_provider")
    (tmp_path / "cfg").mkdir()
    project = Project(tmp_path / "cfg")
    project.write(CONFIG)
    project.ok("init", "-plugin-dir", str(tmp_path / "plugins"), env=ENV)
    return project


def test_a_provider_answering_in_json_creates_reads_imports_and_destroys(tmp_path: Path) -> None:
    project = _project(tmp_path)
    applied = project.ok("apply", "-auto-approve", env=ENV)
    assert applied.stderr == ""  # nothing of gRPC's own logging as the provider's server goes away
    state = project.state()
    thing = project.instances()["jsonans_thing.a"]["attributes"]
    assert thing == {"id": "thing-alpha", "name": "alpha", "size": BIG, "tags": ["a", "b", "c"],
                     "labels": {"env": "dev"}}
    assert state["outputs"]["echo_id"]["value"] == "thing-beta"
    assert state["outputs"]["tags"]["value"] == ["a", "b", "c"]
    assert state["outputs"]["doubled"]["value"] == 2 * BIG

    # Refresh is UpgradeResourceState (answered with the stored JSON) then ReadResource: the object
    # is still there, unchanged, not planned for creation again.
    planned = project.ctl("plan", "--detailed-exitcode", env=ENV)
    assert planned.code == 0, str(planned)
    assert "No changes" in planned.stdout

    project.write(CONFIG + '\nresource "jsonans_thing" "b" {\n  name = "gamma"\n}\n')
    project.ok("import", "jsonans_thing.b", "thing-gamma", env=ENV)
    assert project.instances()["jsonans_thing.b"]["attributes"] == {
        "id": "thing-gamma", "name": "gamma", "size": None, "tags": None, "labels": None}
    planned = project.ctl("plan", "--detailed-exitcode", env=ENV)
    assert planned.code == 0, str(planned)

    destroyed = project.ok("destroy", "-auto-approve", env=ENV)
    assert destroyed.stderr == ""
    assert [r for r in project.state()["resources"] if r["mode"] == "managed"] == []
