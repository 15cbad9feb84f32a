"""One provider, one implementation: HashiCorp's own providers serve every type of their provider.

Through the real ``ctl`` executable with the unmodified random, time and aws providers of
``../shared/providers``: a configuration that uses a type only the plugin has (``random_pet``,
``time_static``, an ``inline_policy`` block) has the plugin serve every type of that provider, and
applies, re-plans with no change and destroys. A plugin directory that holds a provider makes its
plugin serve it; without one the native adapter does, and a stack moves between the two with no
planned change. Under CI=true a missing provider mirror is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO, Project

MIRROR = REPO.parent / "shared" / "providers"


@pytest.fixture
def mirror() -> Path:
    """``../shared/providers``: HashiCorp's providers, packed as a filesystem mirror."""
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "random").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def _served(project: Project) -> dict[str, str]:
    """Provider source -> what serves it, as ``ctl version --json`` says."""
    doc: dict[str, Any] = json.loads(project.ok("version", "--json").stdout)
    return {p["source"]: p["served_by"] for p in doc["providers"]}


def _lifecycle(project: Project) -> None:
    """Apply, a re-plan that changes nothing (twice: the second reads what the first refreshed), destroy."""
    created = project.apply()
    assert "Apply complete! Resources: 2 added" in created.stdout, str(created)
    for _ in range(2):
        again = project.ctl("plan", "-detailed-exitcode")
        assert again.code == 0, str(again)
        assert "No changes." in again.stdout and "internal error" not in again.output
    gone = project.ok("destroy", "--auto-approve")
    assert "2 destroyed" in gone.stdout, str(gone)
    assert project.instances() == {}


PLUGIN_ONLY = {
    "random": ("""
        resource "random_string" "s" {
          length = 12
        }
        resource "random_pet" "p" {
          keepers = { s = random_string.s.result }
        }
        """, "random_pet"),
    "time": ("""
        resource "time_sleep" "wait" {
          create_duration = "1s"
        }
        resource "time_static" "at" {
          triggers = { waited = time_sleep.wait.id }
        }
        """, "time_static"),
}


@pytest.mark.parametrize("name", sorted(PLUGIN_ONLY))
def test_a_type_only_the_plugin_has_makes_the_plugin_serve_every_type(mirror: Path, project: Project,
                                                                       name: str) -> None:
    config, plugin_only = PLUGIN_ONLY[name]
    project.write(config)
    before = project.ctl("validate")
    assert before.code != 0 and plugin_only in before.output  # no plugin yet: the type is unknown

    # -native=true keeps native adapters only for providers they serve entirely; this one they do not.
    project.ok("init", "-plugin-dir", str(mirror), "-native=true")
    assert _served(project) == {f"registry.terraform.io/hashicorp/{name}": "plugin"}
    _lifecycle(project)


# Every type the native random, time and local adapters serve, and a data source of each kind.
EVERY_NATIVE_TYPE = """
    resource "random_string" "s" {
      length = 10
    }
    resource "random_id" "i" {
      byte_length = 6
    }
    resource "random_integer" "n" {
      min = 1
      max = 1000
    }
    resource "random_password" "p" {
      length = 16
    }
    resource "time_sleep" "wait" {
      create_duration = "1s"
    }
    resource "local_file" "f" {
      filename = "${path.module}/out/plain.txt"
      content  = random_string.s.result
    }
    resource "local_sensitive_file" "secret" {
      filename = "${path.module}/out/secret.txt"
      content  = random_password.p.result
    }
    data "local_file" "back" {
      filename = local_file.f.filename
    }
    data "local_sensitive_file" "back" {
      filename = local_sensitive_file.secret.filename
    }
    output "s" {
      value = data.local_file.back.content
    }
    """
SMALL = [f"registry.terraform.io/hashicorp/{name}" for name in ("local", "random", "time")]


def test_a_plugin_in_the_plugin_directory_serves_its_provider_and_a_state_moves_both_ways_unchanged(
        mirror: Path, project: Project) -> None:
    project.write(EVERY_NATIVE_TYPE)
    project.ok("init")  # no plugin anywhere: the native adapters, nothing installed
    assert _served(project) == dict.fromkeys(SMALL, "native")
    assert not project.path(".ctl", "providers").exists()
    project.apply()
    written = project.instances()

    project.ok("init", "-plugin-dir", str(mirror))  # the plugins are at hand: they serve their providers
    assert _served(project) == dict.fromkeys(SMALL, "plugin")
    moved = project.ctl("plan", "-detailed-exitcode")
    assert moved.code == 0 and "No changes." in moved.stdout, str(moved)
    project.apply()  # the plugins refresh and write the state in their own terms
    kept = project.instances()
    assert kept.keys() == written.keys()
    for address, instance in written.items():  # the same objects: nothing was generated again
        assert kept[address]["attributes"]["id"] == instance["attributes"]["id"], address
    assert project.ok("output", "-raw", "s").stdout == written["random_string.s"]["attributes"]["result"]

    project.ok("init", "-native=true")  # and back: the native adapters read the plugins' state
    assert _served(project) == dict.fromkeys(SMALL, "native")
    back = project.ctl("plan", "-detailed-exitcode")
    assert back.code == 0 and "No changes." in back.stdout, str(back)
    project.ok("init")  # the switch is remembered: a plain init keeps the native adapters
    assert _served(project) == dict.fromkeys(SMALL, "native")
    gone = project.ok("destroy", "--auto-approve")
    assert "7 destroyed" in gone.stdout, str(gone)


AWS = """
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "test"
  secret_key                  = "test"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true

  endpoints { # nothing listens there: planning a create must not need the service
    iam = "http://127.0.0.1:9"
    sqs = "http://127.0.0.1:9"
    sts = "http://127.0.0.1:9"
  }
}

resource "aws_iam_role" "r" {
  name               = "r"
  assume_role_policy = jsonencode({ Version = "2012-10-17", Statement = [] })

  inline_policy {
    name   = "p"
    policy = jsonencode({ Version = "2012-10-17", Statement = [] })
  }
}

resource "aws_sqs_queue" "q" {
  name = "q"
}
"""


def test_an_argument_the_native_adapter_lacks_has_the_plugin_serve_the_whole_provider(
        mirror: Path, project: Project) -> None:
    project.write(AWS)
    refused = project.ctl("validate")
    assert refused.code == 1 and "Invalid Configuration for Read-Only Attribute" in refused.output, str(refused)

    project.ok("init", "-plugin-dir", str(mirror), "-native=true")
    assert _served(project) == {"registry.terraform.io/hashicorp/aws": "plugin"}
    project.ok("validate")
    planned = project.ctl("plan", "-detailed-exitcode", timeout=180)
    assert planned.code == 2, str(planned)
    assert "Plan: 2 to add, 0 to change, 0 to destroy." in planned.stdout
    # The queue is the provider's too: it plans attributes only the provider has, with its defaults.
    queue = planned.stdout[planned.stdout.index("# aws_sqs_queue.q will be created"):]
    assert "deduplication_scope" in queue and "max_message_size                  = 262144" in queue
