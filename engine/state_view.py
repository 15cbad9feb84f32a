"""Reading the current state for display commands (``show``, ``output``): no lock, journal applied."""

from __future__ import annotations

from pathlib import Path

from engine.config.loader import load_config
from engine.session import manager_for, open_store, selected_workspace
from engine.state.model import State


def read_state(root_dir: Path) -> State:
    """The selected workspace's state as a run would see it (an interrupted apply's journal replayed)."""
    root, _ = load_config(root_dir)
    store = open_store(root_dir, root if root.files else None)
    manager = manager_for(store, selected_workspace(root_dir), root_dir)
    return manager.load()
