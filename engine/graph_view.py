"""The instance-level dependency graph that ``ctl graph`` prints, as DOT or Mermaid.

The static graph has one node per declaration; a user wants to see the real instances
(``aws_s3_bucket.logs[0]``, ``module.net["a"].var.cidr``). Each static edge is expanded between
the instances that can see each other: the same module instance, its parent, or its children.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.graph import LOCAL, MODCALL, MODOUT, OUTPUT, PROVIDER, RESOURCE, VAR, Node
from engine.walk.addresses import ModKey, module_address
from engine.walk.config import ConfigWalk


@dataclass(frozen=True)
class InstanceGraph:
    nodes: dict[str, str]  # node id (address) -> kind
    edges: list[tuple[str, str]]  # (dependent, dependency)


def _label(mod: ModKey, node: Node) -> str:
    prefix = module_address(mod)
    prefix = prefix + "." if prefix else ""
    if node.kind in (VAR, LOCAL, OUTPUT):
        return f"{prefix}{node.kind}.{node.name}"
    if node.kind == MODCALL:
        return f"{prefix}module.{node.name} (expand)"
    if node.kind == MODOUT:
        return f"{prefix}module.{node.name} (close)"
    if node.kind == PROVIDER:
        return f"{prefix}provider.{node.name}"
    return f"{prefix}{node.name}"


def instance_graph(walk: ConfigWalk) -> InstanceGraph:
    """Expand the static graph of an evaluated configuration into instance nodes and edges."""
    graph = walk.graph
    ids: dict[Node, list[tuple[ModKey, str]]] = {}
    kinds: dict[str, str] = {}
    for node in graph.nodes:
        entries: list[tuple[ModKey, str]] = []
        if node.kind == RESOURCE:
            for inst in walk.instances.get(node, []):
                entries.append((inst.scope.key, inst.address))
        else:
            for scope in walk.scopes_at(node.path):
                entries.append((scope.key, _label(scope.key, node)))
        ids[node] = entries
        for _, ident in entries:
            kinds[ident] = "data" if node.kind == RESOURCE and node.name.startswith("data.") else node.kind
    edges: set[tuple[str, str]] = set()
    for node, deps in graph.deps.items():
        for edge in deps:
            for mod, ident in ids.get(node, []):
                for tmod, tident in ids.get(edge.target, []):
                    if _visible(mod, tmod):
                        edges.add((ident, tident))
    return InstanceGraph(kinds, sorted(edges))


def _visible(a: ModKey, b: ModKey) -> bool:
    """Instances in module instances ``a`` and ``b`` can be linked when one contains the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


_DOT_SHAPES = {RESOURCE: "box", "data": "box", VAR: "ellipse", LOCAL: "note", OUTPUT: "ellipse",
               MODCALL: "folder", MODOUT: "folder", PROVIDER: "diamond"}


def to_dot(g: InstanceGraph, colours: dict[str, str] | None = None) -> str:
    lines = ["digraph {", '  compound = "true"', '  newrank = "true"', "  rankdir = \"RL\""]
    for ident, kind in sorted(g.nodes.items()):
        attrs = f'label="{_esc(ident)}", shape="{_DOT_SHAPES.get(kind, "box")}"'
        if colours and ident in colours:
            attrs += f', style="filled", fillcolor="{colours[ident]}"'
        lines.append(f'  "{_esc(ident)}" [{attrs}]')
    for a, b in g.edges:
        lines.append(f'  "{_esc(a)}" -> "{_esc(b)}"')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(g: InstanceGraph, colours: dict[str, str] | None = None) -> str:
    ids = {ident: f"n{i}" for i, ident in enumerate(sorted(g.nodes))}
    lines = ["flowchart RL"]
    for ident, node_id in ids.items():
        text = ident.replace('"', "#quot;")
        kind = g.nodes[ident]
        shape = ('["', '"]') if kind in (RESOURCE, "data") else ('("', '")')
        lines.append(f"  {node_id}{shape[0]}{text}{shape[1]}")
        if colours and ident in colours:
            lines.append(f"  style {node_id} fill:{colours[ident]}")
    for a, b in g.edges:
        lines.append(f"  {ids[a]} --> {ids[b]}")
    return "\n".join(lines) + "\n"


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
