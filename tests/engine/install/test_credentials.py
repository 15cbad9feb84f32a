"""Private registries: tokens from the environment, the CLI configuration or ``terraform login``'s file.

The loopback registry (tests/provider_registry.py) answers 401 to every API request without the
right bearer token, as a private registry does; its release files stay open.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.install.credentials import env_name, gather
from tests.engine.install.test_e2e_install import _env, _project
from tests.provider_registry import ProviderRegistry, provider_registry

__all__ = ["provider_registry"]

TOKEN = "s3cret-registry-token"


def _rc(path: Path, host: str, token: str) -> Path:
    path.write_text(f'credentials "{host}" {{\n  token = "{token}"\n}}\n')
    return path


def test_a_private_registry_says_how_to_give_a_token_and_installs_with_one(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    registry.require_token(TOKEN)
    project = _project(tmp_path / "cfg", registry)

    refused = project.ctl("init", env=_env(registry, tmp_path / "home"))
    assert refused.code == 1, refused
    assert f"the registry {registry.host} refused the request" in refused.stderr
    assert f'credentials "{registry.host}"' in refused.stderr  # a host with a port: no TF_TOKEN_ name
    assert not project.path(".terraform.lock.hcl").exists()

    rc = _rc(tmp_path / "ctlrc", registry.host, TOKEN)
    res = project.ctl("init", env=_env(registry, tmp_path / "home", CTL_CLI_CONFIG_FILE=str(rc)))
    assert res.code == 0, res
    assert TOKEN not in res.output
    assert registry.authorizations[-1] == f"Bearer {TOKEN}"
    assert project.path(".terraform.lock.hcl").exists()


def test_the_file_terraform_login_writes_is_read_and_a_wrong_token_is_named_as_such(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    registry.require_token(TOKEN)
    project = _project(tmp_path / "cfg", registry)
    home = tmp_path / "home"
    (home / ".terraform.d").mkdir(parents=True)
    credentials_file = home / ".terraform.d" / "credentials.tfrc.json"

    credentials_file.write_text(json.dumps({"credentials": {registry.host: {"token": "stale"}}}))
    stale = project.ctl("init", env=_env(registry, home))
    assert stale.code == 1 and f"The token ctl sent to {registry.host} was refused" in stale.stderr, stale

    credentials_file.write_text(json.dumps({"credentials": {registry.host: {"token": TOKEN}}}))
    assert project.ctl("init", env=_env(registry, home)).code == 0


def test_a_token_goes_only_to_its_own_host() -> None:
    credentials = gather({"registry.example.com": "from-config", "other.example": "b"},
                         {env_name("registry.example.com"): "from-env", "TF_TOKEN_my__reg_example_com": "c",
                          "HOME": "/nonexistent"})
    assert env_name("my-reg.example.com") == "TF_TOKEN_my__reg_example_com"
    assert credentials.token_for("REGISTRY.example.com") == "from-env"  # the environment wins, as in Terraform
    assert credentials.token_for("my-reg.example.com") == "c"
    assert credentials.token_for("other.example") == "b"
    assert credentials.token_for("registry.terraform.io") is None
