"""``ctl state pull`` and ``ctl state push``: the stored state document out, a state document in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from backends.base import SealedStore
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.session import manager_for
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from engine.state.model import State
from engine.state_tools.access import load_for_change, open_backend
from vocab.errors import CtlError


class PushRefused(CtlError):
    """``state push`` would replace a newer or unrelated state."""


def pull(root_dir: Path) -> bytes | None:
    """The stored state document; None when there is none.

    With an interrupted apply's journal the recovered state is returned with the serial the next
    locked command will give it when it writes the recovery, so pushing it back is accepted.
    """
    store, workspace = open_backend(root_dir)
    if not store.journal_read(workspace):
        snap = store.read(workspace)
        return snap.data if snap is not None else None
    manager = manager_for(store, workspace, root_dir)
    state = manager.load()
    if manager.replayed:
        state.serial = manager.serial + 1
    return encode_state(state)


@dataclass(frozen=True)
class PushResult:
    written: bool  # False: the stored state already was exactly this
    serial: int
    forced: bool = False


def push(root_dir: Path, data: bytes, source: str, lock: LockOptions, *, force: bool = False) -> PushResult:
    """``ctl state push``: replace the stored state, refusing to go backwards unless forced.

    Refused without ``force``: another lineage (a different state altogether), a lower serial (an
    older copy), or the same serial with different content (a diverged copy). The serial written is
    never below the stored one, so a saved plan can never match a state it was not made from.
    The write goes to the store directly (still a compare-and-swap on the version read) because
    ``StateManager`` rightly refuses a new lineage, which is exactly what ``--force`` may replace.
    """
    store, workspace = open_backend(root_dir)
    if isinstance(store, SealedStore):  # an encrypting store reads a sealed errored.tfstate
        data = store.open_state(data, source)
    pushed = decode_state(data, source)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, "OperationTypeStatePush", lock):
        current = load_for_change(manager, lock.enabled)
        if manager.lineage is None:
            store.write(workspace, encode_state(pushed), expected=manager.version)
            return PushResult(True, pushed.serial)
        same = pushed.copy()
        same.serial = current.serial
        identical = same.lineage == current.lineage and encode_state(same) == encode_state(current)
        if pushed.serial == current.serial and identical:
            return PushResult(False, current.serial)
        problem = _push_problem(pushed, current)
        if problem and not force:
            raise PushRefused(f"Refusing to push {source}: {problem}", detail=f"Stored state: {manager.source}.",
                              hint="Pull the current state with `ctl state pull` and start from it, or push "
                                   "with --force to overwrite it.")
        pushed.serial = max(pushed.serial, current.serial + 1)
        store.write(workspace, encode_state(pushed), expected=manager.version)
    return PushResult(True, pushed.serial, forced=bool(problem))


def _push_problem(pushed: State, current: State) -> str:
    if pushed.lineage != current.lineage:
        return (f"its lineage {pushed.lineage} differs from the stored state's {current.lineage} "
                "(they are different states)")
    if pushed.serial < current.serial:
        return f"its serial {pushed.serial} is lower than the stored serial {current.serial} (an older copy)"
    if pushed.serial == current.serial:
        return f"it has the stored serial {current.serial} but different content (the copies diverged)"
    return ""


__all__ = ["PushRefused", "PushResult", "pull", "push"]
