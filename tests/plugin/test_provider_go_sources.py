"""The Go side of the test providers: its own unit tests pass and the sources are gofmt-clean.

The provider-defined function of fwtest cannot be reached through Terraform 1.0.3, so a Go test asks the
protocol-6 server for it directly; this runs that test as part of the suite.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.plugin_providers import PROVIDERS_SRC, find_go


def go_or_skip() -> str:
    go = find_go()
    if go is None:
        reason = "Go is not installed, so the test providers' Go tests cannot run"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return go


def test_go_unit_tests_pass() -> None:
    go = go_or_skip()
    done = subprocess.run([go, "test", "./..."], cwd=PROVIDERS_SRC, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_go_sources_are_gofmt_clean() -> None:
    gofmt = Path(go_or_skip()).with_name("gofmt")
    done = subprocess.run([str(gofmt), "-l", "."], cwd=PROVIDERS_SRC, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"not gofmt-formatted:\n{done.stdout}"
