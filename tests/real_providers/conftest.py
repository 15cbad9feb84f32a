"""HashiCorp's own providers, unmodified, driven by ctl and by Terraform 1.0.3 side by side.

The providers come from the packed mirror in ``../shared/providers`` (beside the repository); nobody
on this project wrote them, so they meet ctl the way a user's configuration does. Under CI a missing
mirror fails the tests that need it; elsewhere they are skipped.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO

MIRROR = REPO.parent / "shared" / "providers"
SMALL = ("random", "null", "local", "time", "archive", "external")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def real_providers() -> Path:
    """The mirror directory, with every small provider present."""
    missing = [name for name in SMALL
               if not any((MIRROR / "registry.terraform.io" / "hashicorp" / name).glob("*.zip"))]
    if missing:
        reason = f"the real providers mirror {MIRROR} lacks {', '.join(missing)}"
        if _in_ci():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


@pytest.fixture(scope="session")
def aws_provider() -> Path:
    """The mirror directory, with HashiCorp's aws provider in it (hundreds of megabytes, so kept
    apart from the small ones: a mirror without it still runs their tests)."""
    if not any((MIRROR / "registry.terraform.io" / "hashicorp" / "aws").glob("*.zip")):
        reason = f"the real providers mirror {MIRROR} lacks hashicorp/aws"
        if _in_ci():
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return MIRROR


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)
