"""Finding installed providers: source addresses, version constraints and the mirror layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.install.discovery import find_provider, search_directories
from vocab.provider_errors import ProviderNotFound, VersionConstraintError
from vocab.providers import InvalidProviderSource, ProviderSource
from vocab.versions import Constraints, Version

PLATFORM = "linux_amd64"


def install(root: Path, source: str, version: str, *, platform: str = PLATFORM, name: str | None = None) -> Path:
    host, ns, type_name = source.split("/")
    path = root / host / ns / type_name / version / platform / (name or f"terraform-provider-{type_name}_v{version}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def isolated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose home and XDG directories are empty temporary ones."""
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg-home"),
            "XDG_DATA_DIRS": str(tmp_path / "xdg-a") + ":" + str(tmp_path / "xdg-b"), **extra}


@pytest.mark.parametrize(("text", "expected"), [
    ("random", "registry.terraform.io/hashicorp/random"),
    ("hashicorp/random", "registry.terraform.io/hashicorp/random"),
    ("Example.COM/Ns/Type", "example.com/ns/type"),
    ("localhost:8080/ns/type", "localhost:8080/ns/type"),
])
def test_source_addresses(text, expected) -> None:
    assert str(ProviderSource.parse(text)) == expected


@pytest.mark.parametrize("bad", ["", "a/b/c/d", "hashicorp/ran dom", "-x/y"])
def test_invalid_source_addresses(bad) -> None:
    with pytest.raises(InvalidProviderSource, match="Invalid provider source address"):
        ProviderSource.parse(bad)


AVAILABLE = ["1.0.0", "1.2.0", "1.2.5", "1.3.0", "2.0.0", "2.1.0-beta1", "2.1.0"]


@pytest.mark.parametrize(("constraint", "newest"), [
    ("", "2.1.0"),
    ("1.2.5", "1.2.5"),
    ("= 1.2", "1.2.0"),  # missing parts are zero
    ("!= 2.1.0", "2.0.0"),
    ("> 1.2.5, < 2.0.0", "1.3.0"),
    (">= 1.2.0, <= 1.2.5", "1.2.5"),
    ("~> 1.2.0", "1.2.5"),  # patch releases only
    ("~> 1.2", "1.3.0"),  # minor releases
    ("~> 1", "1.3.0"),
    ("< 1.0.0", None),
    ("2.1.0-beta1", "2.1.0-beta1"),  # a pre-release only when named exactly
    (">= 2.1.0-beta1, < 2.1.0", None),
    ("~> 2.0", "2.1.0"),
])
def test_version_constraints(constraint, newest) -> None:
    found = Constraints.parse(constraint).newest(Version.parse(v) for v in AVAILABLE)
    assert (str(found) if found else None) == newest


def test_version_precedence() -> None:
    order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",
             "1.0.0"]
    assert sorted((Version.parse(v) for v in reversed(order)), key=lambda v: v) == [Version.parse(v) for v in order]
    assert Version.parse("1.0.0+abc") == Version.parse("1.0.0")


@pytest.mark.parametrize("bad", ["=> 1.0", "v1.2.3", ">= 1.x", "1.0,,2.0", "~>  1.0"])
def test_invalid_constraints(bad) -> None:
    with pytest.raises(VersionConstraintError, match="Invalid version constraint"):
        Constraints.parse(bad)


def test_newest_matching_version_across_directories(tmp_path) -> None:
    explicit, config = tmp_path / "explicit", tmp_path / "cfg"
    install(explicit, "registry.terraform.io/hashicorp/random", "3.1.0")
    newer = install(config / "terraform.d" / "plugins", "registry.terraform.io/hashicorp/random", "3.6.0")
    install(tmp_path / "xdg-b" / "terraform" / "plugins", "registry.terraform.io/hashicorp/random", "4.0.0")
    env = isolated_env(tmp_path, CTL_PLUGIN_DIR=str(explicit))
    found = find_provider("random", "~> 3.0", config_dir=config, env=env, os_arch=PLATFORM)
    assert (str(found.version), found.path, found.packed, found.protocol) == ("3.6.0", newer, False, None)
    assert str(find_provider("hashicorp/random", None, config_dir=config, env=env, os_arch=PLATFORM).version) == "4.0.0"


def test_equal_versions_prefer_the_explicit_directory(tmp_path) -> None:
    explicit = tmp_path / "explicit"
    first = install(explicit, "example.com/acme/widget", "1.0.0", name="terraform-provider-widget")
    install(tmp_path / "home" / ".terraform.d" / "plugins", "example.com/acme/widget", "1.0.0")
    found = find_provider("example.com/acme/widget", "1.0.0", plugin_dirs=[explicit], config_dir=tmp_path,
                          env=isolated_env(tmp_path), os_arch=PLATFORM)
    assert found.path == first


def test_packed_zips_are_listed(tmp_path) -> None:
    mirror = tmp_path / "mirror"
    zip_dir = mirror / "registry.terraform.io" / "hashicorp" / "null"
    zip_dir.mkdir(parents=True)
    (zip_dir / f"terraform-provider-null_3.2.2_{PLATFORM}.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    (zip_dir / "terraform-provider-null_3.2.3_darwin_arm64.zip").write_bytes(b"")
    install(mirror, "registry.terraform.io/hashicorp/null", "3.1.0")
    found = find_provider("null", None, plugin_dirs=[mirror], config_dir=tmp_path, env=isolated_env(tmp_path),
                          os_arch=PLATFORM)
    assert (str(found.version), found.packed, found.path.suffix) == ("3.2.2", True, ".zip")


def test_other_platforms_are_not_candidates(tmp_path) -> None:
    install(tmp_path / "p", "registry.terraform.io/hashicorp/random", "3.6.0", platform="windows_amd64")
    with pytest.raises(ProviderNotFound) as err:
        find_provider("random", None, plugin_dirs=[tmp_path / "p"], config_dir=tmp_path, env=isolated_env(tmp_path),
                      os_arch=PLATFORM)
    assert err.value.summary == f"Cannot find a provider: provider registry.terraform.io/hashicorp/random is not installed for {PLATFORM}"


def test_not_found_lists_where_it_looked_and_what_to_do(tmp_path) -> None:
    install(tmp_path / "p", "registry.terraform.io/hashicorp/random", "2.3.0")
    env = isolated_env(tmp_path)
    with pytest.raises(ProviderNotFound) as err:
        find_provider("random", ">= 3.0", plugin_dirs=[tmp_path / "p"], config_dir=tmp_path / "cfg", env=env,
                      os_arch=PLATFORM)
    error = err.value
    assert "matches >= 3.0.0 (installed: 2.3.0)" in error.summary
    for directory in search_directories(tmp_path / "cfg", [tmp_path / "p"], env):
        assert str(directory) in error.detail
    assert str(tmp_path / "xdg-a" / "terraform" / "plugins") + " (does not exist)" in error.detail
    assert "ctl init" in error.hint and "CTL_PLUGIN_DIR" in error.hint


def test_search_order_defaults(tmp_path) -> None:
    env = {"HOME": "/home/u", "CTL_PLUGIN_DIR": "/a:/b"}
    assert search_directories(Path("/cfg"), env=env) == [
        Path("/a"), Path("/b"), Path("/cfg/terraform.d/plugins"), Path("/home/u/.terraform.d/plugins"),
        Path("/home/u/.local/share/terraform/plugins"), Path("/usr/local/share/terraform/plugins"),
        Path("/usr/share/terraform/plugins"),
    ]
