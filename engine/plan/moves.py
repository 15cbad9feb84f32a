"""``moved`` blocks: renaming objects in the prior state before planning, so a refactoring of the
configuration (a renamed resource or module call, a count turned into for_each, a resource moved
into or out of a module) never destroys and re-creates anything.

A statement names resources or module calls relative to the module that declares it. When both
ends carry no instance key it moves every instance, keys kept (``module.a`` -> ``module.b`` moves
``module.a[0]`` to ``module.b[0]``); otherwise it moves the one instance it names
(``module.a`` -> ``module.a[0]``). Chains are followed to their end; cycles, ambiguous statements, a
source still declared and mixed resource/module ends are refused with Terraform's messages; a destination already taken
in the state leaves the object where it is, with Terraform's warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config.model import Module, Moved
from engine.state.address import (
    AddressError,
    InstanceAddress,
    Key,
    ModulePath,
    format_key,
    format_module,
    parse_any,
)
from engine.state.model import State
from vocab.errors import Diagnostics, DiagnosticsError, SourceRange

_ANY = object()  # a key position that matches every key (a move of all instances)


@dataclass(frozen=True, slots=True)
class _End:
    """One end of a statement, made absolute: module steps and, for a resource, its identity."""

    module: ModulePath
    resource: tuple[str, str, str] | None  # (mode, type, name)
    key: Key  # the last step's key (the resource's, else the last module call's)

    def text(self, every: bool) -> str:
        """The address as Terraform shows it in messages; ``[*]`` for a move of every instance."""
        if self.resource is None:
            base = format_module((*self.module[:-1], (self.module[-1][0], None)))
            return base + ("[*]" if every else format_key(self.key))
        mode, type_, name = self.resource
        res = f"{'data.' if mode == 'data' else ''}{type_}.{name}"
        mod = format_module(self.module)
        base = f"{mod}.{res}" if mod else res
        return base + ("[*]" if every else format_key(self.key))


@dataclass(frozen=True, slots=True)
class _Statement:
    src: _End
    dst: _End
    every: bool  # neither end has a key: every instance moves, keys kept
    depth: int  # how deep the declaring module is: the steps both ends share
    block: Moved
    where: str  # "main.tf:2,1", as Terraform lists statements

    def label(self) -> str:
        return f"{self.where}: {self.src.text(self.every)} → {self.dst.text(self.every)}"


def _end(text: str, prefix: ModulePath) -> _End:
    parsed = parse_any(text)
    if isinstance(parsed, InstanceAddress):
        return _End(prefix + parsed.module, (parsed.mode, parsed.type, parsed.name), parsed.key)
    return _End(prefix + parsed, None, parsed[-1][1])


def _where(block: Moved) -> str:
    return _at(block.rng)


def statements(root: Module) -> list[_Statement]:
    """Every ``moved`` block of the configuration, checked; raises ``DiagnosticsError`` on bad ones."""
    diags = Diagnostics()
    out: list[_Statement] = []
    modules = dict(root.walk())
    for path, module in modules.items():
        prefix: ModulePath = tuple((name, None) for name in path)
        for block in module.moved:
            try:
                src, dst = _end(block.from_addr, prefix), _end(block.to_addr, prefix)
            except AddressError as err:
                diags.error('Invalid "moved" address', detail=err.summary, range=block.rng)
                continue
            if (src.resource is None) != (dst.resource is None):
                diags.error('Invalid "moved" addresses', range=block.rng,
                            detail='The "from" and "to" addresses must either both refer to resources or both '
                                   "refer to modules.")
                continue
            if src.resource is not None and dst.resource is not None and src.resource[:2] != dst.resource[:2]:
                diags.error("Resource type mismatch", range=block.rng,
                            detail=f"This statement declares a move from {block.from_addr} to {block.to_addr}, "
                                   "which is a resource of a different type.")
                continue
            every = src.key is None and dst.key is None
            stmt = _Statement(src, dst, every, len(path), block, _where(block))
            still = _declared(modules, src, every)
            if still is not None:
                kind, rng = still
                diags.error("Moved object still exists", range=block.rng,
                            detail=f"This statement declares a move from {block.from_addr}, but that {kind} is "
                                   f"still declared at {rng}.\n\nChange your configuration so that this "
                                   f"{'call' if kind == 'module call' else kind} will be declared as "
                                   f"{block.to_addr} instead.")
                continue
            if src.resource is None and every and dst.module[: len(src.module)] == src.module:
                diags.error('Invalid "moved" addresses', range=block.rng,
                            detail=f"Cannot move {block.from_addr} into itself: {block.to_addr} is inside it.")
                continue
            out.append(stmt)
    _check_ambiguous(out, diags)
    if not diags.has_errors:
        _check_cycles(out, diags)
    if diags.has_errors:
        raise DiagnosticsError(diags.items)
    return _ordered(out)


def _declared(modules: dict[tuple[str, ...], Module], src: _End, every: bool) -> tuple[str, str] | None:
    """Where the source of a move is still declared in the configuration, if it is (Terraform's
    "Moved object still exists"), as ``("module call" | "resource", "file:line,col")``."""
    steps = src.module if src.resource is not None else src.module[:-1]
    parent: tuple[str, ...] = ()
    for name, key in steps:
        call = modules[parent].module_calls.get(name) if parent in modules else None
        if call is None or (key is None) != (call.count is None and call.for_each is None):
            return None
        parent = (*parent, name)
    found = modules.get(parent)
    if found is None:
        return None
    if src.resource is None:
        name = src.module[-1][0]
        call = found.module_calls.get(name)
        if call is not None and (every or (src.key is None and call.count is None and call.for_each is None)):
            return "module call", _at(call.rng)
        return None
    mode, type_, rname = src.resource
    res = found.resources.get(f"{'data.' if mode == 'data' else ''}{type_}.{rname}")
    if res is not None and (every or (src.key is None and res.count is None and res.for_each is None)):
        return "resource", _at(res.rng)
    return None


def _at(rng: SourceRange) -> str:
    return f"{rng.filename}:{rng.start.line},{rng.start.column}"


def _node(end: _End, every: bool) -> tuple[object, ...]:
    key: object = _ANY if every else end.key
    return (end.module[:-1] if end.resource is None else end.module,
            end.module[-1][0] if end.resource is None else end.resource, key)


def _check_ambiguous(stmts: list[_Statement], diags: Diagnostics) -> None:
    """Two statements moving one thing to two places, or two things to one place: Terraform refuses
    both, since which object ends where would depend on their order."""
    by_src: dict[tuple[object, ...], _Statement] = {}
    by_dst: dict[tuple[object, ...], _Statement] = {}
    for s in stmts:
        what, whats = ("module call", "call") if s.src.resource is None else ("resource", "resource")
        first = by_src.setdefault(_node(s.src, s.every), s)
        if first is not s and _node(first.dst, first.every) != _node(s.dst, s.every):
            diags.error("Ambiguous move statements", range=s.block.rng,
                        detail=f"A statement at {first.where} declared that {first.block.from_addr} moved to "
                               f"{first.block.to_addr}, but this statement instead declares that it moved to "
                               f"{s.block.to_addr}.\n\nEach {what} can move to only one destination {whats}.")
            continue
        first = by_dst.setdefault(_node(s.dst, s.every), s)
        if first is not s and _node(first.src, first.every) != _node(s.src, s.every):
            diags.error("Ambiguous move statements", range=s.block.rng,
                        detail=f"A statement at {first.where} declared that {first.block.from_addr} moved to "
                               f"{first.block.to_addr}, but this statement instead declares that "
                               f"{s.block.from_addr} moved there.\n\nEach {what} can have moved from only one "
                               f"source {whats}.")


def _check_cycles(stmts: list[_Statement], diags: Diagnostics) -> None:
    nxt = {_node(s.src, s.every): s for s in stmts}
    reported: set[int] = set()
    for start in stmts:
        seen: list[_Statement] = []
        cur: _Statement | None = start
        while cur is not None and cur not in seen:
            seen.append(cur)
            cur = nxt.get(_node(cur.dst, cur.every))
        if cur is not None and id(cur) not in reported:
            cycle = seen[seen.index(cur):]
            reported.update(id(s) for s in cycle)
            diags.error("Cyclic dependency in move statements", range=cur.block.rng,
                        detail="The following chained move statements form a cycle, and so there is no final "
                               "location to move objects to:\n" + "\n".join(f"  - {s.label()}" for s in cycle)
                               + "\n\nA chain of move statements must end with an address that doesn't appear "
                               "in any other statements, and which typically also refers to an object still "
                               "declared in the configuration.")


def _ordered(stmts: list[_Statement]) -> list[_Statement]:
    """Statements in the order that follows chains: ``a -> b`` before ``b -> c``."""
    by_dst: dict[tuple[object, ...], list[_Statement]] = {}
    for s in stmts:
        by_dst.setdefault(_node(s.dst, s.every), []).append(s)
    done: list[_Statement] = []
    placed: set[int] = set()

    def place(s: _Statement) -> None:
        if id(s) in placed:
            return
        placed.add(id(s))
        for before in by_dst.get(_node(s.src, s.every), []):
            place(before)
        done.append(s)

    for s in stmts:
        place(s)
    return done


def _rename(addr: InstanceAddress, s: _Statement) -> InstanceAddress | None:
    """Where ``addr`` goes under ``s``, or None when the statement does not name it."""
    src, dst = s.src, s.dst
    if src.resource is None:
        n = len(src.module)
        if len(addr.module) < n:
            return None
        head = addr.module[:n]
        if any(a[0] != b[0] for a, b in zip(head, src.module, strict=True)):
            return None
        if any(a[1] != b[1] for a, b in zip(head[: n - 1], src.module[: n - 1], strict=True)
               if b[1] is not None):
            return None
        if not s.every and head[-1][1] != src.key:
            return None
        last = (dst.module[-1][0], head[-1][1] if s.every else dst.key)
        module = (*dst.module[:-1], last, *addr.module[n:])
        return InstanceAddress(_fill(module, head, s.depth), addr.mode, addr.type, addr.name, addr.key)
    if src.resource != (addr.mode, addr.type, addr.name) or len(addr.module) != len(src.module):
        return None
    if any(a[0] != b[0] or (b[1] is not None and a[1] != b[1]) for a, b in zip(addr.module, src.module, strict=True)):
        return None
    if not s.every and addr.key != src.key:
        return None
    mode, type_, name = dst.resource or src.resource
    return InstanceAddress(_fill(dst.module, addr.module, s.depth), mode, type_, name, addr.key if s.every else dst.key)


def _fill(module: ModulePath, actual: ModulePath, depth: int) -> ModulePath:
    """Keys of the declaring module's instance carried over (a statement in a module with count
    moves within each of its instances); only the first ``depth`` steps are the declaring module's."""
    return (*actual[:depth], *module[depth:])


def apply_moves(state: State, root: Module, diags: Diagnostics) -> tuple[State, dict[str, str]]:
    """Rename objects as the ``moved`` blocks say; returns the state and new -> old addresses.

    The caller's state is never changed: a copy is made when anything moves. A destination already
    in the state blocks its move (the object stays, so the plan destroys it) and a warning says so.
    """
    stmts = statements(root)
    if not stmts:
        return state, {}
    new: State | None = None
    previous: dict[str, str] = {}
    blocked: list[str] = []
    for s in stmts:
        cur = new if new is not None else state
        plan: list[tuple[InstanceAddress, InstanceAddress, str | None]] = []
        for addr, inst in cur.instances(include_deposed=True):  # a deposed object moves with its instance
            target = _rename(addr, s)
            if target is not None:
                plan.append((addr, target, inst.deposed))
        if not plan:
            continue
        moving = {str(a) for a, _, _ in plan}
        if any(str(t) not in moving and cur.instance(t) is not None for _, t, _ in plan):
            blocked.append(f"  - {s.block.from_addr} could not move to {s.block.to_addr}")
            continue
        if new is None:
            new = state.copy()
        for addr, target, deposed in plan:
            res = new.resource(addr)
            obj = new.remove_instance(addr, deposed)
            if obj is None:
                continue
            provider = res.provider if res is not None and new.resource(target) is None else None
            new.set_instance(target, obj, provider=provider)
            if deposed is None:
                old = previous.pop(str(addr), str(addr))
                if old != str(target):
                    previous[str(target)] = old
    if blocked:
        diags.warning("Unresolved resource instance address changes",
                      detail="ctl tried to adjust resource instance addresses in the prior state based on change "
                             "information recorded in the configuration, but some adjustments did not succeed due "
                             "to existing objects already at the intended addresses:\n" + "\n".join(blocked)
                             + "\n\nctl has planned to destroy these objects. If the proposed changes aren't "
                             "appropriate, first resolve the conflicts with the `ctl state` subcommands and then "
                             "create a new plan.")
    return (new if new is not None else state), previous


__all__ = ["apply_moves", "statements"]
