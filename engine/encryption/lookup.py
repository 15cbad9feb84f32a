"""The targets a command needs, from the configuration and the environment.

State is opened where the configuration is already loaded (``engine.session.open_store``). Saved
plans are read and written by commands that may not load the configuration at all (``show``,
``policy check``), so ``plan_target`` reads the root module's files only when the environment has
no encryption settings and a root file mentions ``encryption``: a run without encryption pays for a
scan of the root's bytes, not for a parse.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.config.model import Module
from engine.encryption.config import ENV_VARS, encryption_config
from engine.encryption.target import Target


def state_target(root: Module | None, var_args: list[tuple[str, str]] | None = None) -> Target | None:
    config = encryption_config(root, var_args=var_args)
    return Target("state", config.state) if config is not None and config.state is not None else None


def plan_target(root_dir: Path, var_args: list[tuple[str, str]] | None = None) -> Target | None:
    return target_in(root_dir, "plan", var_args)


def target_in(root_dir: Path, name: str, var_args: list[tuple[str, str]] | None = None) -> Target | None:
    """The ``name`` target (``state`` or ``plan``) of the configuration in ``root_dir``, if any."""
    from engine.config.loader import config_files, load_module
    from vocab.errors import Diagnostics

    root: Module | None = None
    if not any(os.environ.get(var, "").strip() for var in ENV_VARS):
        try:
            files = config_files(root_dir)
        except OSError:
            files = []
        if not any(b"encryption" in path.read_bytes() for path in files):
            return None
    if root_dir.is_dir():
        root = load_module(root_dir, root_dir, Diagnostics())
    config = encryption_config(root, var_args=var_args)
    chosen = getattr(config, name, None) if config is not None else None
    return Target(name, chosen) if chosen is not None else None
