"""``ctl drift`` and ``ctl drift adopt`` on Google Cloud Storage, against fake-gcs-server.

A bucket's versioning switched off with google-cloud-storage is drift ctl names attribute by
attribute (exit 2, JSON lines); adopting it rewrites the literal inside the nested block, keeping the
comment beside it, and the next plan is empty. Labels are not used: the emulator does not keep them
(see tests/adapters/gcp/test_gcp_bucket.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.adapters.gcp.gcp_support import GcsProject
from tests.servers import FakeGcsServer

BUCKET = """
resource "google_storage_bucket" "archive" {
  name                        = "ctl-drift-archive"
  location                    = "us-central1"
  uniform_bucket_level_access = true

  versioning {
    enabled = true # keep every version: the auditors ask for it
  }
}
"""


def test_versioning_switched_off_outside_ctl_is_reported_then_adopted(
        tmp_path: Path, fake_gcs_clean: FakeGcsServer) -> None:
    project = GcsProject(tmp_path, fake_gcs_clean)
    project.configure(BUCKET)
    project.ok("init")
    project.ok("apply", "-auto-approve")
    assert project.ctl("drift").code == 0

    bucket = project.storage.get_bucket("ctl-drift-archive")
    bucket.versioning_enabled = False
    bucket.patch()

    res = project.ctl("drift")
    assert res.code == 2, res
    assert "google_storage_bucket.archive" in res.stdout
    assert "versioning[0].enabled: true -> false" in res.stdout

    lines = [json.loads(line) for line in project.ctl("drift", "--json").stdout.splitlines() if line.strip()]
    drifted = [d for d in lines if d["type"] == "drift"]
    assert [d["address"] for d in drifted] == ["google_storage_bucket.archive"]
    changed = [(a["path"], a["before"], a["after"]) for a in drifted[0]["attributes"]]
    assert changed == [(["versioning", 0, "enabled"], True, False)]

    adopted = project.ctl("drift", "adopt")
    assert adopted.code == 0, adopted
    text = project.path("main.tf").read_text()
    assert "enabled = false # keep every version: the auditors ask for it" in text
    project.no_changes()
    assert project.storage.get_bucket("ctl-drift-archive").versioning_enabled is False  # adopt changed no object
