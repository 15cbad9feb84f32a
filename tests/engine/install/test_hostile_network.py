"""A registry is a remote party: what ``ctl init``, ``providers lock`` and ``providers mirror`` follow,
send and write when it turns hostile (tests/engine/install/hostile_registry.py serves it on loopback).

Each case runs the real ``ctl`` against the hostile registry and checks what a user would notice: a
token that reaches another host, a file written outside ``.ctl/``, a run that never ends, an error
that is a crash instead of one line. Terraform 1.0.3 is the oracle for what a redirect may carry.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.engine.install.hostile_registry import (
    HostileRegistry,
    PlainHttpServer,
    ctl_env,
    ctl_project,
    fails_cleanly,
    hostile_registry,
    nothing_installed,
    staging_dirs,
)
from tests.plugin.terraform_cli import TerraformDir
from tests.provider_registry import host_os_arch

__all__ = ["hostile_registry"]

TOKEN = "s3cret-registry-token"
VERSIONS = r"^/v1/providers/ctltest/fwtest/versions$"
DISCOVERY = r"^/\.well-known/terraform\.json$"


def _zip(registry: HostileRegistry) -> str:
    return f"^/files/{registry.zip_path('fwtest', '1.2.0').name}$"


def _cli_config(tmp_path: Path, registry: HostileRegistry) -> Path:
    path = tmp_path / "cli.tfrc"
    path.write_text(f'credentials "{registry.host}" {{\n  token = "{TOKEN}"\n}}\n')
    return path


def _elsewhere(registry: HostileRegistry) -> None:
    """The versions document, served on another host name of the same server, with no token asked."""
    versions = {"versions": [registry._version_entry(r) for r in registry.releases if r.type == "fwtest"]}
    registry.on(VERSIONS, registry.redirect_to(f"https://127.0.0.1:{registry.port}/elsewhere/versions"))
    registry.on(r"^/elsewhere/versions$", registry.plain_json(versions))


def test_a_redirect_to_another_host_leaves_the_token_behind(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.require_token(TOKEN)
    _elsewhere(registry)
    project = ctl_project(tmp_path / "cfg", registry)
    env = ctl_env(registry, tmp_path / "home", TF_CLI_CONFIG_FILE=str(_cli_config(tmp_path, registry)))
    project.ok("init", env=env)
    assert registry.seen[VERSIONS] == [f"Bearer {TOKEN}"]  # the registry's own host gets it
    assert registry.seen[r"^/elsewhere/versions$"] == [None]  # the host it redirected to does not


def test_terraform_leaves_the_token_behind_on_a_redirect_to_another_host(
        tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.require_token(TOKEN)
    _elsewhere(registry)
    workdir = tmp_path / "tf"
    workdir.mkdir()
    tf = TerraformDir(workdir, plugin_dir=workdir,
                      extra_env={**registry.env(), "TF_CLI_CONFIG_FILE": str(_cli_config(tmp_path, registry))})
    tf.write(ctl_project(tmp_path / "cfg", registry).path("main.tf").read_text())
    tf.run("init", "-input=false", "-no-color")
    assert registry.seen[VERSIONS] == [f"Bearer {TOKEN}"]
    assert registry.seen[r"^/elsewhere/versions$"] == [None]


def test_a_redirect_from_https_to_plain_http_is_refused(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.require_token(TOKEN)
    project = ctl_project(tmp_path / "cfg", registry)
    env = ctl_env(registry, tmp_path / "home", TF_CLI_CONFIG_FILE=str(_cli_config(tmp_path, registry)))
    with PlainHttpServer() as plain:
        registry.on(VERSIONS, registry.redirect_to(f"{plain.url}/v1/providers/ctltest/fwtest/versions"))
        result = project.ctl("init", env=env)
    fails_cleanly(result, f"redirected to {plain.url}/", "which ctl does not follow")
    assert TOKEN not in result.stderr + result.stdout
    assert plain.requests == []  # neither the token nor anything else went out in clear text
    nothing_installed(project)


def test_a_download_redirected_to_a_file_url_is_refused(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.on(_zip(registry), registry.redirect_to("file:///dev/zero"))
    project = ctl_project(tmp_path / "cfg", registry)
    started = time.monotonic()
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"), timeout=60)
    fails_cleanly(result, "redirected to file:///dev/zero, which ctl does not follow")
    assert time.monotonic() - started < 30  # refused, not read up to the download cap
    nothing_installed(project)


@pytest.mark.parametrize("scheme", ["http", "file", "dev-zero"])
def test_a_download_url_that_is_not_https_is_never_opened(
        scheme: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    project = ctl_project(tmp_path / "cfg", registry)
    local = tmp_path / "served.zip"
    local.write_bytes(registry.zip_path("fwtest", "1.2.0").read_bytes())  # a real, valid release
    with PlainHttpServer() as plain:
        url = {"file": local.as_uri(), "dev-zero": "file:///dev/zero"}.get(scheme, f"{plain.url}/{local.name}")
        registry.download_url[("fwtest", "1.2.0")] = url
        result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"))
    fails_cleanly(result, f"ctl follows only https:// URLs, not {url}")
    assert plain.requests == []
    nothing_installed(project)


def test_a_network_mirror_over_plain_http_is_refused_before_any_request(
        tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    project = ctl_project(tmp_path / "cfg", registry)
    rc = tmp_path / "cli.tfrc"
    with PlainHttpServer() as plain:
        rc.write_text(f'provider_installation {{\n  network_mirror {{\n    url = "{plain.url}/providers/"\n  }}\n}}\n')
        result = project.ctl("init", env=ctl_env(registry, tmp_path / "home", TF_CLI_CONFIG_FILE=str(rc)))
    fails_cleanly(result, f"the network mirror {plain.url}/providers/ is not an https:// URL")
    assert plain.requests == []  # as Terraform, whose mirror protocol runs over https only
    nothing_installed(project)


@pytest.mark.parametrize("what", ["discovery", "versions"])
def test_an_endless_document_is_cut_at_its_cap(what: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.on(DISCOVERY if what == "discovery" else VERSIONS, registry.endless())
    project = ctl_project(tmp_path / "cfg", registry)
    started = time.monotonic()
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"), timeout=60)
    fails_cleanly(result, "sent more than 16 MiB")
    assert time.monotonic() - started < 45
    nothing_installed(project)


def test_an_endless_download_is_cut_at_its_cap(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.on(_zip(registry), registry.endless("application/zip", b"\0" * 65536))
    project = ctl_project(tmp_path / "cfg", registry)
    env = ctl_env(registry, tmp_path / "home", CTL_MAX_PROVIDER_DOWNLOAD_MB="4")
    result = project.ctl("init", env=env, timeout=60)
    fails_cleanly(result, "sent more than 4 MiB for a provider package")
    nothing_installed(project)


def test_a_download_that_claims_a_terabyte_is_refused_before_reading(
        tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.on(_zip(registry), registry.drip(30.0, length=1 << 40, content_type="application/zip"))
    project = ctl_project(tmp_path / "cfg", registry)
    started = time.monotonic()
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"), timeout=60)
    fails_cleanly(result, "sent more than 2048 MiB for a provider package")
    assert time.monotonic() - started < 20  # at once: not one drip waited for
    nothing_installed(project)


@pytest.mark.parametrize("what", ["discovery", "download"])
def test_a_server_that_drips_a_byte_at_a_time_meets_the_deadline(
        what: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    if what == "discovery":
        registry.on(DISCOVERY, registry.drip(1.0))
    else:
        registry.on(_zip(registry), registry.drip(1.0, content_type="application/zip"))
    project = ctl_project(tmp_path / "cfg", registry)
    env = ctl_env(registry, tmp_path / "home", CTL_REGISTRY_DEADLINE="3", CTL_DOWNLOAD_DEADLINE="3")
    started = time.monotonic()
    result = project.ctl("init", env=env, timeout=60)
    fails_cleanly(result, "did not finish within 3 s")
    assert time.monotonic() - started < 20  # the socket timeout (30 s) never fires on a drip
    nothing_installed(project)


STATE = '{"version": 4, "serial": 7, "lineage": "precious", "resources": [], "outputs": {}}\n'


@pytest.mark.parametrize("filename", ["../../../ctl.tfstate", "..", "ABSOLUTE"])
def test_a_signed_filename_never_places_the_download(
        filename: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    outside = tmp_path / "outside.zip"
    name = str(outside) if filename == "ABSOLUTE" else filename
    registry.publish("fwtest", "1.2.0", registry.zip_path("fwtest", "1.2.0").read_bytes(), filename=name)
    project = ctl_project(tmp_path / "cfg", registry)
    project.path("ctl.tfstate").write_text(STATE)
    result = project.ok("init", "-upgrade", env=ctl_env(registry, tmp_path / "home"))
    assert "v1.2.0" in result.stdout  # a release whose SHA256SUMS names it oddly is still that release
    assert project.path("ctl.tfstate").read_bytes() == STATE.encode()
    assert not outside.exists()
    assert [p.name for p in project.path(".ctl").rglob("*.zip")] == []
    assert staging_dirs(project.root) == []


def _lock_or_mirror(command: str, tmp_path: Path) -> list[str]:
    return ["providers", "lock", f"-platform={host_os_arch()}"] if command == "lock" else \
        ["providers", "mirror", str(tmp_path / "mirror")]


@pytest.mark.parametrize("filename", ["../../../ctl.tfstate", "ABSOLUTE"])
@pytest.mark.parametrize("command", ["lock", "mirror"])
def test_providers_lock_and_mirror_confine_a_signed_filename(
        command: str, filename: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    outside = tmp_path / "outside.zip"
    name = str(outside) if filename == "ABSOLUTE" else filename
    registry.publish("fwtest", "1.2.0", registry.zip_path("fwtest", "1.2.0").read_bytes(), filename=name)
    project = ctl_project(tmp_path / "cfg", registry)
    project.path("ctl.tfstate").write_text(STATE)
    temporary = project.path("tmp")  # staging is TMPDIR/ctl-staging-UID/.staging-*: ../../.. is the project
    temporary.mkdir()
    env = ctl_env(registry, tmp_path / "home", TMPDIR=str(temporary))
    project.ok(*_lock_or_mirror(command, tmp_path), env=env)
    assert not outside.exists()
    assert project.path("ctl.tfstate").read_bytes() == STATE.encode()
    assert sorted(p.name for p in tmp_path.rglob("*.tfstate")) == ["ctl.tfstate"]
    if command == "mirror":
        mirrored = sorted(p.name for p in (tmp_path / "mirror").rglob("*.zip"))
        assert mirrored == [f"terraform-provider-fwtest_1.2.0_{host_os_arch()}.zip"]


@pytest.mark.parametrize("command", ["lock", "mirror"])
def test_providers_lock_and_mirror_never_open_a_file_url(
        command: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.download_url[("fwtest", "1.2.0")] = "file:///dev/zero"
    project = ctl_project(tmp_path / "cfg", registry)
    started = time.monotonic()
    result = project.ctl(*_lock_or_mirror(command, tmp_path), env=ctl_env(registry, tmp_path / "home"), timeout=60)
    fails_cleanly(result, "ctl follows only https:// URLs, not file:///dev/zero")
    assert time.monotonic() - started < 30  # refused, not read up to the download cap
    assert list(tmp_path.rglob("*.zip")) == []


def test_terraform_installs_a_release_whose_signed_filename_is_odd(
        tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    registry.publish("fwtest", "1.2.0", registry.zip_path("fwtest", "1.2.0").read_bytes(),
                     filename="../../../terraform.tfstate")
    workdir = tmp_path / "tf"
    workdir.mkdir()
    tf = TerraformDir(workdir, plugin_dir=workdir, extra_env=registry.env())
    tf.write(ctl_project(tmp_path / "cfg", registry).path("main.tf").read_text())
    (workdir / "terraform.tfstate").write_text(STATE)
    result = tf.run("init", "-input=false", "-no-color")
    assert "v1.2.0" in result.output  # the oracle accepts it too: ctl must not refuse it
    assert (workdir / "terraform.tfstate").read_text() == STATE
