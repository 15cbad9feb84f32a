"""``google_storage_bucket_object`` through the ctl executable against fake-gcs-server.

Each step is checked on the emulator with google-cloud-storage (bytes, metadata, generation).
fake-gcs-server keeps object bytes, MD5, content type and metadata, and patches them like Cloud
Storage; nothing in these tests had to be weakened for it. The bucket itself is made with the SDK,
so each test is about the object alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.gcp.gcp_support import GcsProject
from tests.servers import FakeGcsServer

ADDR = "google_storage_bucket_object.o"
BUCKET = "ctl-objects"


def obj(*, content: str | None = "hello", source: str | None = None, name: str = "docs/hello.txt",
        extra: str = "") -> str:
    body = f'content = "{content}"' if content is not None else f'source = "{source}"'
    return f"""
    resource "google_storage_bucket_object" "o" {{
      bucket = "{BUCKET}"
      name   = "{name}"
      {body}
      {extra}
    }}
    """


@pytest.fixture
def project(tmp_path: Path, fake_gcs_clean: FakeGcsServer) -> GcsProject:
    made = GcsProject(tmp_path, fake_gcs_clean)
    made.storage.create_bucket(BUCKET)
    return made


def blob(project: GcsProject, name: str = "docs/hello.txt"):
    return project.storage.bucket(BUCKET).get_blob(name)


def test_create_then_replan_is_a_no_op(project: GcsProject) -> None:
    project.configure(obj(extra='metadata = { owner = "ops" }'))
    project.apply()
    stored = blob(project)
    assert stored.download_as_bytes() == b"hello"
    assert stored.metadata == {"owner": "ops"}
    attrs = project.attributes(ADDR)
    assert attrs["id"] == f"{BUCKET}/docs/hello.txt"
    assert attrs["md5hash"] == stored.md5_hash == attrs["detect_md5hash"]
    assert attrs["generation"] == stored.generation
    assert attrs["media_link"] == stored.media_link
    assert attrs["content_type"] == stored.content_type == "text/plain; charset=utf-8"
    assert project.instances()[ADDR]["sensitive_attributes"]  # content is sensitive
    project.no_changes()


def test_metadata_and_content_type_are_updated_in_place(project: GcsProject) -> None:
    project.configure(obj(extra='metadata = { owner = "ops" }'))
    project.apply()
    generation = blob(project).generation
    project.configure(obj(extra='metadata = { owner = "dev", tier = "1" }\ncontent_type = "text/markdown"'))
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    stored = blob(project)
    assert stored.metadata == {"owner": "dev", "tier": "1"}
    assert stored.content_type == "text/markdown"
    assert stored.generation == generation  # patched, not re-uploaded
    assert stored.download_as_bytes() == b"hello"
    project.no_changes()


def test_removing_a_metadata_key(project: GcsProject) -> None:
    """ctl patches a removed key as null, which Cloud Storage deletes.

    Emulator limit: fake-gcs-server stores the null as an empty string instead, so there the key
    stays (empty) and the next plan offers to remove it again; that branch is checked as such.
    """
    project.configure(obj(extra='metadata = { owner = "ops", tier = "1" }'))
    project.apply()
    project.configure(obj(extra='metadata = { owner = "ops" }'))
    project.apply()
    stored = blob(project).metadata
    if stored == {"owner": "ops"}:
        project.no_changes()
    else:
        assert stored == {"owner": "ops", "tier": ""}
        assert project.actions() == {ADDR: ["update"]}


def test_new_content_replaces_the_object(project: GcsProject) -> None:
    project.configure(obj(content="hello"))
    project.apply()
    generation = blob(project).generation
    project.configure(obj(content="hello again"))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"]
    assert ["detect_md5hash"] in change["replace_paths"]
    project.apply()
    stored = blob(project)
    assert stored.download_as_bytes() == b"hello again"
    assert stored.generation != generation
    project.no_changes()


def test_source_file_upload_and_change(project: GcsProject) -> None:
    (project.root / "page.html").write_bytes(b"<p>one</p>")
    project.configure(obj(content=None, source="page.html", name="site/index.html"))
    project.apply()
    stored = blob(project, "site/index.html")
    assert stored.download_as_bytes() == b"<p>one</p>"
    assert stored.content_type == "text/html"  # guessed from the file name
    project.no_changes()
    (project.root / "page.html").write_bytes(b"<p>two</p>")
    assert project.actions() == {ADDR: ["delete", "create"]}
    project.apply()
    assert blob(project, "site/index.html").download_as_bytes() == b"<p>two</p>"


def test_import_then_no_changes(project: GcsProject) -> None:
    behind = project.storage.bucket(BUCKET).blob("docs/hello.txt")
    behind.upload_from_string(b"hello", content_type="text/plain; charset=utf-8")
    project.configure(obj())
    res = project.ok("import", ADDR, f"{BUCKET}/docs/hello.txt")
    assert "Import successful" in res.stdout
    attrs = project.attributes(ADDR)
    assert attrs["md5hash"] == behind.md5_hash
    assert attrs["content"] is None  # the service cannot say which argument produced the bytes
    project.no_changes()  # same bytes: nothing to upload


def test_drift_made_behind_ctls_back_is_detected(project: GcsProject) -> None:
    project.configure(obj(extra='metadata = { owner = "ops" }'))
    project.apply()

    changed = blob(project)
    changed.metadata = {"owner": "someone-else"}
    changed.patch()
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Objects have changed outside of ctl" in res.stdout, str(res)
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    assert blob(project).metadata == {"owner": "ops"}

    project.storage.bucket(BUCKET).blob("docs/hello.txt").upload_from_string(b"overwritten")
    plan = project.plan_json()
    assert [d["address"] for d in plan["resource_drift"]] == [ADDR]
    assert plan["resource_changes"][0]["change"]["actions"] == ["delete", "create"]
    project.apply()
    assert blob(project).download_as_bytes() == b"hello"

    project.storage.bucket(BUCKET).delete_blob("docs/hello.txt")
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert blob(project).download_as_bytes() == b"hello"


def test_destroy_removes_the_object(project: GcsProject) -> None:
    project.configure(obj())
    project.apply()
    project.ok("destroy", "--auto-approve")
    assert blob(project) is None
    assert project.storage.lookup_bucket(BUCKET) is not None


def test_an_existing_object_is_not_overwritten(project: GcsProject) -> None:
    project.storage.bucket(BUCKET).blob("docs/hello.txt").upload_from_string(b"precious")
    project.configure(obj())
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, str(res)
    assert "already exists" in res.output and f"ctl import {ADDR} {BUCKET}/docs/hello.txt" in res.output
    assert "Traceback" not in res.output
    assert blob(project).download_as_bytes() == b"precious"


def test_object_and_bucket_in_one_configuration(project: GcsProject) -> None:
    project.configure("""
    resource "google_storage_bucket" "site" {
      name          = "ctl-site"
      location      = "US-CENTRAL1"
      force_destroy = true

      uniform_bucket_level_access = true
    }
    resource "google_storage_bucket_object" "index" {
      bucket  = google_storage_bucket.site.name
      name    = "index.html"
      content = "<h1>hi</h1>"
    }
    """)
    project.apply()
    assert project.storage.bucket("ctl-site").get_blob("index.html").download_as_bytes() == b"<h1>hi</h1>"
    project.no_changes()
    project.ok("destroy", "--auto-approve")
    assert project.storage.lookup_bucket("ctl-site") is None
