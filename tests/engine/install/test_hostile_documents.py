"""Registry and mirror documents of the wrong shape: one clear error (or a version skipped), never a crash.

The hostile loopback registry (tests/engine/install/hostile_registry.py) answers one document of the
protocol with JSON that parses but is not what the protocol says: a list for an object, a number for
a URL, platforms as a string, a URL urllib cannot split. ``ctl init`` must say what is wrong with
which document, and install nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.engine.install.hostile_registry import (
    HostileRegistry,
    ctl_env,
    ctl_project,
    fails_cleanly,
    hostile_registry,
    nothing_installed,
)
from tests.provider_registry import host_os_arch

__all__ = ["hostile_registry"]

DISCOVERY = r"^/\.well-known/terraform\.json$"
VERSIONS = r"^/v1/providers/ctltest/fwtest/versions$"
DOWNLOAD = r"^/v1/providers/ctltest/fwtest/1\.2\.0/download/"
OS_NAME, ARCH = host_os_arch().split("_")
PLATFORM = {"os": OS_NAME, "arch": ARCH}

CASES: dict[str, tuple[str, Any, str]] = {
    "discovery-a-list": (DISCOVERY, ["providers.v1"], "the service discovery document at"),
    "discovery-a-number": (DISCOVERY, {"providers.v1": 5}, "is not a provider registry"),
    "discovery-bad-url": (DISCOVERY, {"providers.v1": "https://[oops/"}, "names a malformed providers.v1 address"),
    "versions-a-list": (VERSIONS, [{"version": "1.2.0"}], "the versions document at"),
    "versions-a-number": (VERSIONS, {"versions": 5}, "no available version of provider"),
    "platforms-a-string": (VERSIONS, {"versions": [{"version": "1.2.0", "platforms": "linux"}]},
                           "no available version of provider"),
    "download-a-list": (DOWNLOAD, [], "the download document at"),
    "download-url-a-number": (DOWNLOAD, {"download_url": 5}, "lacks download_url, shasum, shasums_url"),
    "download-bad-url": (DOWNLOAD, {"download_url": "https://[oops/", "shasum": "0" * 64, "shasums_url": "x",
                                    "shasums_signature_url": "y", "filename": "z"}, "holds a malformed URL"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_registry_document_of_the_wrong_shape_is_one_clear_error(
        case: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    path, document, message = CASES[case]
    if path == VERSIONS and isinstance(document, dict) and case != "versions-a-number":
        for entry in document["versions"]:
            entry.setdefault("protocols", ["6.0"])
    registry.on(path, registry.plain_json(document))
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"))
    fails_cleanly(result, message)
    nothing_installed(project)


def test_signing_keys_of_the_wrong_shape_are_no_keys(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    r = registry.find("fwtest", "1.2.0")
    document = registry._download(r, OS_NAME, ARCH)
    document["signing_keys"] = {"gpg_public_keys": [{"ascii_armor": 5}, "a key", None]}
    registry.on(DOWNLOAD, registry.plain_json(document))
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"))
    fails_cleanly(result, "the registry gave no signing keys for")
    nothing_installed(project)


@pytest.mark.parametrize("leaf", ["index", "version"])
def test_a_mirror_document_of_the_wrong_shape_is_one_clear_error(
        leaf: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    rc = tmp_path / "ctlrc"
    rc.write_text(f'provider_installation {{\n  network_mirror {{\n    url = "{registry.mirror_url}"\n  }}\n}}\n')
    path = r"/fwtest/index\.json$" if leaf == "index" else r"/fwtest/1\.2\.0\.json$"
    registry.on(path, registry.plain_json([{"archives": {}}]))
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home", CTL_CLI_CONFIG_FILE=str(rc)))
    fails_cleanly(result, f"the {leaf} {'document ' if leaf == 'version' else ''}at {registry.mirror_url}",
                  "is not a JSON object")
    nothing_installed(project)
