"""``azurerm_storage_blob`` through the ctl executable against Azurite.

Each step is checked on Azurite with azure-storage-blob (bytes, type, headers, metadata). Azurite
stores Content-MD5 and computes it for whole-blob uploads of Block blobs, as Azure does, so content
drift is detected there. For Append and Page blobs neither service updates Content-MD5 when blocks
or pages are written later, so such drift is not detectable (not exercised here). The container is
made with the SDK, so each test is about the blob alone.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from azure.core.exceptions import ResourceNotFoundError

from tests.adapters.azure.azure_support import ACCOUNT, AzureProject
from tests.servers import Azurite

ADDR = "azurerm_storage_blob.b"
CONTAINER = "files"


def blob(*, kind: str = "Block", content: str | None = "hello", source: str | None = None,
         name: str = "docs/hello.txt", extra: str = "") -> str:
    body = f'source_content = "{content}"' if content is not None else (f'source = "{source}"' if source else "")
    return f"""
    resource "azurerm_storage_blob" "b" {{
      name                   = "{name}"
      storage_account_name   = "{ACCOUNT}"
      storage_container_name = "{CONTAINER}"
      type                   = "{kind}"
      {body}
      {extra}
    }}
    """


@pytest.fixture
def project(tmp_path: Path, azurite_clean: Azurite) -> AzureProject:
    made = AzureProject(tmp_path, azurite_clean)
    made.blobs.create_container(CONTAINER)
    return made


def client(project: AzureProject, name: str = "docs/hello.txt"):
    return project.blobs.get_blob_client(CONTAINER, name)


def content(project: AzureProject, name: str = "docs/hello.txt") -> bytes:
    return client(project, name).download_blob().readall()


def test_create_then_replan_is_a_no_op(project: AzureProject) -> None:
    project.configure(blob(extra='content_type = "text/plain"\nmetadata = { owner = "ops" }'))
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    props = client(project).get_blob_properties()
    assert content(project) == b"hello"
    assert props.blob_type == "BlockBlob" and props.content_settings.content_type == "text/plain"
    assert props.metadata == {"owner": "ops"}
    attrs = project.attributes(ADDR)
    assert attrs["url"] == attrs["id"] == f"{project.server.blob_url}/{CONTAINER}/docs/hello.txt"
    assert attrs["content_md5"] == hashlib.md5(b"hello").hexdigest() == bytes(props.content_settings.content_md5).hex()
    project.no_changes()


def test_content_type_and_metadata_are_updated_in_place(project: AzureProject) -> None:
    project.configure(blob(extra='metadata = { owner = "ops", tier = "1" }'))
    project.apply()
    etag_bytes = content(project)
    project.configure(blob(extra='content_type = "text/markdown"\nmetadata = { owner = "dev" }'))
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    props = client(project).get_blob_properties()
    assert props.content_settings.content_type == "text/markdown"
    assert props.metadata == {"owner": "dev"}
    assert bytes(props.content_settings.content_md5).hex() == hashlib.md5(b"hello").hexdigest()  # kept
    assert content(project) == etag_bytes
    project.no_changes()


def test_new_content_replaces_the_blob(project: AzureProject) -> None:
    project.configure(blob(content="hello"))
    project.apply()
    project.configure(blob(content="hello again"))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"]
    assert ["source_content"] in change["replace_paths"] and ["content_md5"] in change["replace_paths"]
    project.apply()
    assert content(project) == b"hello again"
    project.no_changes()


def test_append_blob_from_a_source_file(project: AzureProject) -> None:
    (project.root / "log.txt").write_bytes(b"line 1\n")
    project.configure(blob(kind="Append", content=None, source="log.txt", name="app.log"))
    project.apply()
    props = client(project, "app.log").get_blob_properties()
    assert props.blob_type == "AppendBlob" and content(project, "app.log") == b"line 1\n"
    project.no_changes()
    (project.root / "log.txt").write_bytes(b"line 1\nline 2\n")
    assert project.actions() == {ADDR: ["delete", "create"]}
    project.apply()
    assert content(project, "app.log") == b"line 1\nline 2\n"


def test_page_blob_of_a_given_size_and_type_change(project: AzureProject) -> None:
    project.configure(blob(kind="Page", content=None, name="disk.vhd", extra="size = 1024"))
    project.apply()
    props = client(project, "disk.vhd").get_blob_properties()
    assert props.blob_type == "PageBlob" and props.size == 1024
    project.no_changes()
    project.configure(blob(kind="Block", content=None, name="disk.vhd", extra="size = 1024"))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"] and ["type"] in change["replace_paths"]
    project.apply()
    assert client(project, "disk.vhd").get_blob_properties().blob_type == "BlockBlob"


def test_import_by_url_then_no_changes(project: AzureProject) -> None:
    from azure.storage.blob import ContentSettings

    client(project).upload_blob(b"hello", content_settings=ContentSettings(content_type="text/plain"))
    project.configure(blob(extra='content_type = "text/plain"'))
    url = f"{project.server.blob_url}/{CONTAINER}/docs/hello.txt"
    assert "Import successful" in project.ok("import", ADDR, url).stdout
    attrs = project.attributes(ADDR)
    assert attrs["type"] == "Block" and attrs["source_content"] is None
    project.no_changes()  # same bytes: nothing to upload


def test_drift_made_behind_ctls_back_is_detected(project: AzureProject) -> None:
    project.configure(blob(extra='metadata = { owner = "ops" }'))
    project.apply()

    client(project).set_blob_metadata({"owner": "someone-else"})
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Objects have changed outside of ctl" in res.stdout, str(res)
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    assert client(project).get_blob_properties().metadata == {"owner": "ops"}

    client(project).upload_blob(b"overwritten", overwrite=True, metadata={"owner": "ops"})
    plan = project.plan_json()
    assert [d["address"] for d in plan["resource_drift"]] == [ADDR]
    assert plan["resource_changes"][0]["change"]["actions"] == ["delete", "create"]
    project.apply()
    assert content(project) == b"hello"

    client(project).delete_blob()
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert content(project) == b"hello"


def test_destroy_removes_the_blob(project: AzureProject) -> None:
    project.configure(blob())
    project.apply()
    project.ok("destroy", "--auto-approve")
    with pytest.raises(ResourceNotFoundError):
        client(project).get_blob_properties()


def test_an_existing_blob_is_not_overwritten(project: AzureProject) -> None:
    client(project).upload_blob(b"precious")
    project.configure(blob())
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, str(res)
    assert "already exists" in res.output and "ctl import azurerm_storage_blob.b http" in res.output
    assert "Traceback" not in res.output
    assert content(project) == b"precious"


def test_container_and_blobs_in_one_configuration(project: AzureProject) -> None:
    project.configure(f"""
    resource "azurerm_storage_container" "site" {{
      name                 = "site"
      storage_account_name = "{ACCOUNT}"
    }}
    resource "azurerm_storage_blob" "index" {{
      name                   = "index.html"
      storage_account_name   = "{ACCOUNT}"
      storage_container_name = azurerm_storage_container.site.name
      type                   = "Block"
      content_type           = "text/html"
      source_content         = "<h1>hi</h1>"
    }}
    output "url" {{
      value = azurerm_storage_blob.index.url
    }}
    """)
    project.apply()
    assert project.blobs.get_blob_client("site", "index.html").download_blob().readall() == b"<h1>hi</h1>"
    assert project.ok("output", "--raw", "url").stdout.strip().endswith("/site/index.html")
    project.no_changes()
    project.ok("destroy", "--auto-approve")
    assert [c.name for c in project.blobs.list_containers()] == [CONTAINER]
