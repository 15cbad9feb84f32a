"""The google provider: the shared adapter contract on fake-gcs-server, configuration and errors.

The contract suite (``tests/adapters/contract.py``) runs each resource type's operations directly
against the emulator; the CLI tests check what a user sees when the provider cannot work.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters import google
from adapters.base import AdapterContext
from adapters.registry import Registry
from engine.providers import Providers
from engine.state.journal import planned_identity
from tests.adapters.contract import ResourceContract
from tests.adapters.gcp.gcp_support import GcsProject
from tests.e2e.helpers import REPO
from tests.servers import FakeGcsServer, free_port

CONTRACT_BUCKET = "ctl-contract"


class _OnTheEmulator:
    """Points the provider (through its environment) at a clean fake-gcs-server."""

    @pytest.fixture(autouse=True)
    def _emulator(self, fake_gcs_clean: FakeGcsServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
        for key, value in fake_gcs_clean.env.items():
            monkeypatch.setenv(key, value)
        fake_gcs_clean.client().create_bucket(CONTRACT_BUCKET)
        yield


class TestGcsBucketContract(_OnTheEmulator, ResourceContract):
    provider = google.PROVIDER
    type_name = "google_storage_bucket"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [
            {"name": "ctl-contract-a", "location": "US-CENTRAL1"},
            {"name": "ctl-contract-b", "location": "US-CENTRAL1", "versioning": [{"enabled": True}],
             "force_destroy": True, "storage_class": "STANDARD"},
        ]


class TestGcsObjectContract(_OnTheEmulator, ResourceContract):
    provider = google.PROVIDER
    type_name = "google_storage_bucket_object"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "b.bin").write_bytes(bytes(range(256)))
        return [
            {"bucket": CONTRACT_BUCKET, "name": "a.txt", "content": "A"},
            {"bucket": CONTRACT_BUCKET, "name": "dir/b.bin", "source": "b.bin", "metadata": {"k": "v"},
             "content_type": "application/octet-stream"},
        ]


@pytest.mark.parametrize(
    ("type_name", "identity", "expected"),
    [
        ("google_storage_bucket", {"name": "b", "project": "p"}, "b"),  # the provider's project
        ("google_storage_bucket", {"name": "b", "project": "other"}, "other/b"),
        ("google_storage_bucket", {"name": "b"}, "b"),
        ("google_storage_bucket", {"project": "p"}, None),
        ("google_storage_bucket_object", {"bucket": "b", "name": "dir/o.txt"}, "b/dir/o.txt"),
        ("google_storage_bucket_object", {"name": "o.txt"}, None),  # the bucket was still unknown
    ],
)
def test_import_id_of_a_planned_identity(type_name: str, identity: dict[str, Any], expected: str | None,
                                         fake_gcs: FakeGcsServer, monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    for key, value in fake_gcs.env.items():
        monkeypatch.setenv(key, value)
    rt = google.PROVIDER.resources[type_name]
    ctx = AdapterContext(provider_config={}, client=google.PROVIDER.configure({"project": "p"}, tmp_path),
                         address=f"{type_name}.x")
    assert rt.import_id(ctx, identity) == expected
    assert rt.findable(ctx, identity) is (expected is not None)


class TestGcsBucketOfAnotherProject(_OnTheEmulator):
    """A bucket planned in another project than the provider's is found with that project recorded."""

    def test_find_keeps_the_planned_project(self, tmp_path: Path) -> None:
        rt = google.PROVIDER.resources["google_storage_bucket"]
        ctx = AdapterContext(provider_config={}, client=google.PROVIDER.configure({}, tmp_path),
                             address="google_storage_bucket.x")
        planned = rt.plan(ctx, None, {"name": "ctl-elsewhere", "location": "US", "project": "elsewhere"})
        identity = planned_identity(planned) or {}
        assert rt.find(ctx, identity) is None
        created = rt.create(ctx, planned)
        try:
            found = rt.find(ctx, identity)
            assert found is not None and found["id"] == created["id"] and found["project"] == "elsewhere"
        finally:
            rt.delete(ctx, created)


def test_help_and_discovery_do_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from adapters.registry import Registry\n"
        "assert Registry.discover().resource_type('google_storage_bucket_object') is not None\n"
        "sys.argv = ['ctl', '--help']\n"
        "from cli.main import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith(('google.cloud', 'google.auth'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stdout, out.stdout + out.stderr


def test_one_client_per_provider_configuration(fake_gcs: FakeGcsServer, monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    for key, value in fake_gcs.env.items():
        monkeypatch.setenv(key, value)
    registry = Registry.discover()
    configs = {((), "google"): {"project": "a"}, ((), "google.other"): {"project": "b"}}
    providers = Providers(registry, configs, tmp_path)
    bucket = google.PROVIDER.resources["google_storage_bucket"]
    obj = google.PROVIDER.resources["google_storage_bucket_object"]
    first = providers.context(bucket, "google_storage_bucket.a").client
    assert providers.context(obj, "google_storage_bucket_object.b").client is first
    assert first.project == "a" and first.emulated
    from engine.config.model import Resource

    other = Resource.__new__(Resource)
    other.provider = ("google", "other")
    second = providers.context(bucket, "google_storage_bucket.c", resource=other).client
    assert second is not first and second.project == "b"


def test_unreachable_endpoint_is_a_clear_error(tmp_path: Path, fake_gcs: FakeGcsServer) -> None:
    project = GcsProject(tmp_path, fake_gcs)
    project.write("""
    provider "google" {
      project         = "test"
      request_timeout = "2s"
    }
    resource "google_storage_bucket" "b" {
      name     = "ctl-nowhere"
      location = "US"

      uniform_bucket_level_access = true
    }
    """)
    started = time.monotonic()
    res = project.ctl("apply", "--auto-approve", env={"STORAGE_EMULATOR_HOST": f"http://127.0.0.1:{free_port()}"})
    assert res.code == 1, str(res)
    assert "Traceback" not in res.output
    assert "google_storage_bucket.b" in res.output and 'bucket "ctl-nowhere"' in res.output
    assert time.monotonic() - started < 30  # the SDK's retries stop at request_timeout


def test_unsupported_provider_argument(tmp_path: Path, fake_gcs: FakeGcsServer) -> None:
    project = GcsProject(tmp_path, fake_gcs)
    project.write("""
    provider "google" {
      projcet = "test"
    }
    resource "google_storage_bucket" "b" {
      name     = "ctl-typo"
      location = "US"
    }
    """)
    res = project.ctl("plan")
    assert res.code == 1, str(res)
    assert 'An argument named "projcet" is not expected here.' in res.output and 'Did you mean "project"?' in res.output
    assert "Traceback" not in res.output


def test_invalid_arguments_are_reported_by_validate(tmp_path: Path, fake_gcs: FakeGcsServer) -> None:
    project = GcsProject(tmp_path, fake_gcs)
    project.configure("""
    resource "google_storage_bucket_object" "o" {
      bucket  = "ctl-x"
      name    = "a"
      content = "x"
      source  = "a.txt"
    }
    resource "google_storage_bucket" "b" {
      name     = "Not_Valid"
      location = "US"
      colour   = "blue"
    }
    """)
    res = project.ctl("validate")
    assert res.code == 1, str(res)
    assert 'An argument named "colour" is not expected here.' in res.output
    assert "google_storage_bucket.b" in res.output and "google_storage_bucket_object.o" in res.output
