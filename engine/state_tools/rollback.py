"""``ctl state rollback SERIAL``: restoring a kept version of the state as a new serial."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backends.base import StateStore
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.session import manager_for
from engine.state.codec import decode_state
from engine.state_tools.access import load_for_change, open_backend
from engine.state_tools.diff import StateDiff, state_diff
from vocab.errors import CtlError


class RollbackRefused(CtlError):
    """``state rollback`` cannot restore that version (no state, the current one, another lineage)."""


@dataclass(frozen=True)
class RollbackPlan:
    """What ``state rollback`` is about to do, shown before asking."""

    serial: int  # the kept version restored
    current_serial: int
    new_serial: int  # the serial the restored document is written with
    lineage: str
    diff: StateDiff


@dataclass(frozen=True)
class RollbackResult:
    plan: RollbackPlan
    written: bool  # False: the kept version has the same content as the current state


def rollback(root_dir: Path, serial: int, lock: LockOptions, confirm: Callable[[RollbackPlan], bool]
             ) -> RollbackResult:
    """``ctl state rollback SERIAL``: restore a kept version of the selected workspace."""
    store, workspace = open_backend(root_dir)
    return rollback_in(store, workspace, serial, lock, confirm, errored_dir=root_dir)


def rollback_in(store: StateStore, workspace: str, serial: int, lock: LockOptions,
                confirm: Callable[[RollbackPlan], bool], *, errored_dir: Path) -> RollbackResult:
    """Restore the kept version ``serial`` as a new serial (current + 1), under the lock, once confirmed.

    Going forward rather than rewinding the serial keeps every guarantee serials give: a saved plan
    made against the current state is stale afterwards, other copies are older, and the version being
    replaced is itself kept in the history, so a rollback can be rolled back. A version of another
    lineage (a different state, pushed with ``--force`` at some point) is refused: restoring it would
    silently swap one infrastructure's state for another's.
    """
    manager = manager_for(store, workspace, errored_dir)
    with locked(store, workspace, "OperationTypeStateRollback", lock) as held:
        current = load_for_change(manager, lock.enabled)
        if manager.lineage is None:
            raise RollbackRefused(f"There is no state at {manager.source} to roll back",
                                  hint="`ctl state history` lists the versions kept.")
        if serial == manager.serial:
            raise RollbackRefused(f"Serial {serial} is the current state; there is nothing to roll back",
                                  hint="`ctl state history` lists the versions kept.")
        source = f"{manager.source} (kept version, serial {serial})"
        target = decode_state(store.read_history(workspace, serial), source)
        if target.lineage != manager.lineage:
            raise RollbackRefused(
                f"Refusing to roll back to serial {serial}: its lineage {target.lineage} differs from the "
                f"current state's {manager.lineage}",
                detail="They are different states; that version was replaced by a forced push of another "
                       "state, and restoring it would put another infrastructure's state in place.",
                hint="Pick a version of the current lineage from `ctl state history`, or use "
                     "`ctl state push --force` if replacing the state is really what you want.",
            )
        plan = RollbackPlan(serial, manager.serial, manager.serial + 1, manager.lineage,
                            state_diff(current, target))
        if plan.diff.empty:
            return RollbackResult(plan, False)
        if not confirm(plan):
            raise CtlError("Rollback cancelled.", hint="Nothing was changed.")
        if held is not None:
            store.renew_lock(workspace, held)  # the answer may have taken long: still ours before writing?
        restored = target.copy()
        restored.serial = manager.serial  # persist writes current + 1
        manager.persist(restored)
        return RollbackResult(dataclasses.replace(plan, new_serial=restored.serial), True)


__all__ = ["RollbackPlan", "RollbackRefused", "RollbackResult", "rollback", "rollback_in"]
