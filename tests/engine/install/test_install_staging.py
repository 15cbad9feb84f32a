"""Where ``ctl init`` stages a download, and that nothing of it outlives the run: SIGTERM cleans up, a
SIGKILL's leftovers are swept by the next init (never a live run's), and a plugin cache that is not a
directory is one clear error. SIGTERM before anything is staged ends init, ``providers lock`` and
``providers mirror`` as Ctrl-C does too (exit 130, one message), never as a silent death.

The download is held open by the hostile loopback registry (tests/engine/install/hostile_registry.py)
dripping the zip, so the signal arrives while the package is being fetched into its staging directory.
"""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, communicate, wait_until
from tests.engine.install.hostile_registry import (
    HostileRegistry,
    ctl_env,
    ctl_project,
    fails_cleanly,
    hostile_registry,
    nothing_installed,
    staging_dirs,
)
from tests.provider_registry import host_os_arch

__all__ = ["hostile_registry"]


def _stall_download(registry: HostileRegistry, version: str = "1.2.0") -> str:
    """Make the zip of fwtest ``version`` drip; returns the request path to wait for."""
    path = f"/files/{registry.zip_path('fwtest', version).name}"
    registry.on(f"^{path}$", registry.drip(0.5, content_type="application/zip"))
    return path


def _downloading(registry: HostileRegistry, path: str, where: Path) -> list[Path]:
    """The staging directories under ``where`` once the stalled download has started."""
    wait_until(lambda: ("GET", path) in registry.requests, timeout=60, what="the download to start")
    return wait_until(lambda: staging_dirs(where), what="a staging directory")


def _installed(project: Project, registry: HostileRegistry, version: str = "1.2.0") -> Path:
    return project.path(".ctl", "providers", registry.host, "ctltest", "fwtest", version, host_os_arch())


def test_sigterm_during_a_download_removes_its_staging(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    path = _stall_download(registry)
    project = ctl_project(tmp_path / "cfg", registry)
    with background(project.start("init", env=ctl_env(registry, tmp_path / "home"))) as proc:
        _downloading(registry, path, project.root)
        os.kill(proc.pid, signal.SIGTERM)
        result = communicate(proc, timeout=30)
    assert result.code == 130, result
    assert "stopped by SIGTERM" in result.stderr and "Traceback" not in result.stderr, result
    nothing_installed(project)


@pytest.mark.parametrize("command", ["init", "lock", "mirror"])
def test_sigterm_while_a_registry_is_asked_is_one_message_and_exit_130(
        command: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    versions = "/v1/providers/ctltest/fwtest/versions"
    registry.on(f"^{versions}$", registry.drip(0.5))  # before anything is staged
    project = ctl_project(tmp_path / "cfg", registry)
    args = {"init": ["init"], "lock": ["providers", "lock", f"-platform={host_os_arch()}"],
            "mirror": ["providers", "mirror", str(tmp_path / "mirror")]}[command]
    name = "ctl init" if command == "init" else f"ctl providers {command}"
    with background(project.start(*args, env=ctl_env(registry, tmp_path / "home"))) as proc:
        wait_until(lambda: ("GET", versions) in registry.requests, timeout=60, what="the versions request")
        os.kill(proc.pid, signal.SIGTERM)
        result = communicate(proc, timeout=30)
    assert result.code == 130, result  # not a silent death by the signal
    assert f"{name} was stopped by SIGTERM" in result.stderr and "Traceback" not in result.stderr, result
    nothing_installed(project)
    assert not project.path(".terraform.lock.hcl").exists()


@pytest.mark.parametrize("cached", [False, True], ids=["project", "plugin-cache"])
def test_staging_left_by_sigkill_is_swept_by_the_next_init(
        cached: bool, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    path = _stall_download(registry)
    project = ctl_project(tmp_path / "cfg", registry)
    cache = tmp_path / "cache"
    env = ctl_env(registry, tmp_path / "home", **({"TF_PLUGIN_CACHE_DIR": str(cache)} if cached else {}))
    with background(project.start("init", env=env)) as proc:
        left = _downloading(registry, path, cache if cached else project.root)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert all(p.is_dir() for p in left)  # what a killed process leaves

    registry.actions.clear()  # the registry behaves again
    project.ok("init", env=env)
    assert staging_dirs(tmp_path) == []
    assert _installed(project, registry).is_dir()


def test_the_sweep_spares_the_staging_of_a_live_init(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    path = _stall_download(registry, "1.2.0")
    cache = tmp_path / "cache"
    slow = ctl_project(tmp_path / "slow", registry, constraint="1.2.0")
    quick = ctl_project(tmp_path / "quick", registry, constraint="1.1.0")
    env = ctl_env(registry, tmp_path / "home", TF_PLUGIN_CACHE_DIR=str(cache))
    with background(slow.start("init", env=env)) as proc:
        held = _downloading(registry, path, cache)
        quick.ok("init", env=env)  # sweeps the cache's staging, but this one is in use
        assert all(p.is_dir() for p in held)
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGTERM)
        assert communicate(proc, timeout=30).code == 130
    assert staging_dirs(cache) == []
    assert _installed(quick, registry, "1.1.0").exists()


@pytest.mark.parametrize("where", ["dev-null", "below-a-file"])
def test_a_plugin_cache_that_is_not_a_directory_is_a_clear_error(
        where: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    cache = "/dev/null" if where == "dev-null" else str(blocker / "cache")
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home", TF_PLUGIN_CACHE_DIR=cache))
    reason = "it is not a directory" if where == "dev-null" else "Not a directory"
    fails_cleanly(result, f"cannot install providers into the plugin cache directory {cache}: {reason}",
                  "TF_PLUGIN_CACHE_DIR")
    nothing_installed(project)


@pytest.mark.parametrize("command", ["lock", "mirror"])
def test_providers_lock_and_mirror_stage_where_the_next_run_sweeps(
        command: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    path = _stall_download(registry)
    project = ctl_project(tmp_path / "cfg", registry)
    temporary = tmp_path / "tmp"  # the system's temporary directory, as this run sees it
    temporary.mkdir()
    env = ctl_env(registry, tmp_path / "home", TMPDIR=str(temporary))
    args = ["providers", "lock", f"-platform={host_os_arch()}"] if command == "lock" else \
        ["providers", "mirror", str(tmp_path / "mirror")]
    with background(project.start(*args, env=env)) as proc:
        _downloading(registry, path, temporary)
        os.kill(proc.pid, signal.SIGTERM)
        assert communicate(proc, timeout=30).code == 130
    assert staging_dirs(tmp_path) == []
    with background(project.start(*args, env=env)) as proc:
        left = _downloading(registry, path, temporary)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert all(p.is_dir() for p in left)

    registry.actions.clear()
    project.ok(*args, env=env)
    assert staging_dirs(tmp_path) == []
    assert not project.path(".ctl", "providers").exists()  # neither command installs anything
    assert [p.name for p in temporary.iterdir()] == [f"ctl-staging-{os.getuid()}"]
    assert stat.S_IMODE((temporary / f"ctl-staging-{os.getuid()}").stat().st_mode) == 0o700
