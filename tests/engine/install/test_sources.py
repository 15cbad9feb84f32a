"""Installation methods combine as Terraform's do: pooled versions, the first source that has one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.install.cli_config import CliConfig
from engine.install.methods import providers_in, sources_for
from engine.install.sources import FilesystemMirror, InstallError, Method, Patterns, Sources
from vocab.providers import ProviderSource
from vocab.versions import Version

OS_ARCH = "linux_amd64"
NULL = ProviderSource.parse("hashicorp/null")


def _unpacked(root: Path, version: str, address: str = "registry.terraform.io/hashicorp/null") -> Path:
    directory = root / address / version / OS_ARCH
    directory.mkdir(parents=True)
    (directory / f"terraform-provider-null_v{version}").write_bytes(b"bin")
    return directory


@pytest.mark.parametrize(("pattern", "admits"), [
    ("registry.terraform.io/hashicorp/*", True),
    ("hashicorp/*", True),
    ("null", True),
    ("*/*/*", True),
    ("example.com/*/*", False),
    ("registry.terraform.io/hashicorp/random", False),
    ("a/b/c/d", False),
])
def test_include_patterns(pattern: str, admits: bool) -> None:
    assert Patterns(include=[pattern]).admits(NULL) is admits
    assert Patterns(exclude=[pattern]).admits(NULL) is not admits


def test_versions_are_pooled_and_the_first_source_having_one_serves_it(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _unpacked(first, "1.0.0")
    _unpacked(second, "1.0.0")
    _unpacked(second, "2.0.0")
    sources = Sources([Method(FilesystemMirror(first)), Method(FilesystemMirror(second))])
    assert sources.versions(NULL, OS_ARCH) == [Version.parse("1.0.0"), Version.parse("2.0.0")]
    assert sources.package(NULL, Version.parse("1.0.0"), OS_ARCH).origin == str(first)
    assert sources.package(NULL, Version.parse("2.0.0"), OS_ARCH).origin == str(second)
    with pytest.raises(InstallError, match="not available for darwin_arm64"):
        sources.package(NULL, Version.parse("2.0.0"), "darwin_arm64")


def test_a_provider_no_method_admits_is_a_clear_error(tmp_path: Path) -> None:
    sources = Sources([Method(FilesystemMirror(tmp_path), Patterns(exclude=["hashicorp/*"]))])
    with pytest.raises(InstallError, match="no installation method may install provider"):
        sources.versions(NULL, OS_ARCH)


def test_implied_mirrors_serve_what_they_hold_and_the_registry_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _unpacked(home / ".terraform.d" / "plugins", "1.0.0")
    env = {"HOME": str(home), "XDG_DATA_HOME": str(tmp_path / "none"), "XDG_DATA_DIRS": str(tmp_path / "none")}
    sources = sources_for(tmp_path / "cfg", [], CliConfig(), env)
    kinds = [(type(m.source).__name__, m.patterns.include, m.patterns.exclude) for m in sources.methods]
    held = ["registry.terraform.io/hashicorp/null"]
    assert kinds == [("FilesystemMirror", held, []), ("RegistrySource", [], held)]
    assert providers_in(home / ".terraform.d" / "plugins") == set(held)
