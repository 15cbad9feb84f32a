"""The static dependency graph of a configuration, and the order it is evaluated in.

One node per declared thing per module (variable, local, output, resource, data source, module
call, provider configuration); edges come from the references in its expressions and from
``depends_on``. As in Terraform, a module call is not one node: the call itself stands only for
its expansion (``count``, ``for_each``, ``depends_on``), each input is the child's variable node,
which depends on its own expression, and ``module.x.name`` depends on that one output. So two
modules may each take an output of the other without a cycle, as long as the values do not loop. Instances (``count``/``for_each``) are expanded later, while walking in this order,
because how many instances exist can itself depend on other nodes.

Resolving references here is also where "Reference to undeclared …" errors come from, each with the
position of the reference, and where a cycle is reported as ``a -> b -> a`` with the file:line of
every reference on it.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from engine.config.model import Module, Resource
from engine.lang import ast
from engine.lang.evaluation import name_suggestion
from engine.lang.references import Reference, references
from engine.lang.syntax import Body
from vocab.errors import Diagnostics, SourceRange
from vocab.positions import Located, as_range

ModPath = tuple[str, ...]

# Node kinds
VAR, LOCAL, OUTPUT, RESOURCE, MODCALL, MODOUT, PROVIDER, CHECK = (
    "var", "local", "output", "resource", "modcall", "modout", "provider", "check",
)

_CONTEXT_ROOTS = frozenset({"count", "each", "self", "path", "terraform"})
_PATH_ATTRIBUTES = frozenset({"module", "root", "cwd"})


def _suggesting(detail: str, near: str) -> str:
    """A detail with Terraform's suggestion after it, when there is one."""
    return f'{detail} Did you mean "{near}"?' if near else detail


def _leading(ref: Reference, count: int) -> SourceRange:
    """The range of ``ref``'s root and its first ``count`` names, read from the source (the whole
    reference where the source is not at hand or is written another way)."""
    rng = ref.rng
    text = rng.text
    if text is None:
        return rng
    start, end = rng.byte_span()
    pattern = re.escape(ref.root.encode()) + b"".join(
        rb"\s*\.\s*" + re.escape(str(part).encode()) for part in ref.parts[:count])
    found = re.compile(pattern).match(text.src, start, end)
    return SourceRange.in_text(text, start, found.end()) if found else rng


# ``Edge(...)`` calls a generated Python ``__new__`` that makes the tuple with this; ``Graph.depend``,
# making one per reference (several per resource), calls it directly.
_make = tuple.__new__


class Node(NamedTuple):
    """One declared thing in one module, hashed and compared by value.

    A named tuple, not a dataclass: a graph of 50,000 resources hashes and compares nodes about
    half a million times (every edge, every lookup by node), and a tuple does both in C, where a
    dataclass calls its generated Python ``__hash__``/``__eq__`` each time. Ordered as its fields
    are, by path, then kind, then name.
    """

    path: ModPath
    kind: str
    name: str

    def __str__(self) -> str:
        prefix = "".join(f"module.{p}." for p in self.path)
        if self.kind == RESOURCE:
            return prefix + self.name
        if self.kind == MODCALL:
            return f"{prefix}module.{self.name}"
        if self.kind == MODOUT:
            return f"{prefix}module.{self.name} (outputs)"
        if self.kind == PROVIDER:
            return f"{prefix}provider.{self.name}"
        return f"{prefix}{self.kind}.{self.name}"


class Edge(NamedTuple):
    target: Node
    at: Located | None  # where the reference is written (None for implicit edges)

    @property
    def rng(self) -> SourceRange | None:
        return None if self.at is None else as_range(self.at)


_Declared = TypeVar("_Declared")


@dataclass
class Graph:
    nodes: dict[Node, object] = field(default_factory=dict)  # node -> its config object
    deps: dict[Node, list[Edge]] = field(default_factory=dict)
    modules: dict[ModPath, Module] = field(default_factory=dict)
    cycle: list[tuple[Node, SourceRange | None]] | None = None  # set by build_graph
    _order: list[Node] | None = field(default=None, repr=False, compare=False)  # ``order``, until a change

    def declared(self, node: Node, kind: type[_Declared]) -> _Declared:
        """The configuration object of ``node``, which its kind says is a ``kind`` (a Variable for a
        ``var`` node, a Resource for a resource...): checked, so a walk reads it with its own type."""
        obj = self.nodes[node]
        if not isinstance(obj, kind):
            raise TypeError(f"{node} declares a {type(obj).__name__}, not a {kind.__name__}")
        return obj

    def add(self, node: Node, obj: object) -> None:
        self.nodes[node] = obj
        self.deps.setdefault(node, [])
        self._order = None

    def depend(self, node: Node, target: Node, at: Located | None) -> None:
        if target != node:
            self.deps[node].append(_make(Edge, (target, at)))
            self._order = None

    def release_edges(self) -> None:
        """Let go of the dependency edges, for a walk that has made its own order from them (an
        apply, as the configuration's last use): the edges are no longer read, and at scale they are
        a sizeable share of the apply's memory."""
        self.deps = {}

    def dependencies(self, node: Node) -> set[Node]:
        return {e.target for e in self.deps.get(node, ())}

    def order(self) -> list[Node]:
        """Topological order (dependencies first), ties broken by name for stable output.

        Worked out once for a finished graph: building it checks for a cycle with it, and the walk
        then follows it, so it is worked out once. The caller must not change it.
        """
        if self._order is None:
            self._order = self._topological()
        return self._order

    def _topological(self) -> list[Node]:
        """Kahn's algorithm, always taking the least ready node (by path, kind, name).

        Nodes are numbered in that order first, so the rest works on ints: the heap compares
        numbers, not nodes field by field, and the counts and users are lists, not dicts hashing
        a node for every edge. A node's number is its sorted position.
        """
        ranked = sorted(self.nodes)  # tuples: compared in C
        number = {n: i for i, n in enumerate(ranked)}
        indegree = [0] * len(ranked)
        users: list[list[int]] = [[] for _ in ranked]
        for n, edges in self.deps.items():
            i = number[n]
            for t in {number[e.target] for e in edges}:
                indegree[i] += 1
                users[t].append(i)
        ready = [i for i, d in enumerate(indegree) if d == 0]  # ascending: already a heap
        out: list[Node] = []
        while ready:
            i = heapq.heappop(ready)
            out.append(ranked[i])
            for u in users[i]:
                indegree[u] -= 1
                if indegree[u] == 0:
                    heapq.heappush(ready, u)
        return out

    def find_cycle(self) -> list[tuple[Node, SourceRange | None]] | None:
        """One cycle as [(node, where it references the next node), …], or None."""
        color: dict[Node, int] = {}
        for start in sorted(self.nodes):
            if color.get(start):
                continue
            stack: list[tuple[Node, Iterator[Edge]]] = [(start, iter(self.deps[start]))]
            path: list[Node] = [start]
            via: list[SourceRange | None] = []
            color[start] = 1
            while stack:
                node, it = stack[-1]
                edge = next(it, None)
                if edge is None:
                    color[node] = 2
                    stack.pop()
                    path.pop()
                    if via:
                        via.pop()
                    continue
                t = edge.target
                if color.get(t) == 1:
                    i = path.index(t)
                    cycle_nodes = path[i:]
                    cycle_rngs = [*via[i:], edge.rng]
                    return list(zip(cycle_nodes, cycle_rngs, strict=True))
                if not color.get(t) and t in self.deps:
                    color[t] = 1
                    stack.append((t, iter(self.deps[t])))
                    path.append(t)
                    via.append(edge.rng)
        return None


def build_graph(root: Module, diags: Diagnostics) -> Graph:
    """The dependency graph of the whole module tree; unresolved references become diagnostics."""
    g = Graph()
    for path, module in root.walk():
        g.modules[path] = module
        _add_module_nodes(g, path, module)
    for path, module in root.walk():
        _add_module_edges(g, path, module, diags)
    cycle = g.find_cycle() if len(g.order()) < len(g.nodes) else None
    g.cycle = cycle
    if cycle:
        names = " -> ".join(str(n) for n, _ in cycle) + f" -> {cycle[0][0]}"
        wheres = "; ".join(f"{n} refers to the next at {r}" for n, r in cycle if r is not None)
        first_rng = next((r for _, r in cycle if r is not None), None)
        diags.error(f"Cycle: {names}", detail=wheres, range=first_rng)
    return g


def _add_module_nodes(g: Graph, path: ModPath, module: Module) -> None:
    for node, declared in _declarations(path, module):
        g.add(node, declared)


def _add_module_edges(g: Graph, path: ModPath, module: Module, diags: Diagnostics) -> None:
    resolver = _Resolver(g, path, module, diags)
    if path:  # everything in a module instance exists once its call has been expanded
        call_node = Node(path[:-1], MODCALL, path[-1])
        for node, _ in _declarations(path, module):
            if node.kind != MODOUT:  # a call's outputs wait for their own call, not this one
                g.depend(node, call_node, None)
    for name, var in module.variables.items():
        node = Node(path, VAR, name)
        for v in var.validations:
            # A validation may only refer to its own variable (Terraform's rule before 1.9).
            resolver.link(node, [v.condition, v.error_message], allowed_roots=frozenset({"var"}))
    for name, local in module.locals.items():
        resolver.link(Node(path, LOCAL, name), [local.expr])
    for name, out in module.outputs.items():
        node = Node(path, OUTPUT, name)
        exprs = [out.expr, *out.depends_on]
        for c in out.preconditions:
            exprs += [c.condition, c.error_message]
        resolver.link(node, exprs)
    providers: dict[object, Node | None] = {}  # by what decides it: the resource's provider, else its type
    for addr, res in module.resources.items():
        node = Node(path, RESOURCE, addr)
        resolver.link(node, _resource_exprs(res), bound=_dynamic_iterators(res.body), counted=res.count is not None,
                      eached=res.for_each is not None)
        which = res.provider or res.type
        if which not in providers:
            providers[which] = _provider_node(g, path, res)
        prov = providers[which]
        if prov is not None:
            g.depend(node, prov, None)
    for name, call in module.module_calls.items():
        call_node = Node(path, MODCALL, name)
        counted, eached = call.count is not None, call.for_each is not None
        expansion = list(call.depends_on) + [a.expr for a in (call.count, call.for_each) if a is not None]
        resolver.link(call_node, expansion, counted=counted, eached=eached)
        child = module.children.get(name)
        for input_name, attr in call.inputs.items():  # each input feeds its own variable node
            if child is None:  # not loaded: nothing reads the inputs, so they order nothing
                target = Node(path, MODOUT, name)
            elif input_name in child.variables:
                target = Node((*path, name), VAR, input_name)
            else:
                target = call_node  # refused by the walk; its references are still checked
            resolver.link(target, [attr.expr], counted=counted, eached=eached)
        out_node = Node(path, MODOUT, name)
        g.depend(out_node, call_node, None)
        if child is not None:
            for out_name in child.outputs:
                g.depend(out_node, Node((*path, name), OUTPUT, out_name), None)
    for key, provider_config in module.providers.items():
        body = provider_config.body  # nested blocks too: a dynamic assume_role may read a module output
        resolver.link(Node(path, PROVIDER, key), list(_body_exprs(body)), bound=_dynamic_iterators(body))
    for name, check in module.checks.items():
        resolver.link(Node(path, CHECK, name), [e for a in check.asserts for e in (a.condition, a.error_message)])


def _declarations(path: ModPath, module: Module) -> Iterator[tuple[Node, object]]:
    """Every node one module declares (not its children's), with what it stands for."""
    yield from ((Node(path, VAR, name), v) for name, v in module.variables.items())
    yield from ((Node(path, LOCAL, name), v) for name, v in module.locals.items())
    yield from ((Node(path, OUTPUT, name), v) for name, v in module.outputs.items())
    yield from ((Node(path, RESOURCE, addr), v) for addr, v in module.resources.items())
    for name, call in module.module_calls.items():
        yield Node(path, MODCALL, name), call
        yield Node(path, MODOUT, name), call
    yield from ((Node(path, PROVIDER, key), v) for key, v in module.providers.items())
    yield from ((Node(path, CHECK, name), v) for name, v in module.checks.items())


def _provider_node(g: Graph, path: ModPath, res: Resource) -> Node | None:
    """The provider configuration a resource uses: its module's own, else the nearest ancestor's."""
    name = res.provider[0] if res.provider else res.provider_name
    alias = res.provider[1] if res.provider else None
    key = f"{name}.{alias}" if alias else name
    p = path
    while True:
        node = Node(p, PROVIDER, key)
        if node in g.nodes:
            return node
        if not p:
            return None
        p = p[:-1]


def _resource_exprs(res: Resource) -> list[ast.Expr]:
    exprs: list[ast.Expr] = list(_body_exprs(res.body))
    exprs += [a.expr for a in (res.count, res.for_each) if a is not None]
    exprs += res.depends_on
    lc = res.lifecycle
    exprs += lc.replace_triggered_by
    for c in (*lc.preconditions, *lc.postconditions):
        exprs += [c.condition, c.error_message]
    for p in res.provisioners:
        exprs += [a.expr for a in p.arguments().values()]
    return exprs


def _body_exprs(body: Body) -> Iterable[ast.Expr]:
    for attr in body.attributes.values():
        yield attr.expr
    for block in body.blocks:
        yield from _body_exprs(block.body)


def _dynamic_iterators(body: Body) -> frozenset[str]:
    """Names bound by ``dynamic`` blocks (the label, or ``iterator = name``) anywhere in a body."""
    names: set[str] = set()
    for block in body.blocks:
        if block.type == "dynamic" and block.labels:
            it = block.body.attr("iterator")
            name = block.labels[0]
            if it is not None and isinstance(it.expr, ast.ScopeTraversal):
                name = it.expr.root
            names.add(name)
        names |= _dynamic_iterators(block.body)
    return frozenset(names)


class _Resolver:
    """Turns the references of expressions in one module into graph edges, or into errors."""

    def __init__(self, g: Graph, path: ModPath, module: Module, diags: Diagnostics) -> None:
        self.g, self.path, self.module, self.diags = g, path, module, diags
        self.where = "module." + ".module.".join(path) if path else "the root module"
        # The nodes references name, one object each: at 50,000 resources, 100,000 references to a
        # few thousand nodes (``var.team`` in every resource) would otherwise each hold their own.
        self._shared: dict[tuple[str, str], Node] = {}

    def _node(self, kind: str, name: str) -> Node:
        key = (kind, name)
        node = self._shared.get(key)
        if node is None:
            node = self._shared[key] = Node(self.path, kind, name)
        return node

    def link(
        self,
        node: Node,
        exprs: Iterable[ast.Expr],
        *,
        bound: frozenset[str] = frozenset(),
        allowed_roots: frozenset[str] | None = None,
        counted: bool = False,
        eached: bool = False,
    ) -> None:
        for expr in exprs:
            for ref in references(expr):
                if ref.root in bound:
                    continue
                if allowed_roots is not None and ref.root not in allowed_roots:
                    self.diags.error(
                        "Invalid reference in variable validation",
                        detail="A validation condition may only refer to the variable being validated.",
                        range=ref.rng,
                    )
                    continue
                target = self.resolve(ref, counted=counted, eached=eached)
                if target is not None:
                    self.g.depend(node, target, ref._rng)

    def _module_output(self, name: str, rest: tuple[Any, ...]) -> Node:
        """``module.NAME.OUT`` (``module.NAME[KEY].OUT`` for an expanded call): that output's node;
        the whole module's outputs when the reference names none of them."""
        call = self.module.module_calls[name]
        child = self.module.children.get(name)
        if child is None:  # not loaded: its outputs are unknown once the call is expanded
            return Node(self.path, MODCALL, name)
        at = 1 if call.count is not None or call.for_each is not None else 0
        if child is not None and len(rest) > at and isinstance(rest[at], str) and rest[at] in child.outputs:
            return Node((*self.path, name), OUTPUT, rest[at])
        return Node(self.path, MODOUT, name)

    def _refuse(self, ref: Reference, summary: str, detail: str, *, leading: int | None = None) -> None:
        """A reference that resolves to nothing: an error at it (its range made only then), or, with
        ``leading``, at its root and that many names after it (a resource's address, not the
        attribute read from it), where Terraform points."""
        self.diags.error(summary, detail=detail, range=ref.rng if leading is None else _leading(ref, leading))

    def resolve(self, ref: Reference, *, counted: bool, eached: bool) -> Node | None:
        """The node ``ref`` reads, or None after an error worded as Terraform words it (summaries
        without the name, which the range shows; Terraform's suggestions within two edits)."""
        root, parts = ref.root, ref.parts
        m, err = self.module, self._refuse
        first = parts[0] if parts and isinstance(parts[0], str) else None
        if root in _CONTEXT_ROOTS:
            self._check_context(ref, first, counted=counted, eached=eached)
            return None
        if root == "var":
            if first is None or first not in m.variables:
                near = name_suggestion(first or "", m.variables)
                err(ref, "Reference to undeclared input variable",
                    detail=f'An input variable with the name "{first}" has not been declared. '
                           + (f'Did you mean "{near}"?' if near else
                              f'This variable can be declared with a variable "{first}" {{}} block.'))
                return None
            return self._node(VAR, first)
        if root == "local":
            if first is None or first not in m.locals:
                err(ref, "Reference to undeclared local value",
                    detail=_suggesting(f'A local value with the name "{first}" has not been declared.',
                                       name_suggestion(first or "", m.locals)))
                return None
            return self._node(LOCAL, first)
        if root == "module":
            if first is None or first not in m.module_calls:
                err(ref, "Reference to undeclared module",
                    detail=_suggesting(f'No module call named "{first}" is declared in {self.where}.',
                                       name_suggestion(first or "", m.module_calls)))
                return None
            return self._module_output(first, parts[1:])
        if root == "data":
            second = parts[1] if len(parts) > 1 and isinstance(parts[1], str) else None
            addr = f"data.{first}.{second}"
            if first is None or second is None or addr not in m.resources:
                err(ref, "Reference to undeclared resource", leading=2,
                    detail=f'There is no data resource "{first}" "{second}" definition in {self.where}.')
                return None
            return self._node(RESOURCE, addr)
        if first is None:
            err(ref, "Invalid reference",
                detail="A reference to a resource type must be followed by at least one attribute access, "
                       "specifying the resource name.")
            return None
        addr = f"{root}.{first}"
        if addr not in m.resources:
            err(ref, "Reference to undeclared resource", leading=1,
                detail=f'There is no managed resource "{root}" "{first}" definition in {self.where}.')
            return None
        return self._node(RESOURCE, addr)

    def _check_context(self, ref: Reference, first: str | None, *, counted: bool, eached: bool) -> None:
        """``count``, ``each``, ``path`` and ``terraform`` where they cannot be read, or naming what
        they do not have; ``self`` is checked where it is evaluated, which knows the block."""
        root, err = ref.root, self._refuse
        if root == "count" and not counted:
            err(ref, 'Reference to "count" in non-counted context',
                detail='The "count" object can only be used in "module", "resource", and "data" blocks, and only '
                       'when the "count" argument is set.')
        elif root == "each" and not eached:
            err(ref, 'Reference to "each" in context without for_each',
                detail='The "each" object can be used only in "module" or "resource" blocks, and only when the '
                       '"for_each" argument is set.')
        elif root == "path" and first is not None and first not in _PATH_ATTRIBUTES:
            err(ref, 'Invalid "path" attribute', leading=1,
                detail=f'The "path" object does not have an attribute named "{first}".')
        elif root == "terraform" and first is not None and first != "workspace":
            err(ref, 'Invalid "terraform" attribute', leading=1,
                detail=f'The "terraform" object does not have an attribute named "{first}". The only supported '
                       "attribute is terraform.workspace, the name of the currently-selected workspace.")
