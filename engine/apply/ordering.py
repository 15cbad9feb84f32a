"""The order of deletes: an object is deleted only after everything that depends on it."""

from __future__ import annotations

from engine.graph import RESOURCE, Node
from engine.plan.hooks import static_address
from engine.plan.model import DELETE, ResourceChange
from engine.state.model import State

ApplyNode = tuple[str, str]


def ref_node(target: Node) -> ApplyNode:
    """The apply node a reference to ``target`` waits for: a resource's ``close``, anything else's ``eval``."""
    return ("close", str(target)) if target.kind == RESOURCE else ("eval", str(target))


def order_deletes(deps: dict[ApplyNode, set[ApplyNode]], changes: dict[str, ResourceChange], state: State) -> None:
    """A delete waits for the deletes of everything that depends on the object."""
    deleting = {a: c for a, c in changes.items() if DELETE in c.actions}
    users: dict[str, list[str]] = {}
    for addr in deleting:
        inst = state.instance(addr)
        # What state recorded, and what the configuration says now: an imported object has no
        # recorded dependencies, and its inline policy must still go before it.
        dependencies = set(changes[addr].dependencies)
        if inst is not None:
            dependencies.update(inst.dependencies)
        for dep in dependencies:
            users.setdefault(dep, []).append(addr)
    for addr in deleting:
        for user in users.get(static_address(addr), []):
            if user != addr:
                deps[("del", addr)].add(("del", user))
