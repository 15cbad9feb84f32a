"""Helpers for the policy tests: plans in Terraform's JSON shape and policy directories."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest


def rc(type_: str, name: str, after: Any, actions: tuple[str, ...] = ("create",), before: Any = None) -> dict:
    return {"address": f"{type_}.{name}", "mode": "managed", "type": type_, "name": name,
            "change": {"actions": list(actions), "before": before, "after": after}}


def plan(*changes: dict) -> dict:
    return {"format_version": "1.2", "resource_changes": list(changes)}


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture
def policy_dir(tmp_path: Path) -> Path:
    d = tmp_path / "pol"
    d.mkdir()
    return d
