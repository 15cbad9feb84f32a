"""What replacing the current state by another version would change, by address and output name."""

from __future__ import annotations

from dataclasses import dataclass

from engine.state.model import InstanceState, State
from engine.state_tools.addresses import state_objects


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
            for addr, res, inst in state_objects(state)}


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


__all__ = ["StateDiff", "state_diff"]
