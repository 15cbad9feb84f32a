"""Fixtures of the plugin-protocol tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugin.misbehave import misbehave_dir


@pytest.fixture(scope="session")
def misbehave_plugins() -> Path:
    """A ``-plugin-dir`` with the misbehaving test provider, built from tests/providers/misbehave."""
    return misbehave_dir()
