"""Making a plan: configuration + refreshed state -> the changes that would reconcile them.

1. Load and evaluate the configuration once to get provider configurations (validate mode).
2. Apply ``moved`` blocks to the state (renames, never destroy and re-create).
3. Refresh every object in state through its adapter, concurrently (unless ``--refresh=false``).
4. Walk the configuration again in plan mode: each instance is diffed against its prior object.
5. Objects in state that the configuration no longer has are planned for deletion.
6. Root outputs are compared with the state's.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adapters.registry import Registry
from engine.config.loader import config_files, load_config
from engine.config.model import Module, Resource, Variable
from engine.config.removals import Removals
from engine.graph import RESOURCE, Graph, Node
from engine.lang.references import forget_remembered
from engine.lang.syntax import ReleasedBody
from engine.limiter import Limiter
from engine.plan.config_view import configuration
from engine.plan.diff import equal
from engine.plan.hooks import PlanHooks, static_address
from engine.plan.imports import adopt, import_targets
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_FORGET,
    ACTIONS_NOOP,
    ACTIONS_UPDATE,
    OutputChange,
    Plan,
    ResourceChange,
)
from engine.plan.refresh import RefreshEvents, ResourceLookup, config_key, refresh
from engine.plan.targets import Selection, check_addresses
from engine.plugins.functions import resolver as functions_resolver
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.gc_pause import gc_paused_then_frozen
from engine.state.model import OutputValue, State, output_type
from engine.telemetry.timings import Timings
from engine.validate import Loaded, load_and_evaluate
from vocab.errors import CtlError, Diagnostic, Diagnostics, DiagnosticsError
from vocab.types import plain_data
from vocab.values import SENSITIVE, contains_unknown, deep_unmark, mark, unmark

_log = logging.getLogger(__name__)

@dataclass
class PlanOptions:
    mode: str = "normal"  # "normal" | "destroy" | "refresh-only"
    refresh: bool = True
    targets: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    var_args: list[tuple[str, str]] = field(default_factory=list)
    prompt: Callable[[Variable], str] | None = None
    environ: Mapping[str, str] | None = None
    workspace: str = "default"
    # Whether the caller reads the plan as a document once made (saves it: ``--out``). When not,
    # and no user policy may read it whole either, ``plan_only`` lets go of the syntax the plan
    # walk does not read again.
    read_as_document: bool = True
    # The timing report's recorder (``--timings``); None when not asked for, and nothing is timed.
    timings: Timings | None = None


@dataclass
class PlanResult:
    plan: Plan
    diags: Diagnostics
    timings: dict[str, float]
    graph: Graph
    root: Module


def config_hash(root: Module) -> str:
    """A hash of every configuration file of every module: a saved plan needs the same files."""
    h = hashlib.sha256()
    for _, module in root.walk():
        for p in config_files(module.dir):
            h.update(str(p.relative_to(root.dir) if p.is_relative_to(root.dir) else p).encode())
            h.update(b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


@gc_paused_then_frozen
def make_plan(
    root_dir: Path,
    state: State,
    stored_lineage: str,
    stored_serial: int,
    opts: PlanOptions,
    registry: Registry | None = None,
    *,
    first: Loaded | None = None,
    events: RefreshEvents | None = None,
    limiter: Limiter | None = None,
) -> PlanResult:
    """Compute a plan; configuration errors raise ``DiagnosticsError`` with every problem found.

    ``first`` is the configuration already loaded and evaluated in validate mode (the caller needed
    it to find the backend); it is loaded here when not given. ``events`` follows the refresh (see
    ``refresh``), so a progress view can show it. ``limiter`` is the run's one concurrency limit
    (``-parallelism``), taken by the refresh, the imports and the plan walk alike; without one, the
    plan has a limit of its own at the default parallelism.
    """
    limiter = limiter or Limiter()
    check_addresses("--target", opts.targets)
    check_addresses("--exclude", opts.excludes)
    check_addresses("--replace", opts.replace, modules=False)
    if registry is None:
        from engine.plugins.registry import registry_for

        registry = registry_for(root_dir)
    timings: dict[str, float] = {}
    if first is None:
        first = load_and_evaluate(root_dir, var_args=opts.var_args, environ=opts.environ, prompt=opts.prompt,
                                  registry=registry, workspace=opts.workspace, require_all_variables=True)
    timings.update(first.timings)
    if first.diags.has_errors or first.walk is None or first.graph is None or first.root is None:
        raise DiagnosticsError(first.diags.items)
    root, graph, walk0 = first.root, first.graph, first.walk
    warnings = first.diags.warnings()
    root_vars = dict(walk0.root_vars)

    t = time.perf_counter()
    prior, previous = apply_moved(state, root, warnings)
    config_of = config_lookup(root)
    providers = Providers(registry, walk0.provider_configs, root.dir, timings=opts.timings)
    try:
        diags = Diagnostics()
        drift: list[ResourceChange] = []
        if opts.refresh and not prior.is_empty:
            prior, drift = refresh(prior, registry, providers, config_of, diags, limiter, events)
            if diags.has_errors:
                raise DiagnosticsError(diags.items)
        importing: dict[str, str] = {}
        if opts.mode == "normal" and any(m.imports for _, m in root.walk()):
            targets = import_targets(root, walk0.scopes[()][0].ctx, diags)
            prior = _own(prior, state)
            importing = adopt(targets, prior, registry, providers, diags, limiter)
            if diags.has_errors:
                raise DiagnosticsError(diags.items)
        timings["refresh"] = time.perf_counter() - t

        t = time.perf_counter()
        instance_nodes = _instance_nodes(walk0)
        selection = Selection(graph, instance_nodes, opts.targets, opts.excludes) if (opts.targets or opts.excludes) else None
        hooks = PlanHooks(registry, diags, graph=graph, prior=prior, providers=providers, mode=opts.mode,
                          replace=opts.replace, selection=selection, previous_addresses=previous,
                          resource_deps=resource_dependencies(graph), limiter=limiter,
                          timings=opts.timings)
        from engine.lang.templatefile import render
        from engine.walk.config import ConfigWalk

        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        walk = ConfigWalk(graph, root_vars, diags, root_dir=root.dir, workspace=opts.workspace, hooks=hooks,
                          plan_mode=True, plan_timestamp=stamp, render_template=render,
                          provider_function=functions_resolver(registry), earlier=walk0)
        walk.run()
        if diags.has_errors:
            raise DiagnosticsError([*warnings, *diags.items])
        changes = dict(hooks.changes)
        if opts.mode != "refresh-only":
            _plan_orphans(prior, hooks.visited, changes, config_of, selection, opts.mode, Removals(root))
            _warn_forgotten(changes, diags)
            _plan_deposed(prior, changes, selection)
        if hooks.data_reads:
            prior = _own(prior, state)
        for addr, obj in hooks.data_reads.items():
            prior.set_instance(addr, obj)
        for addr, import_id in importing.items():
            if addr in changes:
                changes[addr].importing_id = import_id
        outputs = _output_changes(prior, walk.root_outputs, opts.mode)
        planned_hash = config_hash(root)
        timings["plan"] = time.perf_counter() - t
        for phase, seconds in timings.items():
            _log.info("plan phase %s took %.3fs", phase, seconds, extra={"phase": phase, "seconds": round(seconds, 6)})
        plan = Plan(
            changes=sorted(changes.values(), key=lambda c: (_sort_key(c.address), c.deposed or "")),
            drift=drift,
            outputs=outputs,
            prior_state=prior,
            lineage=stored_lineage,
            serial=stored_serial,
            config_hash=planned_hash,
            variables={k: mark(plain_data(v)) if root.variables[k].sensitive else plain_data(v)
                       for k, v in root_vars.items()},
            workspace=opts.workspace,
            mode=opts.mode,
            timestamp=stamp,
            targets=list(opts.targets),
            excludes=list(opts.excludes),
            # Built when first asked (a user policy, JSON output, a saved plan): most plans never are.
            configuration_later=functools.partial(_configuration, root, registry, planned_hash),
        )
        seen = {(d.summary, str(d.range), d.detail) for d in diags.items}  # the plan walk re-checks what the
        diags.extend(w for w in warnings if (w.summary, str(w.range), w.detail) not in seen)  # first one did
        diags.extend(providers.take_warnings())  # what the providers warned about, shown with the plan
        return PlanResult(plan, diags, timings, graph, root)
    finally:
        providers.close()  # the provider processes the plan started (an apply starts its own)


def let_go_of_taken_over_syntax(loaded: Loaded) -> None:
    """Let go of the arguments' syntax of every resource whose evaluated arguments a plan walk
    takes over from this validate walk (``ConfigWalk.stable_resources``): it reads them no more.
    For a plan nobody reads as a document afterwards (``PlanOptions.read_as_document``), before
    the state is loaded beside it, where it would add to a no-change re-plan's peak."""
    assert loaded.walk is not None and loaded.graph is not None
    for node in loaded.walk.stable_resources():
        loaded.graph.declared(node, Resource).release_body()
    forget_remembered()  # its memo holds every expression it saw


def _configuration(root: Module, registry: Registry, planned_hash: str) -> dict[str, Any]:
    """The plan's "configuration" view, made when first asked. When some resources' syntax was let
    go of (``let_go_of_taken_over_syntax``) yet the view is asked for after all, it is made from
    the configuration loaded again, which must still be the one planned."""
    released = any(isinstance(res.body, ReleasedBody) for _, module in root.walk() for res in module.resources.values())
    if not released:
        return configuration(root, registry)
    again, diags = load_config(root.dir)
    if diags.has_errors or config_hash(again) != planned_hash:
        raise CtlError("The configuration changed while it was being planned",
                       hint="Run the plan again: it must describe the configuration as it is now.")
    return configuration(again, registry)


def _own(prior: State, state: State) -> State:
    """``prior``, to add to: a copy when it is still the caller's ``state`` (moves and refresh give
    it back as it is when nothing changed), which a plan never changes."""
    return state.copy() if prior is state else prior


def _sort_key(address: str) -> tuple[Any, ...]:
    return (address.count("module."), address)


def apply_moved(state: State, root: Module, warnings: list[Diagnostic] | None = None
                ) -> tuple[State, dict[str, str]]:
    """Rename objects as the configuration's ``moved`` blocks say (resources and module calls, into
    and out of modules); returns new -> old addresses. A move blocked by an object already at its
    destination is added to ``warnings``; a bad statement raises ``DiagnosticsError``."""
    from engine.plan.moves import apply_moves

    diags = Diagnostics()
    moved = apply_moves(state, root, diags)
    if warnings is not None:
        warnings.extend(diags.items)
    return moved


def config_lookup(root: Module) -> ResourceLookup:
    """Every resource block by (module path, "type.name"), to find an instance's configuration."""
    out: ResourceLookup = {}
    for path, module in root.walk():
        for addr, res in module.resources.items():
            out[(path, addr)] = res
    return out


def _instance_nodes(walk: Any) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for node, insts in walk.instances.items():
        for inst in insts:
            out[inst.address] = node
    return out


def resource_dependencies(graph: Graph) -> dict[Node, list[str]]:
    """For each resource node, the resources it depends on (through locals, modules and other
    resources: transitively, as Terraform records them, so a state moves between the two tools
    with the same ``dependencies``), by address, sorted.

    A chain of resources makes these lists grow with the square of its length, so they are built to
    hold as little as that allows: each address is one string shared by every list naming it, a
    node whose dependencies are those of one other node shares that node's list, and no set outlives
    the union it was made for. The lists are shared: never changed by a reader."""
    names: dict[Node, str] = {}
    memo: dict[Node, list[str]] = {}
    return {node: _resources_under(graph, node, memo, names) for node in graph.nodes if node.kind == RESOURCE}


def _resources_under(graph: Graph, node: Node, memo: dict[Node, list[str]], names: dict[Node, str]) -> list[str]:
    """The addresses of the resources ``node`` depends on, directly or through other nodes. A
    function of the module, not a closure calling itself: that would be a reference cycle holding
    ``memo`` until a collection that, with the plan frozen, never comes."""
    found = memo.get(node)
    if found is not None:
        return found
    memo[node] = []  # cycles were rejected earlier; this guards recursion anyway
    parts: list[list[str]] = []
    for e in graph.deps.get(node, ()):
        t = e.target
        under = _resources_under(graph, t, memo, names)
        if t.kind == RESOURCE:
            name = names.get(t)
            if name is None:
                name = names[t] = str(t)
            parts.append([name])
        if under:
            parts.append(under)
    if not parts:
        result: list[str] = []
    elif len(parts) == 1 or all(p is parts[0] for p in parts):
        result = parts[0]  # the one list this node's dependencies are: shared, not copied
    else:
        result = sorted(set().union(*parts))
    memo[node] = result
    return result


def _plan_orphans(prior: State, visited: set[str], changes: dict[str, ResourceChange],
                  config_of: ResourceLookup, selection: Selection | None, mode: str,
                  removals: Removals | None = None) -> None:
    for addr, inst in prior.instances():
        text = str(addr)
        if text in visited or addr.mode != "managed":
            continue
        if selection is not None and not selection.allows(text, None):
            continue
        res_cfg: Resource | None = config_of.get(config_key(addr))
        if res_cfg is None:
            reason = "delete_because_no_resource_config"
            if addr.module and not _module_declared(addr, config_of):
                reason = "delete_because_no_module"
        elif res_cfg.count is not None:
            reason = "delete_because_count_index"
        elif res_cfg.for_each is not None:
            reason = "delete_because_each_key"
        else:
            reason = "delete_because_wrong_repetition"
        res = prior.resource(addr)
        rule = removals.rule_for(*config_key(addr)) if removals is not None and res_cfg is None else None
        forget = rule is not None and not rule.destroy and mode != "destroy"
        changes[text] = ResourceChange(
            address=text, module_address=addr.module_str, mode=addr.mode, type=addr.type, name=addr.name,
            index=addr.key, provider=res.provider if res else "", actions=ACTIONS_FORGET if forget else ACTIONS_DELETE,
            before=inst.marked_attributes(), after=None, action_reason=None if forget else reason,
            dependencies=list(inst.dependencies),
        )
        if res_cfg is not None and res_cfg.lifecycle.prevent_destroy and mode != "destroy":
            raise CtlError("Instance cannot be destroyed",
                           detail=f"{text} has lifecycle.prevent_destroy set, but the plan would destroy it.",
                           range=res_cfg.rng, address=text)


def _warn_forgotten(changes: dict[str, ResourceChange], diags: Diagnostics) -> None:
    """Objects a ``removed { destroy = false }`` block lets go of are named once, before apply."""
    forgotten = sorted(c.address for c in changes.values() if c.actions == ACTIONS_FORGET)
    if forgotten:
        diags.warning(
            "Some objects will no longer be managed by ctl",
            detail="Applying this plan drops these objects from the state and leaves them as they are:\n"
                   + "\n".join(f"  - {a}" for a in forgotten)
                   + "\n\nTo manage them again later, import them.",
        )


def _plan_deposed(prior: State, changes: dict[str, ResourceChange], selection: Selection | None) -> None:
    """Every deposed object (left by an interrupted create-before-destroy) is destroyed, as Terraform does."""
    for addr, inst in prior.deposed_instances():
        text = str(addr)
        if selection is not None and not selection.allows(text, None):
            continue
        res = prior.resource(addr)
        changes[f"{text} deposed {inst.deposed}"] = ResourceChange(
            address=text, module_address=addr.module_str, mode=addr.mode, type=addr.type, name=addr.name,
            index=addr.key, provider=res.provider if res else "", actions=ACTIONS_DELETE,
            before=inst.marked_attributes(), after=None, dependencies=list(inst.dependencies),
            schema_version=inst.schema_version, deposed=inst.deposed,
        )


def _module_declared(addr: InstanceAddress, config_of: ResourceLookup) -> bool:
    path = tuple(n for n, _ in addr.module)
    return any(p[: len(path)] == path for p, _ in config_of)


def _planned_type(typed: Any, stored: OutputValue | None, actions: tuple[str, ...]) -> Any:
    """The type ``show -json`` gives a planned output, as both references' plan files keep it: a
    changed output's is its new value's, nulls keeping theirs (``tostring(null)`` is a ``string``,
    ``{a = tostring(null)}`` an ``object({a: string})``); an unchanged one's is its recorded value's,
    since their plan files record only the prior value of a no-op, so a null output that was absent
    is ``dynamic`` whatever its type. None while unknown."""
    if contains_unknown(typed):
        return None
    if actions == ACTIONS_NOOP:
        if stored is None or stored.value is None:
            return "dynamic"
        if stored.type is not None:
            return stored.type
    plain, _ = deep_unmark(typed)
    return output_type(plain)


def _output_changes(prior: State, outputs: dict[str, tuple[Any, bool]], mode: str) -> dict[str, OutputChange]:
    out: dict[str, OutputChange] = {}
    if mode == "destroy":
        for name, old in prior.outputs.items():
            before = mark(old.value) if old.sensitive else old.value
            out[name] = OutputChange(name, ACTIONS_DELETE, before, None, old.sensitive)
        return out
    for name, (typed, sensitive) in outputs.items():
        value = plain_data(typed)  # a plan holds values; their types go beside them
        stored = prior.outputs.get(name)
        if stored is None:  # absent is null: a null output is not created, as in both references
            actions = ACTIONS_NOOP if unmark(value)[0] is None else ACTIONS_CREATE
            out[name] = OutputChange(name, actions, None, value, sensitive, _planned_type(typed, None, actions))
            continue
        before = mark(stored.value, frozenset({SENSITIVE})) if stored.sensitive else stored.value
        actions = ACTIONS_NOOP if equal(before, value) else ACTIONS_UPDATE
        out[name] = OutputChange(name, actions, before, value, sensitive, _planned_type(typed, stored, actions))
    for name, old in prior.outputs.items():
        if name not in outputs:
            out[name] = OutputChange(name, ACTIONS_DELETE, old.value, None, old.sensitive)
    return out


__all__ = ["PlanOptions", "PlanResult", "make_plan", "resource_dependencies", "static_address"]
