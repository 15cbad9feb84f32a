"""Applying a plan: every operation as soon as what it depends on is done, and never losing one.

The apply graph holds three kinds of node besides the operations themselves:
``eval`` (a variable, local, output or module call, evaluated with the *final* values of what it
refers to), ``expand`` (a resource's instances and their arguments, evaluated once everything they
reference is applied), and ``close`` (publishing a resource's results to the expressions that refer
to it). Operations: ``op`` (create, update or read) and ``del`` (delete, also the first half of a
replacement). The concurrent walker runs them; its owner thread is the only writer of the state.

Before an operation starts, an intent is appended (fsync'd) to the journal; when it ends, its
result (fsync'd once per batch of results, before anything else starts). A crash in between leaves
an intent without a result, which the next run reports. The full state is written at the end (and
compacted once the journal since the last snapshot has 1,000 entries or 30 s behind it and is as
large as that snapshot), so the bytes written grow linearly with the number of operations.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from adapters.base import PartialResult
from adapters.registry import Registry
from engine import schema
from engine.apply.finish import ApplyResult, PostconditionFailed, errored, summarize, warn_possibly_done
from engine.apply.ordering import ApplyNode, configuration_waits, order_deletes
from engine.apply.provisioners import ResourceProvisioners, destroy_context, run_all
from engine.apply.values import identity, known, op_of, remark
from engine.apply.walker import WalkResult, walk
from engine.config.model import Resource
from engine.graph import Graph, Node
from engine.lang.conditions import failed_condition
from engine.lang.references import forget_remembered
from engine.limiter import Limiter
from engine.plan.diff import call_plain, keep_ignored_changes, mark_sensitive, plain, stored_marks
from engine.plan.hooks import static_address
from engine.plan.model import CREATE, DELETE, FORGET, UPDATE, Plan, ResourceChange
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.manager import StateManager
from engine.state.model import InstanceState, encode_private
from engine.walk.config import ConfigWalk, ResourceInstance
from vocab.errors import CtlError, Diagnostics
from vocab.provider_errors import PluginCallError
from vocab.values import UNKNOWN, contains_unknown

Events = Callable[[str, str, dict[str, Any]], None]  # (event, address, details)
_STOP_CHECK_SECONDS = 0.05  # how soon the providers hear of an interrupt

_log = logging.getLogger(__name__)


class Applier:
    """Applies one plan to the state held by ``manager`` (the caller holds the lock)."""

    def __init__(
        self,
        plan: Plan,
        manager: StateManager,
        *,
        graph: Graph | None,
        walk_: ConfigWalk | None,
        registry: Registry,
        providers: Providers,
        limiter: Limiter | None = None,
        events: Events | None = None,
        stop: threading.Event | None = None,
        abandon: threading.Event | None = None,
        last_use: bool = False,
    ) -> None:
        self.plan = plan
        # Nothing reads the configuration or the plan after this apply: what each step has used is
        # let go of, and the objects the apply makes take its memory (docs/decisions/0034-apply-last-use.md).
        self.last_use = last_use
        self.manager = manager
        self.graph = graph
        self.cwalk = walk_
        self.registry = registry
        self.providers = providers
        # The run's one concurrency limit (``-parallelism``), shared with its plan: the walker runs
        # at most its size of nodes at once, and each provider operation holds a slot of it.
        self.limiter = limiter or Limiter()
        self.events = events or (lambda _e, _a, _d: None)
        self.stop = stop or threading.Event()
        self.abandon = abandon or threading.Event()
        self.state = plan.prior_state.copy()
        self.state.serial = manager.serial
        self.changes = {c.address: c for c in plan.changes
                        if not c.is_noop and c.deposed is None and c.actions != (FORGET,)}
        # removed { destroy = false }: dropped from the state before anything runs, nothing to call
        self.forgets = [c.address for c in plan.changes if c.actions == (FORGET,)]
        # Deposed objects to destroy, each a ("drop", "ADDRESS KEY") node of its own.
        self.drops = {f"{c.address} {c.deposed}": c for c in plan.changes if c.deposed is not None}
        self.expanded: dict[str, ResourceInstance] = {}
        self.results: dict[str, Any] = {}
        self.started: dict[ApplyNode, float] = {}
        self.workers: dict[ApplyNode, int] = {}  # the thread running each node: the trace's provider calls go under it
        self.diags = Diagnostics()
        self.deposed: dict[str, str] = {}
        self.privates: dict[str, bytes] = {}  # provider private data each operation returned
        self._by_name: dict[str, Node] | None = None
        self._provisioners = ResourceProvisioners(self.graph).of

    # ---- the graph -------------------------------------------------------------------------

    def build(self) -> dict[ApplyNode, set[ApplyNode]]:
        deps: dict[ApplyNode, set[ApplyNode]] = {}
        if self.graph is not None and self.plan.mode == "normal":
            deps = configuration_waits(self.graph, self.changes)
        for addr, change in self.changes.items():
            base = static_address(addr)
            if DELETE in change.actions:
                d = deps.setdefault(("del", addr), set())
                if change.actions == (CREATE, DELETE):
                    d.add(("op", addr))
            if change.actions != (DELETE,):
                o = deps.setdefault(("op", addr), set())
                o.add(("expand", base))
                if change.actions == (DELETE, CREATE):
                    o.add(("del", addr))
        order_deletes(deps, self.changes, self.state)
        for addr, change in self.changes.items():
            if CREATE in change.actions and self._provisioners(addr, "create"):
                # Provisioners run once the object is recorded (tainted until they succeed); what
                # refers to the resource waits for them, as in Terraform.
                deps[("prov", addr)] = {("op", addr)}
                deps.get(("close", static_address(addr)), set()).add(("prov", addr))
        for name, change in self.drops.items():
            # After the current object's own operation: a deposed object is an old copy of it.
            deps[("drop", name)] = {("op", change.address)} if ("op", change.address) in deps else set()
        return deps

    # ---- running ---------------------------------------------------------------------------

    def run(self) -> ApplyResult:
        built = self.build()
        if self.last_use:  # the policies have read the plan's configuration; ``built`` has the edges
            forget_remembered()  # the references memo holds every expression, released or not
            self.plan.release_configuration()
            if self.graph is not None:
                self.graph.release_edges()
        # Tuples, not the sets the build needed: the graph lives through the whole apply, and a
        # set of one or two nodes takes four times the memory of a tuple.
        deps = {node: tuple(d for d in on if d in built) for node, on in built.items()}
        del built
        # How many operations will start (a replacement is two): a progress view's "done/total".
        total = sum(1 for kind, _ in deps if kind in ("op", "del", "drop")) + len(self.forgets)
        self.events("apply_begin", "", {"total": total})
        self._forget()
        journal = self.manager.journal
        walked = threading.Event()
        threading.Thread(target=self._stop_providers_when_stopped, args=(walked,), name="ctl-apply-stop",
                         daemon=True).start()
        try:
            with journal.grouped():  # one fsync per batch of results (see Journal.grouped)
                result: WalkResult[ApplyNode] = walk(
                    deps, self._run_node, parallelism=self.limiter.size, on_start=self._on_start,
                    on_done=self._on_done, stop=self.stop, abandon=self.abandon, on_batch=journal.flush)
        finally:
            walked.set()
        return self._finish(result)

    def _stop_providers_when_stopped(self, walked: threading.Event) -> None:
        """The first interrupt starts nothing new, and asks the providers to cancel what they are
        doing (StopProvider), as Terraform does: a create that honours it ends early, with what it
        reports, instead of running on until a second interrupt abandons it."""
        while not walked.is_set():
            if self.stop.wait(_STOP_CHECK_SECONDS):
                self.providers.stop()
                return

    def _forget(self) -> None:
        """State-only changes, no adapter call: drop what a ``removed`` block lets go of, and journal
        what an ``import`` block adopted (already in the state the plan read it into)."""
        for change in self.plan.changes:
            adopted = self.state.instance(change.address) if change.importing_id else None
            if adopted is not None:
                self.manager.journal.record_result(change.address, "read", adopted, provider=change.provider)
        for addr in self.forgets:
            self.state.remove_instance(addr)
            self.manager.journal.record_removed(addr)
            self.events("apply_complete", addr, {"action": FORGET, "elapsed": 0.0, "id": None})
        if self.forgets:
            self.manager.maybe_compact(self.state)

    def _run_node(self, node: ApplyNode) -> Any:
        kind, name = node
        self.workers[node] = threading.get_ident()
        if kind == "eval":
            return self._eval_node(name)
        if kind == "expand":
            return self._expand(name)
        if kind == "close":
            return self._close(name)
        if kind == "prov":
            return self._provision(name)
        with self.limiter:  # the nodes that call a provider
            if kind == "del":
                return self._delete(name)
            if kind == "drop":
                return self._delete(name, self.drops[name])
            return self._operate(name)

    def _static(self, name: str) -> Node:
        """The configuration node an apply node names (looked up in a table built once)."""
        if self._by_name is None:
            assert self.graph is not None
            self._by_name = {str(n): n for n in self.graph.nodes}
        return self._by_name[name]

    def _eval_node(self, name: str) -> None:
        assert self.cwalk is not None
        before = len(self.cwalk.diags.items)
        self.cwalk.step(self._static(name))
        new = [d for d in self.cwalk.diags.items[before:] if d.severity == "error"]
        if new:
            raise CtlError(new[0].summary, detail=new[0].detail, range=new[0].range)

    def _expand(self, name: str) -> None:
        assert self.cwalk is not None
        node = self._static(name)
        before = len(self.cwalk.diags.items)
        for inst in self.cwalk.expand_resource(node):
            self.expanded[inst.address] = inst
        new = [d for d in self.cwalk.diags.items[before:] if d.severity == "error"]
        if new:
            raise CtlError(new[0].summary, detail=new[0].detail, range=new[0].range)
        if self.last_use and self.graph is not None:  # a node came from the graph: there is one
            self.graph.declared(node, Resource).release_body()

    def _from_state(self, inst: ResourceInstance, obj: InstanceState) -> Any:
        """An instance's value as the state file holds it, with the collection kinds its type gives."""
        rt = self.registry.resource_type(inst.resource.type, inst.resource.mode)
        attributes = obj.marked_attributes()
        return attributes if rt is None else mark_sensitive(rt.from_state(attributes), rt)

    def _close(self, name: str) -> None:
        assert self.cwalk is not None
        node = self._static(name)
        for inst in self.cwalk.instances.get(node, []):
            if inst.address in self.results:
                value = self.results[inst.address]
            else:
                # An instance the plan left out (--target/--exclude) and never created is
                # unknown, as during the plan, not null: its dependents are not being applied.
                obj = self.state.instance(inst.address)
                value = UNKNOWN if obj is None else self._from_state(inst, obj)
            inst.scope.set_resource(inst.resource, inst.key, value, inst.expansion)
        if self.last_use:  # published: what is left to read of each instance is in the scope
            for inst in self.cwalk.instances.pop(node, ()):
                change = self.changes.get(inst.address)
                if change is None or DELETE not in change.actions:  # a later delete reads its instance
                    self.expanded.pop(inst.address, None)
                    self.results.pop(inst.address, None)

    def _operate(self, addr: str) -> dict[str, Any]:
        change = self.changes[addr]
        inst = self.expanded.get(addr)
        if inst is None or inst.config is None:
            raise CtlError(f"{addr}: its configuration could not be evaluated", address=addr)
        rt = self.registry.resource_type(change.type, change.mode)
        if rt is None:
            raise CtlError(f"{addr}: no adapter provides {change.type}", address=addr)
        ctx = self.providers.context(rt, addr, inst.scope.path, inst.resource)
        config = schema.normalize(rt, inst.config)
        if change.mode == "data":
            result = call_plain(rt.read, ctx, marked=config)
            if result is None:
                raise CtlError(f"{addr}: the data source found nothing", address=addr)
            return mark_sensitive(result, rt)
        creating = CREATE in change.actions
        prior = None if creating else change.before
        current = None if creating else self.state.instance(addr)
        ctx.private = current.private_bytes() if current is not None else b""
        lc = inst.resource.lifecycle
        if rt.remote_plan and prior is not None and lc.ignore_changes:
            config = keep_ignored_changes(config, prior, lc.ignore_changes, rt)  # as planned (hooks.py)
        planned = call_plain(rt.plan, ctx, plain(prior), marked=config)
        if prior is not None and lc.ignore_changes:
            planned = keep_ignored_changes(planned, prior, lc.ignore_changes, rt)
        # A plugin's planned object may keep unknowns for the provider to fill in (an Optional+Computed
        # block, say): as Terraform does, only its configuration must be known by now.
        unknown = [k for k, v in (config if rt.remote_plan else planned).items()
                   if (rt.remote_plan or k not in rt.computed) and contains_unknown(v)]
        if unknown:
            raise CtlError(f"{addr}: {', '.join(unknown)} still unknown when applying", address=addr,
                           detail="A value this resource needs was not produced by the resources it depends on.")
        self._check(inst, inst.resource.lifecycle.preconditions, None, "precondition")
        try:
            if creating:
                result = call_plain(rt.create, ctx, marked=known(planned))
            else:
                result = call_plain(rt.update, ctx, plain(prior), marked=known(planned))
        finally:
            if ctx.new_private is not None:
                self.privates[addr] = ctx.new_private  # read by the owner thread in _on_done
        result = mark_sensitive(remark(result, planned), rt)
        failure = self._check(inst, lc.postconditions, result, "postcondition", raise_=False)
        if failure is not None:
            raise PostconditionFailed(failure, result=result, address=addr)
        return result

    def _delete(self, addr: str, change: ResourceChange | None = None) -> None:
        change = change or self.changes[addr]
        addr = change.address
        rt = self.registry.resource_type(change.type, change.mode)
        if rt is None:
            raise CtlError(f"{addr}: no adapter provides {change.type}", address=addr)
        inst = self.expanded.get(addr)
        path = inst.scope.path if inst is not None else tuple(n for n, _ in InstanceAddress.parse(addr).module)
        ctx = self.providers.context(rt, addr, path, inst.resource if inst is not None else None)
        stored = self.state.instance(addr, change.deposed or self.deposed.get(addr))
        ctx.private = stored.private_bytes() if stored is not None else b""
        destroying = self._provisioners(addr, "destroy") if change.deposed is None else []
        if destroying:
            assert self.cwalk is not None
            eval_ctx = inst.eval_ctx(change.before) if inst is not None else \
                destroy_context(self.cwalk.fixed, self.cwalk.func_ctx, InstanceAddress.parse(addr).key, change.before)
            run_all(destroying, "destroy", eval_ctx, self.cwalk.root_dir, addr, self._emitter(addr), self._warn,
                    self._starter(addr))
        rt.delete(ctx, plain(change.before) or {})

    def _provision(self, addr: str) -> None:
        """Creation-time provisioners, with ``self`` the object just created."""
        assert self.cwalk is not None
        ctx = self.expanded[addr].eval_ctx(self.results[addr])
        run_all(self._provisioners(addr, "create"), "create", ctx, self.cwalk.root_dir, addr,
                self._emitter(addr), self._warn, self._starter(addr))

    def _emitter(self, addr: str) -> Callable[[str], None]:
        return lambda line: self.events("provision_output", addr, {"provisioner": "local-exec", "line": line})

    def _starter(self, addr: str) -> Callable[[str], None]:
        return lambda kind: self.events("provision_start", addr, {"provisioner": kind})

    def _warn(self, err: CtlError) -> None:
        self.diags.warning(err.summary, detail=err.detail, address=err.address)

    def _provisioned(self, addr: str, exc: BaseException | None) -> None:
        """Provisioners done: the object loses its taint; or, when they failed, keeps it and fails."""
        change = self.changes[addr]
        if exc is not None:
            self.events("provision_errored", addr, {"provisioner": "local-exec", "error": str(exc)})
            return
        obj = self.state.instance(addr)
        if obj is not None and obj.status == "tainted":
            obj = obj.replace(status=None)
            self.state.set_instance(addr, obj, provider=change.provider)
            self.manager.journal.record_result(addr, CREATE, obj, provider=change.provider)

    def _check(self, inst: ResourceInstance, conditions: Sequence[Any], self_value: Any, kind: str,
               *, raise_: bool = True) -> str | None:
        if not conditions:
            return None
        ctx = inst.eval_ctx(self_value)
        for cond in conditions:
            msg = failed_condition(cond, ctx)
            if msg is None:
                continue
            text = f"Resource {kind} failed: {inst.address}: {msg}"
            if raise_:
                raise CtlError(text, range=cond.rng, address=inst.address)
            return text
        return None

    # ---- the owner thread: journal, state, events ------------------------------------------

    def _on_start(self, node: ApplyNode) -> None:
        kind, addr = node
        if kind == "drop":
            change = self.drops[addr]
            self.manager.journal.record_intent(change.address, DELETE, deposed=change.deposed)
            self.started[node] = time.monotonic()
            self.events("apply_start", change.address, {"action": DELETE, "deposed": change.deposed})
            return
        if kind not in ("op", "del"):
            return
        change = self.changes[addr]
        op = DELETE if kind == "del" else op_of(change)
        # Recovery looks a lost create up by its planned identity; an object living only in state is
        # created again instead, so its intent goes without one (working it out was a measurable
        # part of the owner thread's time, which every apply waits on).
        self.manager.journal.record_intent(addr, op, sync=self._durable(change),
                                           planned_identity=None if self._state_only(change) else identity(change))
        self.started[node] = time.monotonic()
        self.events("apply_start", addr, {"action": op})

    def _on_done(self, node: ApplyNode, result: Any, exc: BaseException | None) -> None:
        kind, addr = node
        worker = self.workers.pop(node, 0)
        if kind == "drop":
            self._dropped(node, exc, worker)
            return
        if kind == "prov":
            self._provisioned(addr, exc)
            return
        if kind not in ("op", "del"):
            if exc is not None:
                self.diags.add(exc if isinstance(exc, CtlError) else CtlError(str(exc)))
            return
        change = self.changes[addr]
        op = DELETE if kind == "del" else op_of(change)
        elapsed = time.monotonic() - self.started.get(node, time.monotonic())
        if isinstance(exc, (PostconditionFailed, PartialResult)):
            result, exc_after = exc.result, exc  # the object exists: record it, then report
        else:
            exc_after = None
        _log.info("%s %s %s after %.3fs", op, addr, "failed" if exc is not None else "finished", elapsed,
                  extra={"address": addr, "action": op, "seconds": round(elapsed, 6), "ok": exc is None})
        if exc is not None and exc_after is None:
            if isinstance(exc, PluginCallError):
                warn_possibly_done(self.diags, addr, op)  # the provider stopped mid-call: whether it acted is unknown
            else:
                self.manager.journal.record_failed(addr, op)
            self.events("apply_errored", addr, errored(op, exc, elapsed, worker))
            return
        ident = None if kind == "del" or not isinstance(result, dict) else result.get("id")
        # Reported before it is recorded: the operation is over, and if the storage is slow to take
        # the journal entry the view must not go on saying "Still creating..." (a failed write is
        # reported as such, and the next run recovers the outcome from the journal's intent).
        if isinstance(exc_after, PartialResult):  # kept, but the operation failed: not "complete"
            self.events("apply_errored", addr, errored(op, exc_after, elapsed, worker))
        else:
            self.events("apply_complete", addr, {"action": op, "elapsed": elapsed, "id": ident, "thread": worker})
        if kind == "del":
            deposed = self.deposed.pop(addr, None)
            self.state.remove_instance(addr, deposed)
            self.manager.journal.record_removed(addr, deposed=deposed, sync=self._durable(change))
        else:
            if change.actions == (CREATE, DELETE) and (key := self.state.depose(addr)) is not None:
                self.deposed[addr] = key
            same_object = self.state.instance(addr) if change.actions == (UPDATE,) else None
            rt = self.registry.resource_type(change.type, change.mode)
            obj = InstanceState.from_marked(
                result if rt is None else stored_marks(result, rt), schema_version=change.schema_version, dependencies=list(change.dependencies),
                create_before_destroy=change.create_before_destroy,
                # Tainted until its provisioners succeed: a crash or a failure in between replaces it.
                status="tainted" if isinstance(exc, PartialResult) or self._pending(addr) else None,
                # Fields of newer writers (identity_schema_version, identity) describe the object, which
                # an in-place update keeps; a new object starts without them.
                extra=dict(same_object.extra) if same_object is not None else {},
                private=encode_private(self.privates.pop(addr, None)),
            )
            self.state.set_instance(addr, obj, provider=change.provider)
            self.manager.journal.record_result(addr, op, self.state.instance(addr), provider=change.provider,
                                               sync=self._durable(change))
            self.results[addr] = result
            if self.last_use and DELETE not in change.actions:
                change.release_values()  # done with: the object's values are in the state now
        self.manager.maybe_compact(self.state)
        if exc_after is not None:
            raise_later = exc_after
            self.diags.add(raise_later)

    def _state_only(self, change: ResourceChange) -> bool:
        """Whether the object lives only in state (terraform_data, random_*, time_sleep)."""
        rt = self.registry.resource_type(change.type, change.mode)
        return rt is not None and rt.state_only

    def _durable(self, change: ResourceChange) -> bool:
        """Whether the operation's journal lines must survive a power cut (be fsynced): not those of
        an object that lives only in state and runs no provisioner. Lost, they only make the next
        apply create the object again. A kill loses none of them (each is in the file when it is
        recorded), and the fsync of any later line, such as the intent of an object that depends on
        this one and reaches out, makes them durable with it."""
        if not self._state_only(change):
            return True
        return bool(self._provisioners(change.address, "create") or self._provisioners(change.address, "destroy"))

    def _pending(self, addr: str) -> bool:
        return CREATE in self.changes[addr].actions and bool(self._provisioners(addr, "create"))

    def _dropped(self, node: ApplyNode, exc: BaseException | None, worker: int) -> None:
        """A deposed object's destroy finished: forget the object, or keep it for the next plan."""
        change = self.drops[node[1]]
        elapsed = time.monotonic() - self.started.get(node, time.monotonic())
        if exc is not None:
            self.manager.journal.record_failed(change.address, DELETE, deposed=change.deposed)
            self.events("apply_errored", change.address, errored(DELETE, exc, elapsed, worker))
            return
        self.state.remove_instance(change.address, change.deposed)
        self.manager.journal.record_removed(change.address, deposed=change.deposed)
        self.manager.maybe_compact(self.state)
        self.events("apply_complete", change.address, {"action": DELETE, "elapsed": elapsed, "id": None, "thread": worker})

    def _finish(self, result: WalkResult[ApplyNode]) -> ApplyResult:
        self.diags.extend(self.providers.take_warnings())
        return summarize(result, self.plan, self.state, self.diags, changes=self.changes, drops=self.drops,
                         interrupted=self.stop.is_set() or self.abandon.is_set(), cwalk=self.cwalk)
