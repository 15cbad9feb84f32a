"""``ctl init`` and the backend: settings merged from the block and ``--backend-config``, recorded
without credentials, changes refused without ``--migrate-state``/``--reconfigure``, migration, and the
probe that refuses stores whose conditional requests are not really conditional."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from backends import factory
from backends.base import DEFAULT_WORKSPACE, BackendError, StateStore
from backends.local.store import LocalStore
from backends.objectstore.objects import ObjectInfo, PreconditionFailed, StoredObject
from backends.objectstore.store import ObjectStateStore
from cli.main import run
from engine.session import public_settings
from engine.state.manager import StateManager
from engine.state.model import InstanceState
from tests.servers import MotoServer
from vocab.locks import LockInfo

RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'
MAIN = 'resource "random_id" "a" {\n  byte_length = 2\n}\n'


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CI", "true")  # no prompts
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tf").write_text(MAIN)
    return tmp_path


def ctl(root: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = run(["-C", str(root), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def backend_block(root: Path, kind: str, body: str = "") -> None:
    (root / "backend.tf").write_text(f'terraform {{\n  backend "{kind}" {{\n{body}  }}\n}}\n')


def recorded(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / ".ctl" / "backend.json").read_text()))


def put_object(store: StateStore, workspace: str, address: str) -> bytes:
    """Record one object in a workspace's state; the bytes stored."""
    manager = StateManager(store, workspace)
    state = manager.load()
    state.set_instance(address, InstanceState(attributes={"id": address}), RANDOM)
    manager.persist(state)
    snap = store.read(workspace)
    assert snap is not None
    return snap.data


# -- settings ---------------------------------------------------------------------------------------


def test_backend_config_pairs_and_files_merge_in_order(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    backend_block(root, "local", '    path = "from-block.tfstate"\n')
    (root / "one.hcl").write_text('path = "from-file.tfstate"\n')
    code, _, err = ctl(root, "init", "--backend-config", "one.hcl", capsys=capsys)
    assert code == 0, err
    assert recorded(root)["config"] == {"path": "from-file.tfstate"}  # the file wins over the block
    assert recorded(root)["block"] == {"path": "from-block.tfstate"}

    code, _, err = ctl(root, "init", "--reconfigure", "--backend-config", "one.hcl",
                       "--backend-config", "path=later.tfstate", capsys=capsys)
    assert code == 0, err
    assert recorded(root)["config"] == {"path": "later.tfstate"}  # a later pair wins over the file
    put_object(LocalStore(root / "later.tfstate"), DEFAULT_WORKSPACE, "random_id.a")

    code, _, err = ctl(root, "init", capsys=capsys)  # plain re-run keeps what --backend-config gave
    assert code == 0, err
    assert recorded(root)["config"] == {"path": "later.tfstate"}
    code, out, err = ctl(root, "state", "list", capsys=capsys)  # later commands use the recorded settings
    assert (code, out) == (0, "random_id.a\n"), err


def test_a_bad_backend_config_argument_is_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = ctl(root, "init", "--backend-config", "missing-file.hcl", capsys=capsys)
    assert code == 64 and "not NAME=VALUE" in err
    code, _, err = ctl(root, "init", "--backend-config", "=x", capsys=capsys)
    assert code == 64 and "name is empty" in err
    (root / "bad.hcl").write_text("path = var.x\n")
    code, _, err = ctl(root, "init", "--backend-config", "bad.hcl", capsys=capsys)
    assert code == 1 and "must be a constant" in err and "bad.hcl:1" in err
    assert not (root / ".ctl" / "backend.json").exists()


def test_unknown_settings_are_refused_naming_the_backend(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    backend_block(root, "s3", '    bucket = "b"\n    key = "k"\n    bukket = "typo"\n')
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1 and 's3: unsupported backend setting "bukket"' in err and "Traceback" not in err


def test_public_settings_drop_every_credential() -> None:
    settings = {
        "bucket": "b", "key": "k", "kms_key_id": "arn:aws:kms:k", "access_key": "AK", "secret_key": "SK",
        "token": "T", "sas_token": "?sv=1", "connection_string": "Account...", "sse_customer_key": "c2VjcmV0",
        "credentials": '{"type": "service_account"}', "endpoints": {"s3": "http://x", "client_secret": "CS"},
    }  # fmt: skip
    assert public_settings(settings) == {
        "bucket": "b", "key": "k", "kms_key_id": "arn:aws:kms:k", "endpoints": {"s3": "http://x"},
    }  # fmt: skip
    assert public_settings({"credentials": "/home/ci/key.json"}) == {"credentials": "/home/ci/key.json"}


def test_s3_secrets_are_used_but_never_recorded(
    root: Path, capsys: pytest.CaptureFixture[str], moto_server_clean: MotoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = f"init-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=bucket)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(root / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(root / "none"))
    backend_block(root, "s3", '    key = "app/ctl.tfstate"\n    use_path_style = true\n')
    (root / "s3.tfbackend").write_text(
        f'region = "{moto_server_clean.region}"\nendpoints {{\n  s3 = "{moto_server_clean.url}"\n}}\n'
        'secret_key = "SECRETSECRET"\n'
    )
    code, _, err = ctl(root, "init", "--backend-config", f"bucket={bucket}", "--backend-config", "s3.tfbackend",
                       "--backend-config", "access_key=AKIDSECRET", capsys=capsys)
    assert code == 0, err
    assert "access_key, secret_key are not recorded" in err
    text = (root / ".ctl" / "backend.json").read_text()
    assert "SECRET" not in text
    assert recorded(root)["config"] == {
        "bucket": bucket, "key": "app/ctl.tfstate", "use_path_style": True, "region": moto_server_clean.region,
        "endpoints": {"s3": moto_server_clean.url},
    }  # fmt: skip

    code, _, err = ctl(root, "state", "list", capsys=capsys)  # no credentials anywhere: a clear error
    assert code == 1 and "s3" in err and "credential" in err.lower() and "Traceback" not in err
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    code, out, err = ctl(root, "state", "list", capsys=capsys)
    assert (code, out) == (0, ""), err


# -- changes ------------------------------------------------------------------------------------------


def test_a_changed_backend_needs_migrate_state_or_reconfigure(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ctl(root, "init", capsys=capsys)[0] == 0
    old = put_object(LocalStore(root / "ctl.tfstate"), DEFAULT_WORKSPACE, "random_id.a")
    backend_block(root, "local", '    path = "moved/ctl.tfstate"\n')

    for command in (["plan"], ["state", "list"], ["apply", "--auto-approve"]):
        code, _, err = ctl(root, *command, capsys=capsys)
        assert code == 1, command
        assert "Backend configuration changed since `ctl init` (local: path changed)" in err
        assert "ctl init --migrate-state" in err and "--reconfigure" in err
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1 and "Backend configuration changed: local" in err and "--migrate-state" in err
    code, _, err = ctl(root, "init", "--migrate-state", "--reconfigure", capsys=capsys)
    assert code == 64

    code, _, err = ctl(root, "init", "--migrate-state", capsys=capsys)  # no terminal to confirm on
    assert code == 1 and "needs confirmation" in err and "--force-copy" in err
    assert not (root / "moved" / "ctl.tfstate").exists()

    code, out, err = ctl(root, "init", "--migrate-state", "--force-copy", capsys=capsys)
    assert code == 0, err
    assert 'Workspace "default": serial 1' in out
    assert (root / "moved" / "ctl.tfstate").read_bytes() == old  # the same bytes: lineage and serial kept
    assert (root / "ctl.tfstate").read_bytes() == old  # the previous backend is left as it was
    assert not (root / "ctl.tfstate.tflock").exists() and not (root / "moved" / "ctl.tfstate.tflock").exists()
    assert ctl(root, "state", "list", capsys=capsys)[1] == "random_id.a\n"


def test_reconfigure_switches_without_copying(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ctl(root, "init", capsys=capsys)[0] == 0
    put_object(LocalStore(root / "ctl.tfstate"), DEFAULT_WORKSPACE, "random_id.a")
    backend_block(root, "local", '    path = "other.tfstate"\n')
    code, out, err = ctl(root, "init", "--reconfigure", capsys=capsys)
    assert code == 0, err
    assert "without copying" in out
    assert not (root / "other.tfstate").exists()
    assert ctl(root, "state", "list", capsys=capsys)[:2] == (0, "")


def test_a_first_backend_block_over_local_state_is_a_change(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory used without `ctl init` keeps its state in ctl.tfstate: that must not be left behind."""
    put_object(LocalStore(root / "ctl.tfstate"), DEFAULT_WORKSPACE, "random_id.a")
    backend_block(root, "local", '    path = "states/app.tfstate"\n')
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1 and "Backend configuration changed: local" in err
    assert ctl(root, "init", "--force-copy", capsys=capsys)[0] == 0
    assert ctl(root, "state", "list", capsys=capsys)[1] == "random_id.a\n"


def test_migration_copies_every_workspace_and_refuses_a_different_destination(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ctl(root, "init", capsys=capsys)[0] == 0
    source = LocalStore(root / "ctl.tfstate")
    copies = {ws: put_object(source, ws, f"random_id.{ws}") for ws in ("default", "dev", "prod")}
    target = LocalStore(root / "new" / "ctl.tfstate")
    put_object(target, "prod", "random_id.somebody_elses")
    backend_block(root, "local", '    path = "new/ctl.tfstate"\n')

    code, _, err = ctl(root, "init", "--force-copy", capsys=capsys)
    assert code == 1
    assert 'Cannot migrate workspace "prod"' in err and "already holds a different state" in err
    assert target.read("default") is None and target.read("dev") is None  # nothing was copied
    assert recorded(root)["config"] == {}  # still the previous backend

    target.delete_workspace("prod")
    code, out, err = ctl(root, "init", "--force-copy", capsys=capsys)
    assert code == 0, err
    for ws, data in copies.items():
        snap = target.read(ws)
        assert snap is not None and snap.data == data, ws
    code, out, err = ctl(root, "init", "--force-copy", capsys=capsys)  # nothing changed: nothing to do
    assert code == 0 and "Migrated" not in out


def test_migration_waits_for_no_one_and_names_a_held_lock(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ctl(root, "init", capsys=capsys)[0] == 0
    source = LocalStore(root / "ctl.tfstate")
    put_object(source, DEFAULT_WORKSPACE, "random_id.a")
    source.lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply", Who="ci@runner-7"))
    backend_block(root, "local", '    path = "new.tfstate"\n')
    code, _, err = ctl(root, "init", "--force-copy", capsys=capsys)
    assert code == 4 and "ci@runner-7" in err
    assert not (root / "new.tfstate").exists()


def test_a_remote_backend_needs_init_first(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    backend_block(root, "s3", '    bucket = "b"\n    key = "k"\n')
    code, _, err = ctl(root, "plan", capsys=capsys)
    assert code == 1 and "The s3 backend is not initialized" in err and "ctl init" in err


# -- the probe ----------------------------------------------------------------------------------------


class MemoryStore(ObjectStateStore):
    """An object store in a dict whose conditions can be switched off, like a careless S3 clone."""

    backend = "memory"
    honour_create: ClassVar[bool] = True
    honour_match: ClassVar[bool] = True
    objects: ClassVar[dict[str, tuple[bytes, str]]] = {}

    def _url(self, key: str) -> str:
        return f"memory://{key}"

    def _state_key(self, workspace: str) -> str:
        return f"{workspace}.tfstate"

    def _lock_key(self, workspace: str) -> str:
        return f"{workspace}.tfstate.tflock"

    def workspaces(self) -> list[str]:
        names = {k[: -len(".tfstate")] for k in self.objects if k.endswith(".tfstate")}
        return [DEFAULT_WORKSPACE, *sorted(names - {DEFAULT_WORKSPACE})]

    def _get(self, key: str, *, metadata: bool = False) -> StoredObject | None:
        found = self.objects.get(key)
        return None if found is None else StoredObject(found[0], found[1], {})

    def _put(self, key: str, data: bytes, *, if_match: str | None = None, if_absent: bool = False,
             metadata: dict[str, str] | None = None) -> str:
        current = self.objects.get(key)
        if if_absent and current is not None and self.honour_create:
            raise PreconditionFailed(key)
        if if_match is not None and self.honour_match and (current is None or current[1] != if_match):
            raise PreconditionFailed(key)
        token = uuid.uuid4().hex
        self.objects[key] = (data, token)
        return token

    def _delete(self, key: str, *, if_match: str | None = None) -> bool:
        return self.objects.pop(key, None) is not None

    def _list(self, prefix: str, *, metadata: bool = False) -> list[ObjectInfo]:
        return [ObjectInfo(k, {}) for k in sorted(self.objects) if k.startswith(prefix)]


@pytest.fixture
def memory_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[MemoryStore]]:
    """A ``memory`` backend kind, known to the factory for this test only."""
    real = factory.make_store

    def make_store(kind: str, settings: Any, root_dir: Path) -> StateStore:
        if kind == "unreachable":
            raise BackendError("unreachable: no credentials for this store")
        return MemoryStore() if kind == "memory" else real(kind, settings, root_dir)

    monkeypatch.setattr(factory, "make_store", make_store)
    MemoryStore.objects = {}
    yield MemoryStore
    MemoryStore.honour_create = MemoryStore.honour_match = True


def test_a_store_that_honours_its_conditions_is_accepted(
    root: Path, capsys: pytest.CaptureFixture[str], memory_kind: type[MemoryStore]
) -> None:
    backend_block(root, "memory")
    code, out, err = ctl(root, "init", capsys=capsys)
    assert code == 0, err
    assert "Backend: memory" in out
    assert not any(".probe-" in key for key in memory_kind.objects)  # the scratch object is removed


def test_a_store_ignoring_if_none_match_is_refused(
    root: Path, capsys: pytest.CaptureFixture[str], memory_kind: type[MemoryStore]
) -> None:
    memory_kind.honour_create = False
    backend_block(root, "memory")
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1
    assert "does not refuse a second conditional create" in err and "two runs could both take the lock" in err
    assert "Traceback" not in err
    assert not (root / ".ctl" / "backend.json").exists()


def test_a_store_ignoring_if_match_is_refused(
    root: Path, capsys: pytest.CaptureFixture[str], memory_kind: type[MemoryStore]
) -> None:
    memory_kind.honour_match = False
    backend_block(root, "memory")
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1 and "does not refuse a stale compare-and-swap" in err
    assert not (root / ".ctl" / "backend.json").exists()


def test_the_probe_runs_before_anything_is_migrated(
    root: Path, capsys: pytest.CaptureFixture[str], memory_kind: type[MemoryStore]
) -> None:
    assert ctl(root, "init", capsys=capsys)[0] == 0
    put_object(LocalStore(root / "ctl.tfstate"), DEFAULT_WORKSPACE, "random_id.a")
    memory_kind.honour_create = False
    backend_block(root, "memory")
    code, _, err = ctl(root, "init", "--force-copy", capsys=capsys)
    assert code == 1 and "does not refuse a second conditional create" in err
    assert not any(key.endswith(".tfstate") for key in memory_kind.objects)
    assert recorded(root)["type"] == "local"


def test_reconfigure_does_not_need_the_previous_backend(
    root: Path, capsys: pytest.CaptureFixture[str], memory_kind: type[MemoryStore]
) -> None:
    """A backend whose credentials are gone can be left with --reconfigure, but not copied from."""
    (root / ".ctl").mkdir()
    (root / ".ctl" / "backend.json").write_text('{"type": "unreachable", "config": {"bucket": "old"}, "block": {}}')
    code, _, err = ctl(root, "init", capsys=capsys)
    assert code == 1 and "Backend configuration changed: unreachable (bucket=old) → local" in err
    code, _, err = ctl(root, "init", "--force-copy", capsys=capsys)
    assert code == 1 and "cannot open the previous backend" in err and "no credentials" in err
    code, _, err = ctl(root, "init", "--reconfigure", capsys=capsys)
    assert code == 0, err
    assert recorded(root)["type"] == "local"


def test_init_on_the_local_backend_imports_no_cloud_sdk(root: Path) -> None:
    (root / "remote.tf").write_text(
        'data "terraform_remote_state" "net" {\n  backend = "local"\n  config  = { path = "net.tfstate" }\n}\n'
    )
    code = (
        "import contextlib, io, sys\n"
        "from cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert run(['-C', {str(root)!r}, 'init']) == 0\n"
        f"    assert run(['-C', {str(root)!r}, 'init', '--help']) == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'boto3', 'botocore', 'azure'} "
        "or m.startswith(('google.cloud', 'google.auth')))\n"
        "print(heavy)\n"
    )
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo,
                          env={**os.environ, "PYTHONPATH": str(repo)}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
