"""``--target`` and ``--exclude``: which resource instances a plan may touch.

A target selects matching instances plus everything they depend on; an exclude removes matching
instances plus everything that depends on them. Matching is by address prefix on Terraform's
syntax: ``aws_s3_bucket.logs`` matches every instance of it, ``module.net`` everything inside.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.graph import RESOURCE, Graph, Node
from engine.state.address import AddressError, InstanceAddress, parse_module
from vocab.errors import UsageError


def check_addresses(option: str, patterns: list[str], *, modules: bool = True) -> None:
    """Refuse a malformed address given to ``option``: matched as a prefix, it would select nothing.

    ``--target``/``--exclude`` take a resource, an instance or a module (``modules``); ``--replace``
    takes a resource instance.
    """
    for pattern in patterns:
        try:
            InstanceAddress.parse(pattern)
        except AddressError as exc:
            try:
                if not modules:
                    raise
                parse_module(pattern)
            except AddressError:
                raise UsageError(f"Invalid {option} address {pattern!r}", detail=exc.summary,
                                 hint=exc.hint) from None


def matches(address: str, pattern: str) -> bool:
    """Does ``address`` fall under ``pattern`` (itself, one of its instances, or inside a module)?"""
    if address == pattern:
        return True
    if address.startswith(pattern):
        nxt = address[len(pattern)]
        return nxt in "[."
    return False


def resource_closure(graph: Graph, nodes: Iterable[Node], *, upward: bool) -> set[Node]:
    """Resource nodes reachable from ``nodes``: dependencies (upward) or dependents (downward)."""
    if upward:
        edges = {n: [e.target for e in es] for n, es in graph.deps.items()}
    else:
        edges = {n: [] for n in graph.nodes}
        for n, es in graph.deps.items():
            for e in es:
                edges[e.target].append(n)
    seen: set[Node] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(edges.get(n, ()))
    return {n for n in seen if n.kind == RESOURCE}


class Selection:
    """Decides, per instance, whether the plan may change it."""

    def __init__(self, graph: Graph, instance_nodes: dict[str, Node], targets: list[str], excludes: list[str]):
        self.targets = targets
        self.excludes = excludes
        self.active = bool(targets or excludes)
        users: dict[Node, list[Node]] = {}
        for n, es in graph.deps.items():
            for e in es:
                users.setdefault(e.target, []).append(n)
        hit_t = {n for a, n in instance_nodes.items() if any(matches(a, t) for t in targets)}
        # what the targets depend on (not the other instances of a targeted resource)
        dep_starts = [e.target for n in hit_t for e in graph.deps.get(n, ())]
        self.needed = resource_closure(graph, dep_starts, upward=True)
        hit_x = {n for a, n in instance_nodes.items() if any(matches(a, x) for x in excludes)}
        user_starts = [u for n in hit_x for u in users.get(n, ())]
        self.blocked = resource_closure(graph, user_starts, upward=False)

    def allows(self, address: str, node: Node | None) -> bool:
        if not self.active:
            return True
        targeted = not self.targets or any(matches(address, t) for t in self.targets)
        if not targeted and (node is None or node not in self.needed):
            return False
        if self.excludes:
            if any(matches(address, x) for x in self.excludes):
                return False
            if node is not None and node in self.blocked:
                return False
        return True
