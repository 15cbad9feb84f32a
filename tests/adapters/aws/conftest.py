"""Fixtures of the aws adapter tests: one moto server for the session, reset for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.aws.aws_helpers import AwsProject
from tests.servers import MotoServer


@pytest.fixture
def aws(moto_server_clean: MotoServer, tmp_path: Path) -> AwsProject:
    """A fresh configuration directory whose ctl runs use the (just reset) moto server."""
    root = tmp_path / "cfg"
    root.mkdir()
    return AwsProject(root, moto_server_clean)
