"""What the state tools share about addresses: parsing one given on the command line (a resource,
an instance or a module) and listing every object with its address, deposed ones included.
"""

from __future__ import annotations

from engine.state.address import InstanceAddress, parse_module
from engine.state.model import InstanceState, ResourceState, State
from vocab.errors import CtlError

LIST_HINT = "List the addresses in the state with `ctl state list`."


class StateAddressNotFound(CtlError):
    """An address given to a state command names nothing in the state."""


def state_objects(state: State) -> list[tuple[InstanceAddress, ResourceState, InstanceState]]:
    """Every object, deposed ones included, with its resource (for provider and moves)."""
    out = []
    for res in list(state.resources):
        module = parse_module(res.module or "")
        for inst in list(res.instances):
            out.append((InstanceAddress(module, res.mode, res.type, res.name, inst.index_key), res, inst))
    return out


__all__ = ["LIST_HINT", "StateAddressNotFound", "state_objects"]
