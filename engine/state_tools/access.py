"""Opening the selected workspace's state for the state tools and for display commands.

Only the backend block matters here, so a configuration with unrelated errors (or none at all, just
a state file) can still be inspected and repaired — what state commands are for. Reading needs no
lock and replays an interrupted apply's journal; a change runs under the lock and is persisted
through ``StateManager`` (serial bumped, lineage kept, compare-and-swap, previous version kept).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from backends.base import StateStore
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.session import manager_for, open_store, selected_workspace
from engine.state.manager import StateManager
from engine.state.model import State
from vocab.values import unmark_paths

T = TypeVar("T")


def open_backend(root_dir: Path) -> tuple[StateStore, str]:
    """The configuration's state store and the selected workspace.

    Only the backend block matters here, so a configuration with unrelated errors (or none at all,
    just a state file) can still be inspected and repaired — what state commands are for.
    """
    from engine.config.loader import load_config

    root, _ = load_config(root_dir)
    return open_store(root_dir, root if root.files else None), selected_workspace(root_dir)


def read_state(root_dir: Path) -> State:
    """The selected workspace's state without the lock, an interrupted apply's journal replayed,
    with the secrets ctl masks beyond the file's own sensitive paths marked (``with_copied_marks``)."""
    store, workspace = open_backend(root_dir)
    return with_copied_marks(manager_for(store, workspace, root_dir).load())


def with_copied_marks(state: State) -> State:
    """``state`` (changed in place) with the marks a type copies from one attribute to another put
    back: ``terraform_data.output`` is secret where its ``input`` is.

    The state file records no mark under ``output``, as Terraform and OpenTofu write it (see
    ``engine.plan.diff.stored_marks``); this state is for showing, so the secret stays masked.
    """
    from adapters.terraform import PROVIDER
    from engine.plan.diff import mark_sensitive

    copying = {name: rt for name, rt in PROVIDER.resources.items() if rt.sensitive_follows}
    for addr, inst in list(state.instances()):
        rt = copying.get(addr.type) if addr.mode == "managed" else None
        if rt is None or not inst.sensitive_attributes:
            continue
        _, paths = unmark_paths(mark_sensitive(inst.marked_attributes(), rt))
        if paths != inst.sensitive_attributes:
            state.set_instance(addr, inst.replace(sensitive_attributes=paths))
    return state


def load_for_change(manager: StateManager, holding_lock: bool) -> State:
    """Load and, holding the lock, write back what a journal recovered (and drop the journal).

    The same loading a plan or apply does (``engine.recovery.load_state``), without the lookup of
    unfinished creates, which needs the configuration and the adapters.
    """
    from engine.recovery import load_state

    state, _ = load_state(manager, holding_lock=holding_lock)
    return state


def edit_state(root_dir: Path, operation: str, lock: LockOptions, change: Callable[[State], T], *,
               dry_run: bool = False) -> T:
    """Run ``change`` on a copy of the state under the lock and persist it (unless ``dry_run``)."""
    store, workspace = open_backend(root_dir)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, operation, lock):
        state = load_for_change(manager, lock.enabled)
        new = state.copy()
        result = change(new)
        if not dry_run:
            manager.persist(new)
    return result


__all__ = ["edit_state", "load_for_change", "open_backend", "read_state"]
