"""``azurerm_storage_queue`` through the ctl executable against Azurite's queue service.

Each step is checked on Azurite with azure-storage-queue. Azurite keeps queue metadata and answers
missing queues with 404 like Azure; nothing here had to be weakened for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from azure.core.exceptions import ResourceNotFoundError

from tests.adapters.azure.azure_support import ACCOUNT, AzureProject
from tests.servers import Azurite

ADDR = "azurerm_storage_queue.q"


def queue(name: str = "jobs", metadata: str = '{ team = "ops" }') -> str:
    return f"""
    resource "azurerm_storage_queue" "q" {{
      name                 = "{name}"
      storage_account_name = "{ACCOUNT}"
      metadata             = {metadata}
    }}
    """


@pytest.fixture
def project(tmp_path: Path, azurite_clean: Azurite) -> AzureProject:
    return AzureProject(tmp_path, azurite_clean)


def metadata(project: AzureProject, name: str = "jobs") -> dict[str, str] | None:
    """The queue's metadata, or None when the queue does not exist."""
    try:
        return dict(project.queues.get_queue_client(name).get_queue_properties().metadata)
    except ResourceNotFoundError:
        return None


def test_create_then_replan_is_a_no_op(project: AzureProject) -> None:
    project.configure(queue())
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert metadata(project) == {"team": "ops"}
    assert project.attributes(ADDR)["id"] == f"{project.server.queue_url}/jobs"
    project.no_changes()


def test_metadata_is_updated_in_place(project: AzureProject) -> None:
    project.configure(queue())
    project.apply()
    project.queues.get_queue_client("jobs").send_message("still here")
    project.configure(queue(metadata='{ team = "dev", tier = "1" }'))
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    assert metadata(project) == {"team": "dev", "tier": "1"}
    messages = list(project.queues.get_queue_client("jobs").peek_messages())
    assert [m.content for m in messages] == ["still here"]  # the same queue, messages kept
    project.no_changes()


def test_new_name_replaces_the_queue(project: AzureProject) -> None:
    project.configure(queue("jobs"))
    project.apply()
    project.configure(queue("jobs-v2"))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"] and ["name"] in change["replace_paths"]
    project.apply()
    assert metadata(project, "jobs") is None and metadata(project, "jobs-v2") == {"team": "ops"}
    project.no_changes()


def test_import_by_url_then_no_changes(project: AzureProject) -> None:
    project.queues.create_queue("jobs", metadata={"team": "ops"})
    project.configure(queue())
    assert "Import successful" in project.ok("import", ADDR, f"{project.server.queue_url}/jobs").stdout
    project.no_changes()


def test_drift_made_behind_ctls_back_is_detected(project: AzureProject) -> None:
    project.configure(queue())
    project.apply()
    project.queues.get_queue_client("jobs").set_queue_metadata({"team": "hacked"})
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Objects have changed outside of ctl" in res.stdout, str(res)
    assert project.plan_json()["resource_drift"][0]["change"]["after"]["metadata"] == {"team": "hacked"}
    project.apply()
    assert metadata(project) == {"team": "ops"}

    project.queues.delete_queue("jobs")
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert metadata(project) == {"team": "ops"}


def test_destroy_removes_the_queue(project: AzureProject) -> None:
    project.configure(queue())
    project.apply()
    project.ok("destroy", "--auto-approve")
    assert metadata(project) is None


def test_an_existing_queue_is_not_adopted_silently(project: AzureProject) -> None:
    project.queues.create_queue("jobs", metadata={"team": "ops"})  # even with the same metadata
    project.configure(queue())
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, str(res)
    assert "already exists" in res.output and f"ctl import {ADDR} {project.server.queue_url}/jobs" in res.output
