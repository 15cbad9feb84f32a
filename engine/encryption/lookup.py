"""The targets a command needs, from the configuration and the environment.

State is opened where the configuration is already loaded (``engine.session.open_store``), which sets
encryption up (``set_up``): the keys are asked for there, before anything is planned. Saved
plans are read and written by commands that may not load the configuration at all (``show``,
``policy check``), so ``plan_target`` reads the root module's files only when the environment has
no encryption settings and a root file mentions ``encryption``: a run without encryption pays for a
scan of the root's bytes, not for a parse.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.config.model import Module
from engine.encryption.config import ENV_VARS, TargetConfig, encryption_config
from engine.encryption.target import Target

# Targets set up in this process (newest last), with where and in which environment: a command that
# set encryption up and then writes a plan file uses the target it checked, so the plan's key program
# runs once a run, as in OpenTofu. A key program may read the environment, and a relative one is found
# from the working directory, so a target is reused only where both are the same.
_SET_UP: list[tuple[Path, tuple[tuple[str, str], ...], Target]] = []
_SET_UP_KEPT = 4


def _earlier(name: str, config: TargetConfig) -> Target | None:
    """The target set up in this process for an equal configuration, here, in this environment."""
    here, environ = Path.cwd(), tuple(sorted(os.environ.items()))
    for where, seen_environ, known in _SET_UP:
        if known.name == name and known.config == config and where == here and seen_environ == environ:
            return known
    return None


def _checked(name: str, config: TargetConfig) -> Target:
    """The target set up earlier for ``config``, or a new one once its key provider gave its key."""
    found = _earlier(name, config)
    if found is not None:
        return found
    made = Target(name, config)
    made.check()
    _SET_UP.append((Path.cwd(), tuple(sorted(os.environ.items())), made))
    del _SET_UP[:-_SET_UP_KEPT]
    return made


def set_up(root: Module | None, var_args: list[tuple[str, str]] | None = None) -> Target | None:
    """The state target, once the state's and the plan's key providers have given their keys.

    OpenTofu asks for the keys when it sets encryption up, before it plans, so a key program that
    fails (or answers a key the method cannot take) is one error before any plan is shown, never
    after; ctl does the same wherever a command opens the state (``engine.session.open_store``).
    """
    config = encryption_config(root, var_args=var_args)
    if config is None:
        return None
    state = _checked("state", config.state) if config.state is not None else None
    if config.plan is not None:
        _checked("plan", config.plan)
    return state


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
    return (_earlier(name, chosen) or Target(name, chosen)) if chosen is not None else None
