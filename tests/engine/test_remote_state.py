"""``data "terraform_remote_state"``: another state's root outputs, read without its lock, secrets kept secret.

The consumer configuration runs through the real command functions (in process); the states it
reads are written through the stores, as the stack that owns them would have.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from adapters.registry import Registry
from backends.base import StateStore
from backends.factory import make_store
from cli.main import run
from engine import remote_state
from engine.state.manager import StateManager
from engine.state.model import OutputValue
from tests.servers import MotoServer
from vocab.locks import LockInfo

NETWORK_OUTPUTS = {
    "vpc_id": OutputValue("vpc-123", "string"),
    "subnets": OutputValue(["a", "b"], ["list", "string"]),
    "db_password": OutputValue("hunter2", "string", sensitive=True),
}


def publish(store: StateStore, workspace: str = "default", outputs: dict[str, OutputValue] | None = None) -> None:
    """Write a state with root outputs into ``store``, as an apply of the other stack would."""
    manager = StateManager(store, workspace)
    state = manager.load()
    state.outputs = dict(NETWORK_OUTPUTS if outputs is None else outputs)
    manager.persist(state)


def consumer(root: Path, data_block: str, outputs: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "main.tf").write_text(data_block + "\n" + outputs)
    return root


def outputs_json(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert run(["-C", str(root), "output", "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def apply(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    code = run(["-C", str(root), "apply", "--auto-approve"])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    return captured.out + captured.err


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CTL_WORKSPACE", "TF_WORKSPACE", "CTL_LOCK_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CI", "true")


READ_ALL = """
output "vpc" {
  value = data.terraform_remote_state.net.outputs.vpc_id
}
output "second_subnet" {
  value = data.terraform_remote_state.net.outputs.subnets[1]
}
output "password" {
  value     = data.terraform_remote_state.net.outputs.db_password
  sensitive = true
}
"""


def test_the_data_source_is_installed_into_the_terraform_provider() -> None:
    registry = remote_state.install(Registry.discover())
    assert registry.resource_type("terraform_remote_state", "data") is not None
    assert remote_state.install(registry) is registry  # idempotent
    assert Registry.discover().resource_type("terraform_remote_state", "data") is None  # the cache is untouched


def test_local_outputs_are_read_and_a_held_lock_does_not_matter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = make_store("local", {"path": "net/ctl.tfstate"}, tmp_path)
    publish(net)
    held = LockInfo(Operation="OperationTypeApply", Info="the network stack is applying")
    net.lock("default", held)
    root = consumer(tmp_path / "app", """
data "terraform_remote_state" "net" {
  backend = "local"
  config  = { path = "../net/ctl.tfstate" }
}
""", READ_ALL)
    apply(root, capsys)
    out = outputs_json(root, capsys)
    assert out["vpc"]["value"] == "vpc-123"
    assert out["second_subnet"]["value"] == "b"
    assert out["password"]["sensitive"] is True
    lock = net.lock_info("default")
    assert lock is not None and lock.ID == held.ID  # read without taking or touching the lock


def test_a_sensitive_output_stays_sensitive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    publish(make_store("local", {"path": "net.tfstate"}, tmp_path))
    root = consumer(tmp_path / "app", """
data "terraform_remote_state" "net" {
  backend = "local"
  config  = { path = "../net.tfstate" }
}
""", 'output "leak" {\n  value = data.terraform_remote_state.net.outputs.db_password\n}\n')
    capsys.readouterr()
    assert run(["-C", str(root), "plan"]) == 1
    err = capsys.readouterr().err
    assert "sensitive" in err.lower() and "hunter2" not in err


def test_workspace_and_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = make_store("local", {"path": "net.tfstate"}, tmp_path)
    publish(net)
    publish(net, "staging", {"vpc_id": OutputValue("vpc-staging", "string")})
    root = consumer(tmp_path / "app", """
data "terraform_remote_state" "net" {
  backend   = "local"
  config    = { path = "../net.tfstate" }
  workspace = "staging"
  defaults  = { vpc_id = "vpc-default", region = "eu-west-1" }
}
""", """
output "vpc" {
  value = data.terraform_remote_state.net.outputs.vpc_id
}
output "region" {
  value = data.terraform_remote_state.net.outputs.region
}
""")
    apply(root, capsys)
    out = outputs_json(root, capsys)
    assert out["vpc"]["value"] == "vpc-staging"  # the state wins over defaults
    assert out["region"]["value"] == "eu-west-1"  # a default fills what the state lacks


def test_a_missing_workspace_or_corrupt_state_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    publish(make_store("local", {"path": "net.tfstate"}, tmp_path))
    root = consumer(tmp_path / "app", """
data "terraform_remote_state" "net" {
  backend   = "local"
  config    = { path = "../net.tfstate" }
  workspace = "nope"
}
""", "")
    capsys.readouterr()
    assert run(["-C", str(root), "plan"]) == 1
    err = capsys.readouterr().err
    assert 'no state found for workspace "nope"' in err and "Traceback" not in err
    assert "data.terraform_remote_state.net" in err

    (tmp_path / "net.tfstate").write_text("{ not json")
    (root / "main.tf").write_text((root / "main.tf").read_text().replace('workspace = "nope"', ""))
    assert run(["-C", str(root), "plan"]) == 1
    err = capsys.readouterr().err
    assert "net.tfstate" in err and "Traceback" not in err


def test_an_unknown_backend_is_refused_by_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = consumer(tmp_path / "app", """
data "terraform_remote_state" "net" {
  backend = "consul"
  config  = {}
}
""", "")
    capsys.readouterr()
    assert run(["-C", str(root), "validate"]) == 1
    assert "consul" in capsys.readouterr().err


def test_s3_outputs_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], moto_server_clean: MotoServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in moto_server_clean.env.items():
        monkeypatch.setenv(name, value)
    bucket = f"net-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=bucket)
    settings = {"bucket": bucket, "key": "network/ctl.tfstate", "use_path_style": True}
    net = make_store("s3", settings, tmp_path)
    publish(net)
    publish(net, "prod", {"vpc_id": OutputValue("vpc-prod", "string")})
    net.lock("prod", LockInfo(Operation="OperationTypeApply"))
    root = consumer(tmp_path / "app", f"""
data "terraform_remote_state" "net" {{
  backend = "s3"
  config = {{
    bucket         = "{bucket}"
    key            = "network/ctl.tfstate"
    region         = "{moto_server_clean.region}"
    endpoints      = {{ s3 = "{moto_server_clean.url}" }}
    use_path_style = true
  }}
}}
data "terraform_remote_state" "prod" {{
  backend   = "s3"
  workspace = "prod"
  config    = {{ bucket = "{bucket}", key = "network/ctl.tfstate", use_path_style = true }}
}}
""", READ_ALL + 'output "prod_vpc" {\n  value = data.terraform_remote_state.prod.outputs.vpc_id\n}\n')
    apply(root, capsys)
    out = outputs_json(root, capsys)
    assert out["vpc"]["value"] == "vpc-123"
    assert out["prod_vpc"]["value"] == "vpc-prod"
    assert out["password"]["sensitive"] is True
