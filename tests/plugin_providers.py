"""Real Terraform provider binaries for the plugin-protocol tests, built from Go under tests/providers/.

Two providers live in one Go module: ``fwtest`` (plugin framework, protocol 6) and ``sdktest`` (SDK v2,
protocol 5). They keep their objects as JSON files in a directory (provider argument ``root`` or
``$CTLTEST_ROOT``), so drift and import act on something outside Terraform's state.

``provider_dir()`` builds both binaries when a Go source is newer than them and returns a directory laid
out as Terraform's ``-plugin-dir`` / filesystem mirror expects::

    HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION

``CTL_TEST_PROVIDERS_DIR`` names a prebuilt directory of that shape instead (no Go needed). Without Go the
tests that need the providers are skipped, except under CI, where that is a failure. ``make providers``
(and so ``make test``) builds them ahead of pytest: ``python -m tests.plugin_providers``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PROVIDERS_SRC = Path(__file__).resolve().parent / "providers"
BUILD_DIR = PROVIDERS_SRC / ".build"
PREBUILT_ENV = "CTL_TEST_PROVIDERS_DIR"
GO_FALLBACK = Path("/usr/local/go/bin/go")


@dataclass(frozen=True)
class ProviderSpec:
    """One test provider: where Terraform finds it and which protocol it speaks."""

    type: str
    namespace: str
    hostname: str
    version: str
    protocol: int
    package: str  # Go package directory under tests/providers/

    @property
    def source(self) -> str:
        return f"{self.hostname}/{self.namespace}/{self.type}"

    @property
    def executable_name(self) -> str:
        return f"terraform-provider-{self.type}_v{self.version}"

    def relative_path(self, os_arch: str) -> Path:
        """Where the binary sits inside a plugin directory."""
        return Path(self.hostname, self.namespace, self.type, self.version, os_arch, self.executable_name)


PROVIDERS: dict[str, ProviderSpec] = {
    spec.type: spec
    for spec in (
        ProviderSpec("fwtest", "ctltest", "registry.terraform.io", "1.0.0", 6, "fwtest"),
        ProviderSpec("sdktest", "ctltest", "registry.terraform.io", "1.0.0", 5, "sdktest"),
    )
}


class ProviderBuildError(RuntimeError):
    """Go is there but a provider did not build; carries the compiler's output."""


def _running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def find_go() -> str | None:
    """The go executable on PATH, else the usual install location, else None."""
    found = shutil.which("go")
    if found:
        return found
    return str(GO_FALLBACK) if GO_FALLBACK.exists() else None


def _unavailable(reason: str) -> None:
    """Missing Go fails under CI (never a silent skip there) and skips the test elsewhere."""
    if _running_in_ci():
        raise ProviderBuildError(reason)
    pytest.skip(reason)


def _host_os_arch(go: str | None) -> str:
    """OS_ARCH as Terraform names platforms (linux_amd64), from Go when present."""
    if go:
        out = subprocess.run([go, "env", "GOOS", "GOARCH"], capture_output=True, text=True, check=True)
        goos, goarch = out.stdout.split()
        return f"{goos}_{goarch}"
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64", "i686": "386"}.get(machine, machine)
    return f"{platform.system().lower()}_{arch}"


def _newest_source_mtime() -> float:
    newest = 0.0
    for path in PROVIDERS_SRC.rglob("*"):
        if BUILD_DIR in path.parents:
            continue
        if path.suffix == ".go" or path.name in ("go.mod", "go.sum"):
            newest = max(newest, path.stat().st_mtime)
    return newest


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """One build at a time across processes (pytest workers, make and a test run side by side)."""
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build(go: str, spec: ProviderSpec, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    result = subprocess.run(
        [go, "build", "-trimpath", "-o", str(partial), f"./{spec.package}"],
        cwd=PROVIDERS_SRC,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ProviderBuildError(f"go build ./{spec.package} failed:\n{result.stdout}{result.stderr}")
    partial.replace(target)  # atomic: a concurrent reader never sees half a binary


def provider_dir() -> Path:
    """The plugin directory holding both providers, built first when their sources changed."""
    prebuilt = os.environ.get(PREBUILT_ENV)
    if prebuilt:
        return Path(prebuilt).resolve()
    go = find_go()
    if go is None:
        _unavailable("Go is not installed, so the test providers under tests/providers cannot be built")
    assert go is not None
    plugins = BUILD_DIR / "plugins"
    with _build_lock():
        os_arch = _host_os_arch(go)
        newest = _newest_source_mtime()
        for spec in PROVIDERS.values():
            target = plugins / spec.relative_path(os_arch)
            if not target.exists() or target.stat().st_mtime <= newest:
                _build(go, spec, target)
    return plugins


def binary(type_name: str) -> Path:
    """The executable of one provider (``fwtest`` or ``sdktest``), built when needed."""
    spec = PROVIDERS[type_name]
    root = provider_dir()
    return root / spec.relative_path(_host_os_arch(find_go()))


@pytest.fixture(scope="session")
def plugin_dir() -> Path:
    """A ``-plugin-dir`` with terraform-provider-fwtest and terraform-provider-sdktest (see module doc)."""
    return provider_dir()


def main() -> int:
    """`make providers`: build and print the directory; without Go only a notice (unless under CI)."""
    if find_go() is None and not os.environ.get(PREBUILT_ENV):
        print("Go is not installed: the plugin-provider tests will be skipped.", file=sys.stderr)
        return 1 if _running_in_ci() else 0
    try:
        print(provider_dir())
    except ProviderBuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
