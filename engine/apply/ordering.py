"""What each apply node waits for: the configuration's dependencies, and the order of deletes (an
object is deleted only after everything that depends on it)."""

from __future__ import annotations

from engine.graph import RESOURCE, Graph, Node
from engine.plan.hooks import static_address
from engine.plan.model import DELETE, ResourceChange
from engine.state.model import State

ApplyNode = tuple[str, str]  # (kind, name): ("op", address), ("del", address), ("eval", str(Node)) …


def ref_node(target: Node) -> ApplyNode:
    """The apply node a reference to ``target`` waits for: a resource's ``close``, anything else's ``eval``."""
    return ("close", str(target)) if target.kind == RESOURCE else ("eval", str(target))


def configuration_waits(graph: Graph, changes: dict[str, ResourceChange]) -> dict[ApplyNode, set[ApplyNode]]:
    """The graph's edges as apply nodes: a resource's ``expand`` waits for what it refers to, its
    ``close`` for its expansion and its instances' operations, anything else's ``eval`` for what
    it refers to."""
    deps: dict[ApplyNode, set[ApplyNode]] = {}
    by_resource: dict[str, list[str]] = {}
    for addr in changes:
        by_resource.setdefault(static_address(addr), []).append(addr)
    # One apply node per target, not per edge: at 50,000 resources a hundred thousand edges name a
    # few thousand targets (``var.team`` from every resource), and these tuples live through the
    # whole apply (made one per edge, they were a visible part of its peak).
    refs: dict[Node, ApplyNode] = {}
    for node, edges in graph.deps.items():
        targets = set()
        for e in edges:
            ref = refs.get(e.target)
            if ref is None:
                ref = refs[e.target] = ref_node(e.target)
            targets.add(ref)
        name = str(node)
        if node.kind == RESOURCE:
            expand = ("expand", name)
            deps[expand] = targets
            close = {expand}
            for addr in by_resource.get(name, []):
                if changes[addr].actions != (DELETE,):
                    close.add(("op", addr))
            deps[("close", name)] = close
        else:
            deps[("eval", name)] = targets
    return deps


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
