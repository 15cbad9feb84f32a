"""Release zips that a hostile registry signs and serves: each oddity is one clear error, never a crash,
and what is installed keeps to the user's umask.

The registry (tests/engine/install/hostile_registry.py) publishes each zip with a matching SHA256SUMS signed
by its own key, so every network check passes and only what ctl does with the archive is tested.
"""

from __future__ import annotations

import io
import stat
import struct
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.helpers import CTL, clean_env
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

DATE = (2021, 1, 1, 0, 0, 0)


def _info(name: str, mode: int = 0o100644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, DATE)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _pack(*members: tuple[zipfile.ZipInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for info, data in members:
            zipped.writestr(info, data)
    return buffer.getvalue()


def _patched(data: bytes, *, flags: int | None = None, method: int | None = None) -> bytes:
    """``data`` (a one-member zip) with the member's flag bits or compression method rewritten in both
    its local header and its central directory entry, as a zip tool that set them would write them."""
    out = bytearray(data)
    for signature, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        at = out.index(signature)
        if flags is not None:
            out[at + flag_at: at + flag_at + 2] = struct.pack("<H", flags)
        if method is not None:
            out[at + method_at: at + method_at + 2] = struct.pack("<H", method)
    return bytes(out)


def _file_then_directory() -> bytes:
    return _pack((_info("a"), b"a file"), (_info("a/b"), b"under it"))


def _symlink_then_through_it() -> bytes:
    return _pack((_info("link", stat.S_IFLNK | 0o777), b"/etc"), (_info("link/passwd"), b"root::0:0::/:/bin/sh\n"))


def _encrypted() -> bytes:
    return _patched(_pack((_info("terraform-provider-fwtest_v1.2.0", 0o100755), b"binary")), flags=0x1)


def _unknown_method() -> bytes:
    return _patched(_pack((_info("terraform-provider-fwtest_v1.2.0", 0o100755), b"binary")), method=99)


def _dot_dot() -> bytes:
    return _pack((_info(".."), b"up"))


def _too_many_members() -> bytes:
    return _pack(*((_info(f"f{i}"), b"") for i in range(10_001)))


ODDITIES: dict[str, tuple[Callable[[], bytes], str]] = {
    "file-then-directory": (_file_then_directory, "holds 'a' both as a file and as a directory"),
    "symlink-then-through-it": (_symlink_then_through_it, "holds 'link' both as a file and as a directory"),
    "encrypted": (_encrypted, "holds an encrypted member: 'terraform-provider-fwtest_v1.2.0'"),
    "unknown-compression": (_unknown_method, "compressed with method 99, which cannot be read"),
    "dot-dot": (_dot_dot, "holds an unsafe path: '..'"),
    "too-many-members": (_too_many_members, "holds 10001 members, more than the 10000 allowed"),
}


@pytest.mark.parametrize("oddity", sorted(ODDITIES))
def test_a_zip_oddity_is_one_clear_error(oddity: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    build, message = ODDITIES[oddity]
    registry.publish("fwtest", "1.2.0", build())
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("init", env=ctl_env(registry, tmp_path / "home"))
    fails_cleanly(result, f"the provider package {registry.zip_path('fwtest', '1.2.0').name}", message,
                  "nothing was installed")
    nothing_installed(project)
    assert not (tmp_path / "etc").exists() and not project.path(".terraform.lock.hcl").exists()


@pytest.mark.parametrize("oddity", ["symlink-then-through-it", "encrypted"])
def test_providers_mirror_refuses_a_zip_oddity_too(
        oddity: str, tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    build, message = ODDITIES[oddity]
    registry.publish("fwtest", "1.2.0", build())
    project = ctl_project(tmp_path / "cfg", registry)
    result = project.ctl("providers", "mirror", str(tmp_path / "mirror"), env=ctl_env(registry, tmp_path / "home"))
    fails_cleanly(result, message)
    assert list((tmp_path / "mirror").rglob("*.zip")) == []


def test_installed_files_respect_the_umask(tmp_path: Path, hostile_registry: HostileRegistry) -> None:
    registry = hostile_registry
    release = registry.find("fwtest", "1.2.0")
    registry.publish("fwtest", "1.2.0", _pack(
        (_info(release.member_name, 0o100777), release.binary.read_bytes()),
        (_info("README.md", 0o100666), b"world-writable in the zip\n"),
    ))
    project = ctl_project(tmp_path / "cfg", registry)
    env = clean_env(ctl_env(registry, tmp_path / "home"))
    done = subprocess.run([CTL, "init"], cwd=project.root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, umask=0o027)
    assert done.returncode == 0, done.stderr
    installed = project.path(".ctl", "providers", registry.host, "ctltest", "fwtest", "1.2.0", host_os_arch())
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in installed.iterdir()}
    assert modes == {release.member_name: 0o750, "README.md": 0o640}
    assert staging_dirs(project.root) == []
    plan = subprocess.run([CTL, "plan"], cwd=project.root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)
    assert plan.returncode == 0, plan.stderr  # the provider still runs
