"""``azurerm_storage_container`` through the ctl executable against Azurite.

Each step is checked on Azurite with azure-storage-blob. Azurite (started with
``--skipApiVersionCheck --loose``) keeps metadata and public access levels like Azure; one
difference matters here: Azure keeps a deleted container's name reserved for a while
(``ContainerBeingDeleted``), Azurite frees it at once, so the replace test cannot show that wait.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from azure.core.exceptions import ResourceNotFoundError

from tests.adapters.azure.azure_support import ACCOUNT, AzureProject, without_builtin_policies
from tests.servers import Azurite

ADDR = "azurerm_storage_container.c"


def container(name: str = "assets", *, access: str = "private", metadata: str = '{ env = "dev" }') -> str:
    return f"""
    resource "azurerm_storage_container" "c" {{
      name                  = "{name}"
      storage_account_name  = "{ACCOUNT}"
      container_access_type = "{access}"
      metadata              = {metadata}
    }}
    """


@pytest.fixture
def project(tmp_path: Path, azurite_clean: Azurite) -> AzureProject:
    return AzureProject(tmp_path, azurite_clean)


def props(project: AzureProject, name: str = "assets"):
    return project.blobs.get_container_client(name).get_container_properties()


def exists(project: AzureProject, name: str) -> bool:
    try:
        props(project, name)
    except ResourceNotFoundError:
        return False
    return True


def test_create_then_replan_is_a_no_op(project: AzureProject) -> None:
    project.configure(container())
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    made = props(project)
    assert made.public_access is None and made.metadata == {"env": "dev"}
    attrs = project.attributes(ADDR)
    assert attrs["id"] == f"{project.server.blob_url}/assets"
    assert attrs["has_legal_hold"] is False and attrs["has_immutability_policy"] is False
    project.no_changes()


def test_access_type_and_metadata_are_updated_in_place(project: AzureProject) -> None:
    """Public access is what the built-in policy pack denies, so these runs leave the pack out."""
    skip_pack = without_builtin_policies()
    project.configure(container())
    project.apply()
    project.blobs.get_blob_client("assets", "keep.txt").upload_blob(b"kept")
    project.configure(container(access="blob", metadata='{ env = "prod", team = "web" }'))
    project.ok("plan", "--out", "ctl.plan", *skip_pack)
    plan = json.loads(project.ok("show", "--json", "ctl.plan").stdout)
    assert [c["change"]["actions"] for c in plan["resource_changes"]] == [["update"]]
    project.apply(*skip_pack)
    after = props(project)
    assert after.public_access == "blob" and after.metadata == {"env": "prod", "team": "web"}
    assert project.blobs.get_blob_client("assets", "keep.txt").download_blob().readall() == b"kept"
    assert project.ctl("plan", "--detailed-exitcode", *skip_pack).code == 0
    project.configure(container(access="private"))
    project.apply(*skip_pack)
    assert props(project).public_access is None
    project.no_changes()


def test_new_name_replaces_the_container(project: AzureProject) -> None:
    project.configure(container("assets"))
    project.apply()
    project.configure(container("assets-v2"))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"] and ["name"] in change["replace_paths"]
    project.apply()
    assert not exists(project, "assets") and exists(project, "assets-v2")
    project.no_changes()


def test_import_by_url_then_no_changes(project: AzureProject) -> None:
    project.blobs.create_container("assets", metadata={"env": "dev"})
    project.configure(container())
    res = project.ok("import", ADDR, f"{project.server.blob_url}/assets")
    assert "Import successful" in res.stdout
    assert project.attributes(ADDR)["container_access_type"] == "private"
    project.no_changes()


def test_drift_made_behind_ctls_back_is_detected(project: AzureProject) -> None:
    project.configure(container())
    project.apply()
    client = project.blobs.get_container_client("assets")
    client.set_container_metadata({"env": "hacked"})
    client.set_container_access_policy(signed_identifiers={}, public_access="container")
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Objects have changed outside of ctl" in res.stdout, str(res)
    plan = project.plan_json()
    drift = plan["resource_drift"][0]["change"]["after"]
    assert drift["container_access_type"] == "container" and drift["metadata"] == {"env": "hacked"}
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    restored = props(project)
    assert restored.public_access is None and restored.metadata == {"env": "dev"}

    client.delete_container()  # deleted outside ctl: planned again
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert exists(project, "assets")


def test_destroy_removes_the_container(project: AzureProject) -> None:
    project.configure(container())
    project.apply()
    project.ok("destroy", "--auto-approve")
    assert not exists(project, "assets")
    assert project.instances() == {}


def test_an_existing_container_is_not_adopted_silently(project: AzureProject) -> None:
    project.blobs.create_container("assets")
    project.configure(container())
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, str(res)
    assert "already exists" in res.output and f"ctl import {ADDR} {project.server.blob_url}/assets" in res.output
    assert "Traceback" not in res.output
