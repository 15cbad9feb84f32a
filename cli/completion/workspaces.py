"""The selected workspace, its state file and the other workspaces, as tab completion sees them."""

from __future__ import annotations

import os
from pathlib import Path

from cli.completion.backend import default_state_file

# Mirrors of backends.local.store and engine.session (importing them would slow every Tab press).
WORKSPACES_DIR = "ctl.tfstate.d"
ENVIRONMENT_FILE = Path(".ctl") / "environment"
DEFAULT_WORKSPACE = "default"


def selected_workspace(root: Path) -> str:
    env = os.environ.get("CTL_WORKSPACE") or os.environ.get("TF_WORKSPACE")
    if env:
        return env
    try:
        return (root / ENVIRONMENT_FILE).read_text().strip() or DEFAULT_WORKSPACE
    except OSError:
        return DEFAULT_WORKSPACE


def state_file(root: Path) -> Path | None:
    default = default_state_file(root)
    workspace = selected_workspace(root)
    if default is None or workspace == DEFAULT_WORKSPACE:
        return default
    return default.parent / WORKSPACES_DIR / workspace / default.name


def workspaces(root: Path) -> list[str]:
    default = default_state_file(root)
    if default is None:
        return []
    folder = default.parent / WORKSPACES_DIR
    names = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return [DEFAULT_WORKSPACE, *[n for n in names if n != DEFAULT_WORKSPACE]]
