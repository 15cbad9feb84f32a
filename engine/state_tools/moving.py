"""``ctl state mv`` and ``ctl state rm``: renaming and forgetting objects in the state.

Both refuse rather than half-apply: a rename never overwrites or changes an object's type, and a
removal with one address that matches nothing removes nothing at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.locking.options import LockOptions
from engine.state.address import InstanceAddress, format_module, parse_any
from engine.state.model import InstanceState, ResourceState, State
from engine.state_tools.access import edit_state
from engine.state_tools.addresses import LIST_HINT, StateAddressNotFound, state_objects
from vocab.errors import CtlError


class StateEditRefused(CtlError):
    """A ``state mv``/``rm`` would lose or overwrite an object, so nothing was changed."""


def move(state: State, src: str, dst: str) -> list[tuple[str, str]]:
    """Rename objects in ``state``: an instance, a whole resource or a module; (old, new) per instance.

    Refuses (changing nothing) when ``src`` matches nothing, when something already exists at
    ``dst``, or when the resource type or mode would change — a rename never destroys anything.
    """
    source, target = parse_any(src), parse_any(dst)
    objects = state_objects(state)
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
        raise StateAddressNotFound(f"Cannot move {src}: it does not match anything in the state", hint=LIST_HINT)
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

    objects = state_objects(state)
    chosen: list[tuple[InstanceAddress, InstanceState]] = []
    for pattern in addresses:
        parse_any(pattern)
        hits = [(a, i) for a, _, i in objects if matches(str(a), pattern)]
        if not hits:
            raise StateAddressNotFound(f'No objects found for the address "{pattern}"',
                                       hint=f"Nothing was removed. {LIST_HINT}")
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
    return edit_state(root_dir, "OperationTypeStateMv", lock, lambda s: move(s, src, dst), dry_run=dry_run)


def remove_from_state(root_dir: Path, addresses: list[str], lock: LockOptions, *, dry_run: bool = False
                      ) -> list[str]:
    """``ctl state rm``: forget objects under the lock (the real objects are left alone)."""
    return edit_state(root_dir, "OperationTypeStateRm", lock, lambda s: remove(s, addresses), dry_run=dry_run)


__all__ = ["StateEditRefused", "move", "move_in_state", "remove", "remove_from_state"]
