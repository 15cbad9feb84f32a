"""``google_storage_bucket`` through the ctl executable against fake-gcs-server.

Each step is checked on the emulator with google-cloud-storage, not only in ctl's output.

Emulator limits (fake-gcs-server as pinned in the test extra), measured, not assumed:

* it does not keep labels: they are accepted on create and patch, but never reported back, so a
  label update cannot be verified there (``test_labels_are_dropped_by_the_emulator`` shows what a
  user then sees: the labels come back as changed outside ctl);
* it ignores the requested ``location`` and ``storage_class`` (every bucket is ``US-CENTRAL1`` /
  ``STANDARD``), so these tests configure exactly those values, and storage-class updates are not
  exercised;
* it does not report ``iamConfiguration``, so ``uniform_bucket_level_access`` keeps the configured
  value instead of the server's;
* it keeps ``versioning``, so in-place updates and drift use it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.gcp.gcp_support import GcsProject
from tests.servers import FakeGcsServer

ADDR = "google_storage_bucket.b"


def bucket(name: str = "ctl-bucket-one", *, versioning: bool = True, uniform: bool = True, extra: str = "") -> str:
    """A bucket block; uniform access is on by default, as the built-in policy pack requires."""
    uba = "uniform_bucket_level_access = true" if uniform else ""
    return f"""
    resource "google_storage_bucket" "b" {{
      name     = "{name}"
      location = "us-central1"
      {uba}
      versioning {{
        enabled = {str(versioning).lower()}
      }}
      {extra}
    }}
    """


@pytest.fixture
def project(tmp_path: Path, fake_gcs_clean: FakeGcsServer) -> GcsProject:
    return GcsProject(tmp_path, fake_gcs_clean)


def test_create_then_replan_is_a_no_op(project: GcsProject) -> None:
    project.configure(bucket())
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    made = project.storage.get_bucket("ctl-bucket-one")
    assert made.versioning_enabled is True
    attrs = project.attributes(ADDR)
    assert attrs["id"] == "ctl-bucket-one"
    assert attrs["url"] == "gs://ctl-bucket-one"
    assert attrs["self_link"] == made.self_link
    assert attrs["location"] == "US-CENTRAL1"  # configured lower-case, stored as the API reports it
    assert attrs["storage_class"] == "STANDARD"
    assert attrs["force_destroy"] is False
    project.no_changes()


def test_versioning_is_updated_in_place(project: GcsProject) -> None:
    project.configure(bucket(versioning=True))
    project.apply()
    created = project.storage.get_bucket("ctl-bucket-one").time_created
    project.configure(bucket(versioning=False))
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    after = project.storage.get_bucket("ctl-bucket-one")
    assert after.versioning_enabled is False
    assert after.time_created == created  # the same bucket, not a new one
    assert project.attributes(ADDR)["versioning"] == [{"enabled": False}]
    project.no_changes()


def test_new_name_replaces_the_bucket(project: GcsProject) -> None:
    project.configure(bucket("ctl-bucket-one"))
    project.apply()
    project.configure(bucket("ctl-bucket-two"))
    plan = project.plan_json()
    change = plan["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"]
    assert ["name"] in change["replace_paths"]
    project.apply()
    assert project.storage.lookup_bucket("ctl-bucket-one") is None
    assert project.storage.lookup_bucket("ctl-bucket-two") is not None
    project.no_changes()


def test_import_by_name_then_no_changes(project: GcsProject) -> None:
    """The emulator does not report uniform access, so the configuration leaves it unset (computed)."""
    made = project.storage.bucket("ctl-imported")
    made.versioning_enabled = True
    project.storage.create_bucket(made, location="US-CENTRAL1")
    project.configure(bucket("ctl-imported", uniform=False))
    res = project.ok("import", ADDR, "ctl-imported")
    assert "Import successful" in res.stdout
    attrs = project.attributes(ADDR)
    assert attrs["name"] == "ctl-imported" and attrs["versioning"] == [{"enabled": True}]
    assert attrs["force_destroy"] is False
    project.no_changes()


def test_drift_made_behind_ctls_back_is_detected(project: GcsProject) -> None:
    project.configure(bucket(versioning=True))
    project.apply()
    behind = project.storage.get_bucket("ctl-bucket-one")
    behind.versioning_enabled = False
    behind.patch()
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2, str(res)
    assert "Objects have changed outside of ctl" in res.stdout
    plan = project.plan_json()
    assert [d["address"] for d in plan["resource_drift"]] == [ADDR]
    assert plan["resource_drift"][0]["change"]["after"]["versioning"] == [{"enabled": False}]
    assert project.actions() == {ADDR: ["update"]}
    project.apply()
    assert project.storage.get_bucket("ctl-bucket-one").versioning_enabled is True

    project.storage.get_bucket("ctl-bucket-one").delete()  # deleted outside ctl: planned again
    assert project.actions() == {ADDR: ["create"]}
    project.apply()
    assert project.storage.lookup_bucket("ctl-bucket-one") is not None


def test_destroy_refuses_a_non_empty_bucket_unless_force_destroy(project: GcsProject) -> None:
    project.configure(bucket())
    project.apply()
    project.storage.bucket("ctl-bucket-one").blob("left/behind.txt").upload_from_string("x")
    res = project.ctl("destroy", "--auto-approve")
    assert res.code == 1, str(res)
    assert "Traceback" not in res.output
    assert ADDR in res.output and "ctl-bucket-one" in res.output and "force_destroy" in res.output
    assert project.storage.lookup_bucket("ctl-bucket-one") is not None

    project.configure(bucket(extra="force_destroy = true"))
    assert project.actions() == {ADDR: ["update"]}  # state-only: nothing is sent to the server
    project.apply()
    project.ok("destroy", "--auto-approve")
    assert project.storage.lookup_bucket("ctl-bucket-one") is None
    assert project.instances() == {}


def test_destroy_removes_the_bucket(project: GcsProject) -> None:
    project.configure(bucket())
    project.apply()
    project.ok("destroy", "--auto-approve")
    assert project.storage.lookup_bucket("ctl-bucket-one") is None
    assert project.instances() == {}


def test_an_existing_bucket_is_not_adopted_silently(project: GcsProject) -> None:
    project.storage.create_bucket("ctl-taken")
    project.configure(bucket("ctl-taken"))
    res = project.ctl("apply", "--auto-approve")
    assert res.code == 1, str(res)
    assert "already exists" in res.output and f"ctl import {ADDR} ctl-taken" in res.output
    assert "Traceback" not in res.output


def test_labels_are_dropped_by_the_emulator(project: GcsProject) -> None:
    """fake-gcs-server accepts labels but never returns them: a label update cannot be verified.

    ctl sends the labels and records what the server answers, as it does for every attribute; on
    this emulator that is "no labels", so every later plan offers to set them again. On Cloud
    Storage the labels are kept and the re-plan is a no-op (the branch taken if the emulator
    starts keeping them).
    """
    project.configure(bucket(extra='labels = { team = "storage" }'))
    project.apply()
    kept = project.storage.get_bucket("ctl-bucket-one").labels
    if kept:
        assert kept == {"team": "storage"}
        assert project.attributes(ADDR)["labels"] == {"team": "storage"}
        project.no_changes()
        return
    assert project.attributes(ADDR)["labels"] is None  # what the server reported
    plan = project.plan_json()
    assert plan["resource_drift"] == []
    change = plan["resource_changes"][0]["change"]
    assert change["actions"] == ["update"]
    assert change["after"]["labels"] == {"team": "storage"}
