"""``ctl workspace list|new|select|delete``: the workspaces of the configured backend."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from backends.base import DEFAULT_WORKSPACE, check_workspace_name
from engine.locking.acquire import acquire_and_keep
from engine.locking.options import LockOptions
from engine.session import manager_for, select_workspace
from engine.state.model import new_state
from engine.state_tools.access import load_for_change, open_backend
from vocab.errors import CtlError


class WorkspaceError(CtlError):
    """A workspace command cannot do what was asked (unknown, current, default or not empty)."""


def workspaces(root_dir: Path) -> tuple[list[str], str]:
    """Every workspace of the backend and the selected one."""
    store, current = open_backend(root_dir)
    return store.workspaces(), current


def _not_overridden(root_dir: Path, name: str) -> None:
    """A workspace chosen by the environment wins over ``.ctl/environment``: selecting another is refused."""
    env = os.environ.get("CTL_WORKSPACE") or os.environ.get("TF_WORKSPACE")
    if env and env != name:
        raise WorkspaceError(f'The selected workspace is set to "{env}" by the environment',
                             hint="Unset CTL_WORKSPACE/TF_WORKSPACE, or set it to the workspace you want.")


def new_workspace(root_dir: Path, name: str) -> None:
    """Create a workspace with an empty state (so it is listed at once) and select it."""
    check_workspace_name(name)
    _not_overridden(root_dir, name)
    store, _ = open_backend(root_dir)
    if name in store.workspaces():
        raise WorkspaceError(f'Workspace "{name}" already exists', hint=f"Select it with `ctl workspace select {name}`.")
    manager = manager_for(store, name, root_dir)
    manager.load()
    manager.persist(new_state())
    select_workspace(root_dir, name)


def select(root_dir: Path, name: str, *, or_create: bool = False) -> bool:
    """Make ``name`` the selected workspace; True when it had to be created (``or_create``)."""
    check_workspace_name(name)
    _not_overridden(root_dir, name)
    store, _ = open_backend(root_dir)
    if name not in store.workspaces():
        if or_create:
            new_workspace(root_dir, name)
            return True
        raise WorkspaceError(f'Workspace "{name}" doesn\'t exist',
                             hint=f"Create it with `ctl workspace new {name}` (see `ctl workspace list`).")
    select_workspace(root_dir, name)
    return False


def delete_workspace(root_dir: Path, name: str, lock_opts: LockOptions, *, force: bool = False) -> int:
    """Delete a workspace; the number of instances its state still held (forgotten, with ``force``)."""
    store, current = open_backend(root_dir)
    if name == DEFAULT_WORKSPACE:
        raise WorkspaceError('The "default" workspace cannot be deleted', hint="Other workspaces can be.")
    if name not in store.workspaces():
        raise WorkspaceError(f'Workspace "{name}" doesn\'t exist', hint="List them with `ctl workspace list`.")
    if name == current:
        raise WorkspaceError(f'Workspace "{name}" is the current workspace and cannot be deleted',
                             hint="Select another one first, e.g. `ctl workspace select default`.")
    held = None
    if lock_opts.enabled:
        held = acquire_and_keep(store, name, "OperationTypeWorkspaceDelete", "", lock_opts.timeout)
    try:
        state = load_for_change(manager_for(store, name, root_dir), False)
        count = sum(1 for _ in state.instances(include_deposed=True))
        if count and not force:
            raise WorkspaceError(
                f'Workspace "{name}" is not empty: its state holds {count} resource instance(s)',
                detail="Deleting it would make ctl forget objects that still exist.",
                hint=f"Destroy them first (`ctl workspace select {name}` then `ctl destroy`), or delete with "
                     "--force to forget them.")
        store.delete_workspace(name)
    except BaseException:
        if held is not None:
            with contextlib.suppress(CtlError):
                store.unlock(name, held.ID)
        raise
    if held is not None and store.lock_info(name) is not None:  # a store that keeps locks elsewhere
        with contextlib.suppress(CtlError):
            store.unlock(name, held.ID)
    return count


__all__ = ["WorkspaceError", "delete_workspace", "new_workspace", "select", "workspaces"]
