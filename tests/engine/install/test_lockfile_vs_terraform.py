"""Terraform 1.0.3 and ctl read each other's lock files: same versions, same hashes, same bytes.

Both tools install the same signed release from the loopback registry (tests/provider_registry.py);
the lock file one writes must satisfy the other without a change, and the ``h1:`` that ctl computes
must be the one Terraform computes.
"""

from __future__ import annotations

from pathlib import Path

from engine.install.lockfile import LOCK_FILE, read_lock
from tests.e2e.helpers import Project
from tests.engine.install.test_e2e_install import CONFIG
from tests.plugin.terraform_cli import TerraformDir
from tests.provider_registry import ProviderRegistry, provider_registry

__all__ = ["provider_registry"]


def _both(tmp_path: Path, registry: ProviderRegistry, source: str) -> tuple[Project, TerraformDir, dict[str, str]]:
    workdir = tmp_path / "cfg"
    workdir.mkdir()
    (workdir / "objs").mkdir()
    project = Project(workdir)
    project.write(CONFIG.format(host=source.rsplit("/", 2)[0], constraint="~> 1.0"))
    terraform = TerraformDir(workdir, plugin_dir=workdir, extra_env=registry.env())
    home = tmp_path / "home"
    home.mkdir()
    return project, terraform, {"HOME": str(home), **registry.env()}


def test_terraform_lock_file_is_accepted_by_ctl_byte_for_byte(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    source = f"{registry.host}/ctltest/fwtest"
    project, terraform, env = _both(tmp_path, registry, source)
    terraform.run("init", "-input=false", "-no-color")
    written = project.path(LOCK_FILE).read_text()
    assert '"zh:' in written and '"h1:' in written

    result = project.ok("init", env=env)
    assert f"{source} v1.2.0" in result.stdout
    assert project.path(LOCK_FILE).read_text() == written, "ctl kept Terraform's lock file as it was"


def test_ctl_lock_file_is_accepted_by_terraform_byte_for_byte(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    source = f"{registry.host}/ctltest/fwtest"
    project, terraform, env = _both(tmp_path, registry, source)
    project.ok("init", env=env)
    written = project.path(LOCK_FILE).read_text()

    result = terraform.run("init", "-input=false", "-no-color")
    assert "v1.2.0" in result.output
    assert project.path(LOCK_FILE).read_text() == written, "Terraform found nothing to add or change"


def test_terraform_lock_from_a_network_mirror_verifies_ctl_install(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    """Terraform 1.0.3 records only the h1: it computes itself from the mirror's zip; ctl must agree."""
    registry = provider_registry
    registry.mirror_hostname = "registry.terraform.io"  # Terraform 1.0.3's mirror client cannot take a port
    source = "registry.terraform.io/ctltest/fwtest"
    project, terraform, env = _both(tmp_path, registry, source)
    terraform.run("providers", "lock", f"-net-mirror={registry.mirror_url}", "-no-color")
    by_terraform = read_lock(project.root)[source]
    assert [h[:3] for h in by_terraform.hashes] == ["h1:"]

    rc = tmp_path / "ctlrc"
    rc.write_text(f'provider_installation {{\n  network_mirror {{\n    url = "{registry.mirror_url}"\n  }}\n}}\n')
    project.ok("init", env={**env, "CTL_CLI_CONFIG_FILE": str(rc)})
    by_ctl = read_lock(project.root)[source]
    assert by_ctl.version == by_terraform.version == "1.2.0"
    assert set(by_terraform.hashes) <= set(by_ctl.hashes)
