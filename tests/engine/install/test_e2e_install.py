"""``ctl init`` installs providers from a registry served on loopback, as a user's CI job would.

The registry (tests/provider_registry.py) serves the Go-built test providers as signed release zips;
every case runs the real ``ctl`` and checks what a user would see: the version chosen, the lock file,
the error and that nothing was installed when a check fails, work without network once locked.
"""

from __future__ import annotations

import concurrent.futures
import re
import shutil
from pathlib import Path

import pytest

from engine.install.hashes import directory_hash
from engine.install.lockfile import LOCK_FILE, read_lock
from tests.e2e.helpers import Project
from tests.provider_registry import ProviderRegistry, host_os_arch, provider_registry

__all__ = ["provider_registry"]

CONFIG = """
terraform {{
  required_providers {{
    fwtest = {{ source = "{host}/ctltest/fwtest", version = "{constraint}" }}
  }}
}}

provider "fwtest" {{
  root = "objs"
}}

resource "fwtest_thing" "a" {{
  name = "alpha"
  size = 1
  rule {{
    port = 80
  }}
}}
"""


def _project(root: Path, registry: ProviderRegistry, constraint: str = "~> 1.0") -> Project:
    root.mkdir(parents=True, exist_ok=True)
    project = Project(root)
    project.write(CONFIG.format(host=registry.host, constraint=constraint))
    (root / "objs").mkdir(exist_ok=True)
    return project


def _env(registry: ProviderRegistry, home: Path, **extra: str) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), **registry.env(), **extra}


def _address(registry: ProviderRegistry) -> str:
    return f"{registry.host}/ctltest/fwtest"


def _installed(project: Project, registry: ProviderRegistry, version: str) -> Path:
    return project.path(".ctl", "providers", registry.host, "ctltest", "fwtest", version, host_os_arch())


def test_init_installs_the_newest_match_verifies_it_and_locks_it(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry)
    env = _env(registry, tmp_path / "home")
    result = project.ok("init", env=env)
    assert f"{_address(registry)} v1.2.0" in result.stdout and f"registry {registry.host}" in result.stdout
    entry = read_lock(project.root)[_address(registry)]
    assert (entry.version, entry.constraints) == ("1.2.0", "~> 1.0")
    assert registry.h1_hash("fwtest", "1.2.0") in entry.hashes
    assert registry.zh_hash("fwtest", "1.2.0") in entry.hashes
    assert directory_hash(_installed(project, registry, "1.2.0")) == registry.h1_hash("fwtest", "1.2.0")
    assert project.ok("plan", env=env).code == 0
    project.ok("apply", "-auto-approve", env=env)
    assert list(project.path("objs").glob("*.json")), "the installed provider created its object"


def test_reinit_with_the_lock_needs_no_network_and_upgrade_moves_within_constraints(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry, constraint=">= 1.0, < 1.2")
    env = _env(registry, tmp_path / "home")
    project.ok("init", env=env)
    assert read_lock(project.root)[_address(registry)].version == "1.1.0"
    lock_text = project.path(LOCK_FILE).read_text()

    project.write(CONFIG.format(host=registry.host, constraint=">= 1.0"))
    registry.offline()
    again = project.ok("init", env=env)  # the lock keeps 1.1.0; the package is already here
    assert "v1.1.0" in again.stdout and "already installed" in again.stdout
    assert read_lock(project.root)[_address(registry)].version == "1.1.0"
    assert project.path(LOCK_FILE).read_text() == lock_text.replace('">= 1.0.0, < 1.2.0"', '">= 1.0.0"')

    registry.online()
    upgraded = project.ok("init", "-upgrade", env=env)
    assert "v2.0.0" in upgraded.stdout  # the newest release; 2.1.0-beta1 is a pre-release nobody named
    assert read_lock(project.root)[_address(registry)].version == "2.0.0"


@pytest.mark.parametrize("fault", ["tamper", "bad_signature"])
def test_a_tampered_zip_or_a_foreign_signature_installs_nothing(
        tmp_path: Path, provider_registry: ProviderRegistry, fault: str) -> None:
    registry = provider_registry
    if fault == "tamper":
        registry.tamper("fwtest", "1.2.0")
        expected = "has SHA-256"
    else:
        registry.bad_signature(True)
        expected = "are not signed by its registry's keys"
    project = _project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=_env(registry, tmp_path / "home"))
    assert result.code == 1, str(result)
    assert expected in result.stderr and "nothing was installed" in result.stderr.lower()
    assert "Traceback" not in result.stderr
    assert not project.path(LOCK_FILE).exists()
    assert not _installed(project, registry, "1.2.0").exists()
    assert not project.path(".ctl", "plugins.json").exists()


def test_a_package_that_differs_from_the_lock_file_is_refused(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry)
    forged = (f'provider "{_address(registry)}" {{\n  version     = "1.2.0"\n  constraints = "~> 1.0"\n  hashes = [\n'
              '    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n  ]\n}\n')
    project.path(LOCK_FILE).write_text(forged)
    result = project.ctl("init", env=_env(registry, tmp_path / "home"))
    assert result.code == 1, str(result)
    assert "matches none of the checksums recorded in .terraform.lock.hcl" in result.stderr
    assert project.path(LOCK_FILE).read_text() == forged
    assert not _installed(project, registry, "1.2.0").exists()


def test_a_constraint_nothing_satisfies_lists_the_available_versions(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry, constraint="~> 3.0")
    result = project.ctl("init", env=_env(registry, tmp_path / "home"))
    assert result.code == 1, str(result)
    assert "no available version of provider" in result.stderr
    assert "1.0.0, 1.1.0, 1.2.0, 2.0.0, 2.1.0-beta1" in result.stderr


def test_transient_registry_faults_are_retried(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    registry.fail_next(2, status=503, path=r"\.zip$")
    registry.fail_next(1, status=502, path=r"/versions$")
    project = _project(tmp_path / "cfg", registry)
    result = project.ok("init", env=_env(registry, tmp_path / "home"))
    assert "v1.2.0" in result.stdout
    zips = [path for _, path in registry.requests if path.endswith(".zip")]
    assert len(zips) == 3, registry.requests
    assert directory_hash(_installed(project, registry, "1.2.0")) == registry.h1_hash("fwtest", "1.2.0")


def test_an_unreachable_registry_is_a_clear_error(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry)
    registry.offline()
    result = project.ctl("init", env=_env(registry, tmp_path / "home"))
    assert result.code == 1, str(result)
    assert f"cannot reach the registry {registry.host}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_warm_shared_cache_works_offline_and_survives_parallel_inits(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    cache = tmp_path / "cache"
    env = _env(registry, tmp_path / "home", TF_PLUGIN_CACHE_DIR=str(cache))
    projects = [_project(tmp_path / f"cfg{i}", registry) for i in range(3)]
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda p: p.ctl("init", env=env, timeout=120), projects))
    assert all(r.code == 0 for r in results), "\n".join(map(str, results))
    entry = cache / registry.host / "ctltest" / "fwtest" / "1.2.0" / host_os_arch()
    assert directory_hash(entry) == registry.h1_hash("fwtest", "1.2.0")
    assert not [p for p in cache.iterdir() if p.name.startswith(".staging-")]
    for project in projects:
        assert _installed(project, registry, "1.2.0").resolve() == entry.resolve()

    # A fresh checkout of a locked configuration installs from the cache with the registry down.
    fresh = _project(tmp_path / "fresh", registry)
    shutil.copy(projects[0].path(LOCK_FILE), fresh.path(LOCK_FILE))
    registry.offline()
    result = fresh.ok("init", env=env)
    assert "the plugin cache" in result.stdout
    assert fresh.ok("validate", env=env).code == 0


def test_a_network_mirror_from_the_cli_configuration(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    rc = tmp_path / "ctlrc"
    rc.write_text(f'provider_installation {{\n  network_mirror {{\n    url = "{registry.mirror_url}"\n  }}\n}}\n')
    project = _project(tmp_path / "cfg", registry)
    result = project.ok("init", env=_env(registry, tmp_path / "home", CTL_CLI_CONFIG_FILE=str(rc)))
    assert f"network mirror {registry.mirror_url}" in result.stdout
    assert not [path for _, path in registry.requests if path.startswith("/v1/")], "the registry was not asked"
    assert registry.h1_hash("fwtest", "1.2.0") in read_lock(project.root)[_address(registry)].hashes


def test_providers_lock_adds_other_platforms_and_mirror_serves_an_air_gapped_init(
        tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    registry = provider_registry
    project = _project(tmp_path / "cfg", registry)
    env = _env(registry, tmp_path / "home")
    project.ok("providers", "lock", f"-platform={host_os_arch()}", env=env)
    entry = read_lock(project.root)[_address(registry)]
    assert entry.version == "1.2.0"
    assert {registry.h1_hash("fwtest", "1.2.0"), registry.zh_hash("fwtest", "1.2.0")} <= set(entry.hashes)
    assert not project.path(".ctl", "providers").exists(), "lock records hashes; it installs nothing"

    mirror = tmp_path / "mirror"
    project.ok("providers", "mirror", str(mirror), env=env)
    packed = mirror / registry.host / "ctltest" / "fwtest" / f"terraform-provider-fwtest_1.2.0_{host_os_arch()}.zip"
    assert packed.read_bytes() == registry.zip_path("fwtest", "1.2.0").read_bytes()

    rc = tmp_path / "ctlrc"
    rc.write_text(f'provider_installation {{\n  filesystem_mirror {{\n    path = "{mirror}"\n  }}\n}}\n')
    registry.offline()
    result = project.ok("init", env={**env, "CTL_CLI_CONFIG_FILE": str(rc)})
    assert str(mirror) in result.stdout and "v1.2.0" in result.stdout


def test_downloads_show_progress_at_a_terminal_only(tmp_path: Path, provider_registry: ProviderRegistry) -> None:
    from tests.e2e.test_e2e_terminal import Terminal

    registry = provider_registry
    project = _project(tmp_path / "cfg", registry)
    terminal = Terminal()
    try:
        terminal.run(project.root, ["init"], env=_env(registry, tmp_path / "home"))
        done = terminal.wait_for(r"\[exit \d+\]")
    finally:
        terminal.close()
    assert "[exit 0]" in done, done
    raw = terminal.screen(escapes=True)
    assert re.search(rf"Downloading {re.escape(_address(registry))} v1\.2\.0 .*MB", raw), raw
    quiet = _project(tmp_path / "quiet", registry).ok("init", env=_env(registry, tmp_path / "home"))
    assert "Downloading" not in quiet.stdout + quiet.stderr
