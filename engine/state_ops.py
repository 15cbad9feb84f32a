"""What ``ctl state …``, ``ctl workspace …`` and ``ctl import`` do to the stored state.

These are the hand tools next to plan and apply: they edit the state directly, so each one keeps
the guarantees apply keeps — changes happen under the workspace lock, go through ``StateManager``
(serial bumped, lineage kept, compare-and-swap, backup kept by the store), and an interrupted
apply's journal is replayed before anything is looked at. The functions take plain values and
return data; the CLI decides how to show it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from backends.base import DEFAULT_WORKSPACE, HistoryEntry, LockInfo, StateStore
from engine.errors import CtlError
from engine.locking.acquire import acquire_and_keep
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.locking.release import Unlocked, UnlockRefused, unlock_in
from engine.locking.status import LockStatus, lock_status_in
from engine.session import manager_for, open_store, selected_workspace
from engine.state.address import AddressError, InstanceAddress, ModulePath, format_module, parse_module
from engine.state.manager import StateManager
from engine.state.model import InstanceState, ResourceState, State, new_state

T = TypeVar("T")
_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())  # a library's records: shown only when CTL_LOG asks
_LIST_HINT = "List the addresses in the state with `ctl state list`."


class StateAddressNotFound(CtlError):
    """An address given to a state command names nothing in the state."""


class StateEditRefused(CtlError):
    """A ``state mv``/``rm`` would lose or overwrite an object, so nothing was changed."""


class PushRefused(CtlError):
    """``state push`` would replace a newer or unrelated state."""


class WorkspaceError(CtlError):
    """A workspace command cannot do what was asked (unknown, current, default or not empty)."""


class ImportRefused(CtlError):
    """``ctl import`` cannot adopt the object at that address."""


# -- opening ----------------------------------------------------------------------------------------


def open_backend(root_dir: Path) -> tuple[StateStore, str]:
    """The configuration's state store and the selected workspace.

    Only the backend block matters here, so a configuration with unrelated errors (or none at all,
    just a state file) can still be inspected and repaired — what state commands are for.
    """
    from engine.config.loader import load_config

    root, _ = load_config(root_dir)
    return open_store(root_dir, root if root.files else None), selected_workspace(root_dir)


def read_state(root_dir: Path) -> State:
    """The selected workspace's state without the lock, an interrupted apply's journal replayed."""
    store, workspace = open_backend(root_dir)
    return manager_for(store, workspace, root_dir).load()


def _load(manager: StateManager, holding_lock: bool) -> State:
    """Load and, holding the lock, write back what a journal recovered (and drop the journal)."""
    state = manager.load()
    if holding_lock and (manager.replayed or manager.journal.appended):
        manager.compact(state)
    return state


def _edit(root_dir: Path, operation: str, lock: LockOptions, change: Callable[[State], T], *,
          dry_run: bool = False) -> T:
    """Run ``change`` on a copy of the state under the lock and persist it (unless ``dry_run``)."""
    store, workspace = open_backend(root_dir)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, operation, lock):
        state = _load(manager, lock.enabled)
        new = state.copy()
        result = change(new)
        if not dry_run:
            manager.persist(new)
    return result


# -- list and show ----------------------------------------------------------------------------------


def list_addresses(state: State, patterns: list[str], resource_id: str | None = None) -> list[str]:
    """Instance addresses under any of ``patterns`` (all without), root module first, then by depth."""
    from engine.plan.targets import matches

    for p in patterns:
        _parse_any(p)  # a malformed filter is an error, not an empty result
    out = []
    for addr, inst in state.instances():
        text = str(addr)
        if patterns and not any(matches(text, p) for p in patterns):
            continue
        if resource_id is not None and str(inst.attributes.get("id")) != resource_id:
            continue
        out.append((len(addr.module), text))
    return [text for _, text in sorted(out, key=lambda x: x[0])]


@dataclass(frozen=True)
class ShownInstance:
    address: str
    provider: str
    instance: InstanceState


def find_instance(state: State, address: str) -> ShownInstance:
    """The one instance ``address`` names; a resource address is accepted when it has one instance."""
    addr = InstanceAddress.parse(address)
    res = state.resource(addr)
    inst = res.get(addr.key) if res is not None else None
    if res is not None and inst is None and addr.key is None:
        current = [i for i in res.instances if i.deposed is None]
        if len(current) == 1:
            inst = current[0]
            addr = InstanceAddress(addr.module, addr.mode, addr.type, addr.name, inst.index_key)
        elif current:
            names = ", ".join(str(a) for a, _ in state.instances() if a.resource_key == addr.resource_key)
            raise StateAddressNotFound(
                f"{address} has {len(current)} instances; name one of them",
                detail=f"Instances: {names}", hint=f"For example: ctl state show '{names.split(', ')[0]}'",
            )
    if res is None or inst is None:
        raise StateAddressNotFound(f'No instance found for the given address "{address}"', hint=_LIST_HINT)
    return ShownInstance(str(addr), res.provider, inst)


def instance_json(shown: ShownInstance, *, show_sensitive: bool) -> dict[str, Any]:
    """One instance in the resource shape of ``ctl show --json`` (Terraform's state representation)."""
    from engine.plan.json_view import provider_name, value_shapes

    addr = InstanceAddress.parse(shown.address)
    values, _, sensitive = value_shapes(shown.instance.marked_attributes(), show_sensitive=show_sensitive)
    doc: dict[str, Any] = {"address": shown.address, "mode": addr.mode, "type": addr.type, "name": addr.name}
    if addr.key is not None:
        doc["index"] = addr.key
    doc.update(provider_name=provider_name(shown.provider), schema_version=shown.instance.schema_version,
               values=values, sensitive_values=sensitive)
    if shown.instance.dependencies:
        doc["depends_on"] = list(shown.instance.dependencies)
    if shown.instance.status == "tainted":
        doc["tainted"] = True
    return doc


# -- mv and rm ---------------------------------------------------------------------------------------


def _parse_any(text: str) -> InstanceAddress | ModulePath:
    """A resource/instance address, else a module path (``module.net``); the resource error wins."""
    try:
        return InstanceAddress.parse(text)
    except AddressError as first:
        try:
            module = parse_module(text)
        except AddressError:
            raise first from None
        if not module:
            raise first from None
        return module


def _objects(state: State) -> list[tuple[InstanceAddress, ResourceState, InstanceState]]:
    """Every object, deposed ones included, with its resource (for provider and moves)."""
    out = []
    for res in list(state.resources):
        module = parse_module(res.module or "")
        for inst in list(res.instances):
            out.append((InstanceAddress(module, res.mode, res.type, res.name, inst.index_key), res, inst))
    return out


def move(state: State, src: str, dst: str) -> list[tuple[str, str]]:
    """Rename objects in ``state``: an instance, a whole resource or a module; (old, new) per instance.

    Refuses (changing nothing) when ``src`` matches nothing, when something already exists at
    ``dst``, or when the resource type or mode would change — a rename never destroys anything.
    """
    source, target = _parse_any(src), _parse_any(dst)
    objects = _objects(state)
    renames: list[tuple[InstanceAddress, InstanceAddress]] = []
    if isinstance(source, tuple):
        if not isinstance(target, tuple):
            raise StateEditRefused(f"Cannot move module {src} to {dst}: a module moves to a module address",
                                   hint="Give a destination such as module.new_name.")
        for addr, _, _ in objects:
            if addr.module[: len(source)] == source:
                renames.append((addr, InstanceAddress(target + addr.module[len(source):], addr.mode, addr.type,
                                                      addr.name, addr.key)))
        taken = [a for a, _, _ in objects if a.module[: len(target)] == target]
    else:
        if isinstance(target, tuple):
            raise StateEditRefused(f"Cannot move {src} to module {dst}", hint="Give a resource address such as "
                                   f"{format_module(target)}.{source.type}.{source.name}.")
        if (source.mode, source.type) != (target.mode, target.type):
            raise StateEditRefused(
                f"Cannot move {src} to {dst}: the resource types differ",
                hint="A state move renames an object; it cannot turn it into another type of resource.")
        same_res = [(a, i) for a, _, i in objects if a.resource_key == source.resource_key]
        whole = source.key is None and not (len({i.index_key for _, i in same_res}) == 1 and
                                            all(i.index_key is None for _, i in same_res))
        if whole and target.key is not None:
            raise StateEditRefused(f"Cannot move the whole resource {src} to the instance address {dst}",
                                   hint="Move one instance at a time, or give a resource address.")
        for addr, _ in same_res:
            if whole or (addr.key == source.key and type(addr.key) is type(source.key)):
                key = addr.key if whole else target.key
                renames.append((addr, InstanceAddress(target.module, target.mode, target.type, target.name, key)))
        dst_keys = {str(new) for _, new in renames}
        taken = [a for a, _, _ in objects if (a.resource_key == target.resource_key if whole else str(a) in dst_keys)]
    if not renames:
        raise StateAddressNotFound(f"Cannot move {src}: it does not match anything in the state", hint=_LIST_HINT)
    if taken:
        raise StateEditRefused(f"Cannot move {src} to {dst}: {taken[0]} already exists in the state",
                               hint="Remove or move the existing object first (ctl state rm / ctl state mv).")
    by_address: dict[str, list[tuple[ResourceState, InstanceState]]] = {}
    for addr, res, inst in objects:
        by_address.setdefault(str(addr), []).append((res, inst))
    pairs = _unique((str(o), str(n)) for o, n in renames)  # a deposed object repeats its address
    for old, new in pairs:
        for res, inst in by_address[old]:
            state.remove_instance(old, inst.deposed)
            exists = state.resource(new) is not None
            state.set_instance(new, inst, provider=None if exists else res.provider)
    return pairs


def remove(state: State, addresses: list[str]) -> list[str]:
    """Forget every object under each address (instance, resource or module); the removed addresses.

    Every address must match something, or nothing is removed: a typo must not half-apply.
    """
    from engine.plan.targets import matches

    objects = _objects(state)
    chosen: list[tuple[InstanceAddress, InstanceState]] = []
    for pattern in addresses:
        _parse_any(pattern)
        hits = [(a, i) for a, _, i in objects if matches(str(a), pattern)]
        if not hits:
            raise StateAddressNotFound(f'No objects found for the address "{pattern}"',
                                       hint=f"Nothing was removed. {_LIST_HINT}")
        chosen += hits
    seen: set[tuple[str, str | None]] = set()
    for addr, inst in chosen:
        if (str(addr), inst.deposed) not in seen:
            seen.add((str(addr), inst.deposed))
            state.remove_instance(addr, inst.deposed)
    return _unique(str(a) for a, _ in chosen)


def _unique(items: Any) -> list[Any]:
    return list(dict.fromkeys(items))


def move_in_state(root_dir: Path, src: str, dst: str, lock: LockOptions, *, dry_run: bool = False
                  ) -> list[tuple[str, str]]:
    """``ctl state mv``: rename under the lock and persist (unless ``dry_run``)."""
    return _edit(root_dir, "OperationTypeStateMv", lock, lambda s: move(s, src, dst), dry_run=dry_run)


def remove_from_state(root_dir: Path, addresses: list[str], lock: LockOptions, *, dry_run: bool = False
                      ) -> list[str]:
    """``ctl state rm``: forget objects under the lock (the real objects are left alone)."""
    return _edit(root_dir, "OperationTypeStateRm", lock, lambda s: remove(s, addresses), dry_run=dry_run)


# -- pull and push ----------------------------------------------------------------------------------


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
    return state.to_json()


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
    pushed = State.from_json(data, source)
    store, workspace = open_backend(root_dir)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, "OperationTypeStatePush", lock):
        current = _load(manager, lock.enabled)
        if manager.lineage is None:
            store.write(workspace, pushed.to_json(), expected=manager.version)
            return PushResult(True, pushed.serial)
        same = pushed.copy()
        same.serial = current.serial
        identical = same.lineage == current.lineage and same.to_json() == current.to_json()
        if pushed.serial == current.serial and identical:
            return PushResult(False, current.serial)
        problem = _push_problem(pushed, current)
        if problem and not force:
            raise PushRefused(f"Refusing to push {source}: {problem}", detail=f"Stored state: {manager.source}.",
                              hint="Pull the current state with `ctl state pull` and start from it, or push "
                                   "with --force to overwrite it.")
        pushed.serial = max(pushed.serial, current.serial + 1)
        store.write(workspace, pushed.to_json(), expected=manager.version)
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


# -- locks ------------------------------------------------------------------------------------------


def lock(root_dir: Path, reason: str, timeout: float) -> LockInfo:
    """``ctl state lock``: acquire the workspace lock and leave it held for a wrapper to use."""
    store, workspace = open_backend(root_dir)
    # PID 0: the lock outlives this process on purpose, so it must not look "left behind" by it.
    taken = acquire_and_keep(store, workspace, "OperationTypeStateLock", reason, timeout, pid=0)
    return store.lock_info(workspace) or taken  # as stored (the store fills in Path)


def unlock(root_dir: Path, lock_id: str, *, force: bool = False) -> Unlocked:
    """``ctl state unlock``: release the lock with this ID (any ID with ``force``)."""
    store, workspace = open_backend(root_dir)
    return unlock_in(store, workspace, lock_id, force=force)


def lock_status(root_dir: Path) -> LockStatus:
    """The lock held on the selected workspace, if any, described for people and scripts."""
    store, workspace = open_backend(root_dir)
    return lock_status_in(store, workspace)


# -- history and rollback ---------------------------------------------------------------------------


class RollbackRefused(CtlError):
    """``state rollback`` cannot restore that version (no state, the current one, another lineage)."""


@dataclass(frozen=True)
class HistoryRow:
    """One state version in ``ctl state history``: a kept one, or the current document."""

    serial: int
    time: str  # when that version was written (RFC 3339); "" when the store cannot say
    who: str  # user@host that wrote it; "" when the store cannot say
    resources: int
    version: str  # the ctl (or Terraform) version that wrote it
    current: bool = False
    policy_override: str = ""  # the reason given to accept soft-mandatory policy failures, if any


def history(root_dir: Path) -> list[HistoryRow]:
    """``ctl state history``: every kept version of the selected workspace, then the current one."""
    store, workspace = open_backend(root_dir)
    return history_in(store, workspace)


def history_in(store: StateStore, workspace: str) -> list[HistoryRow]:
    """Kept versions oldest first, then the current document (not kept: it is the state itself)."""
    rows = [_row(e) for e in store.history(workspace)]
    current = store.current_entry(workspace)
    if current is not None:
        rows.append(_row(current, current=True))
    return rows


def _row(entry: HistoryEntry, *, current: bool = False) -> HistoryRow:
    return HistoryRow(entry.serial, entry.time, entry.who, entry.resources, entry.version, current=current,
                      policy_override=entry.policy_override)


@dataclass(frozen=True)
class StateDiff:
    """What replacing the current state by another version changes, as seen from the current one.

    ``added`` are objects the other version has and the current one does not (a rollback brings them
    back into the state), ``removed`` the reverse, ``changed`` objects present in both with the names
    of the attributes (or fields) that differ. Values are never listed: they may be secrets.
    """

    added: list[str]
    removed: list[str]
    changed: list[tuple[str, list[str]]]
    outputs_added: list[str]
    outputs_removed: list[str]
    outputs_changed: list[str]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.outputs_added
                    or self.outputs_removed or self.outputs_changed)


_FIELDS = ("schema_version", "sensitive_attributes", "dependencies", "create_before_destroy", "status",
           "private", "extra")
_MISSING = object()


def _objects_by_address(state: State) -> dict[str, tuple[str, InstanceState]]:
    """Every object (deposed ones under their own name) with its provider, by address."""
    return {str(addr) + (f" (deposed {inst.deposed})" if inst.deposed else ""): (res.provider, inst)
            for addr, res, inst in _objects(state)}


def _changed_fields(old: tuple[str, InstanceState], new: tuple[str, InstanceState]) -> list[str]:
    (old_provider, a), (new_provider, b) = old, new
    names = sorted(k for k in a.attributes.keys() | b.attributes.keys()
                   if a.attributes.get(k, _MISSING) != b.attributes.get(k, _MISSING))
    names += [f"({f})" for f in _FIELDS if getattr(a, f) != getattr(b, f)]
    if old_provider != new_provider:
        names.append("(provider)")
    return names


def state_diff(current: State, other: State) -> StateDiff:
    """The differences between ``current`` and ``other`` by object address and output name."""
    mine, theirs = _objects_by_address(current), _objects_by_address(other)
    changed = []
    for address in sorted(mine.keys() & theirs.keys()):
        fields = _changed_fields(mine[address], theirs[address])
        if fields:
            changed.append((address, fields))
    outs, other_outs = current.outputs, other.outputs
    return StateDiff(
        added=sorted(theirs.keys() - mine.keys()),
        removed=sorted(mine.keys() - theirs.keys()),
        changed=changed,
        outputs_added=sorted(other_outs.keys() - outs.keys()),
        outputs_removed=sorted(outs.keys() - other_outs.keys()),
        outputs_changed=sorted(k for k in outs.keys() & other_outs.keys() if outs[k] != other_outs[k]),
    )


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
        current = _load(manager, lock.enabled)
        if manager.lineage is None:
            raise RollbackRefused(f"There is no state at {manager.source} to roll back",
                                  hint="`ctl state history` lists the versions kept.")
        if serial == manager.serial:
            raise RollbackRefused(f"Serial {serial} is the current state; there is nothing to roll back",
                                  hint="`ctl state history` lists the versions kept.")
        source = f"{manager.source} (kept version, serial {serial})"
        target = State.from_json(store.read_history(workspace, serial), source)
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


# -- workspaces -------------------------------------------------------------------------------------


def workspaces(root_dir: Path) -> tuple[list[str], str]:
    """Every workspace of the backend and the selected one."""
    store, current = open_backend(root_dir)
    return store.workspaces(), current


def _not_overridden(root_dir: Path, name: str) -> None:
    import os

    env = os.environ.get("CTL_WORKSPACE") or os.environ.get("TF_WORKSPACE")
    if env and env != name:
        raise WorkspaceError(f'The selected workspace is set to "{env}" by the environment',
                             hint="Unset CTL_WORKSPACE/TF_WORKSPACE, or set it to the workspace you want.")


def new_workspace(root_dir: Path, name: str) -> None:
    """Create a workspace with an empty state (so it is listed at once) and select it."""
    from engine.session import check_workspace_name, select_workspace

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
    from engine.session import check_workspace_name, select_workspace

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
    held = acquire_and_keep(store, name, "OperationTypeWorkspaceDelete", "", lock_opts.timeout) \
        if lock_opts.enabled else None
    try:
        state = _load(manager_for(store, name, root_dir), False)
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


# -- import -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    address: str
    type: str
    attributes: dict[str, Any]  # sensitive values marked


def import_resource(root_dir: Path, address: str, resource_id: str, lock_opts: LockOptions, *,
                    var_args: list[tuple[str, str]] | None = None, prompt: Any = None) -> Imported:
    """``ctl import``: adopt an existing object at an address the configuration declares.

    The object is read through its adapter (``import_``, then a refresh that must find it) and
    stored with the provider and schema version a create would have recorded.
    """
    from adapters.registry import Registry
    from engine.errors import DiagnosticsError
    from engine.plan.diff import mark_sensitive
    from engine.providers import Providers
    from engine.validate import load_and_evaluate

    addr = InstanceAddress.parse(address)
    if addr.mode != "managed":
        raise ImportRefused(f"Cannot import {address}: only managed resources can be imported",
                            hint="Data sources are read on every plan; they need no import.")
    registry = Registry.discover()
    workspace = selected_workspace(root_dir)
    loaded = load_and_evaluate(root_dir, var_args=var_args, prompt=prompt, registry=registry,
                               workspace=workspace, require_all_variables=True)
    if loaded.diags.has_errors or loaded.root is None or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.items)
    path = tuple(name for name, _ in addr.module)
    resource = next((m.resources.get(f"{addr.type}.{addr.name}") for p, m in loaded.root.walk() if p == path),
                    None)
    if resource is None:
        raise ImportRefused(
            f'Resource address "{addr.resource_str}" does not exist in the configuration',
            detail=f'Before importing it, write its block in the configuration, for example:\n\n'
                   f'resource "{addr.type}" "{addr.name}" {{\n  # (resource arguments)\n}}',
            hint="Import adopts an object for a resource the configuration already declares.")
    declared = [i for insts in loaded.walk.instances.values() for i in insts if i.resource is resource]
    if not any(_declares(i.scope.key, i.key, addr) for i in declared):
        names = ", ".join(i.address for i in declared) or "no instances"
        raise ImportRefused(f"{address} is not an instance the configuration declares",
                            detail=f"The configuration declares: {names}.",
                            hint="Import to one of those addresses, or change count/for_each first.")
    rt = registry.resource_type(addr.type, "managed")
    assert rt is not None  # load_and_evaluate reports types no adapter provides
    providers = Providers(registry, loaded.walk.provider_configs, loaded.root.dir)
    store = open_store(root_dir, loaded.root)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, "OperationTypeImport", lock_opts):
        state = _load(manager, lock_opts.enabled)
        if state.instance(addr) is not None:
            raise ImportRefused(f"Resource already managed by ctl: {addr}",
                                detail="The state already holds an object at this address.",
                                hint=f"To import to this address, first remove it with `ctl state rm '{addr}'`.")
        ctx = providers.context(rt, str(addr), path, resource)
        try:
            attrs = rt.import_(ctx, resource_id)
            found = rt.read(ctx, attrs)
        except CtlError:
            raise
        except Exception as exc:  # an SDK failure: reported against the address
            raise ImportRefused(f"Importing {addr} failed: {exc}", address=str(addr),
                                hint="Check the ID and the adapter's import format.") from None
        if found is None:
            raise ImportRefused(f'Cannot import non-existent remote object: {addr.type} "{resource_id}"',
                                hint="Check that the object exists and that the ID is right.")
        marked = mark_sensitive(found, rt)
        state.set_instance(addr, InstanceState.from_marked(marked, schema_version=rt.schema_version),
                           provider=providers.state_provider(rt, resource))
        manager.persist(state)
    return Imported(str(addr), addr.type, marked)


def _declares(module_key: tuple[tuple[str, Any], ...], key: Any, addr: InstanceAddress) -> bool:
    """Does a configured instance (keys possibly not known yet) stand for ``addr``?"""
    from engine.config_walk import UnknownKey

    def same(declared: Any, given: Any) -> bool:
        return isinstance(declared, UnknownKey) or (declared == given and type(declared) is type(given))

    if len(module_key) != len(addr.module):
        return False
    steps = zip(module_key, addr.module, strict=True)
    return all(a == b and same(k, g) for (a, k), (b, g) in steps) and same(key, addr.key)


__all__ = [
    "ImportRefused", "Imported", "LockStatus", "PushRefused", "PushResult", "ShownInstance", "StateAddressNotFound",
    "StateEditRefused", "UnlockRefused", "WorkspaceError", "delete_workspace", "find_instance", "import_resource",
    "instance_json", "list_addresses", "lock", "lock_status", "move", "move_in_state", "new_workspace",
    "open_backend", "pull", "push", "read_state", "remove", "remove_from_state", "select", "unlock",
    "workspaces",
]
