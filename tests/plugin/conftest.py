"""Fixtures of the plugin-protocol tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.plugin.misbehave import misbehave_dir


@pytest.fixture(scope="session")
def misbehave_plugins() -> Path:
    """A ``-plugin-dir`` with the misbehaving test provider, built from tests/providers/misbehave."""
    return misbehave_dir()


SHARED_PROVIDERS = Path(__file__).resolve().parents[2].parent / "shared" / "providers"


@pytest.fixture(scope="session")
def hashicorp_mirror() -> Path:
    """``../shared/providers``: HashiCorp's providers, unmodified, packed as a filesystem mirror.
    Under CI=true a missing mirror is a failure, never a skip."""
    if not (SHARED_PROVIDERS / "registry.terraform.io" / "hashicorp" / "random").is_dir():
        reason = f"HashiCorp's providers are not at {SHARED_PROVIDERS}"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return SHARED_PROVIDERS
