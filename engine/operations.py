"""The workflows behind ``plan``, ``apply`` and ``destroy``: locking, loading, recovering, persisting.

The CLI parses options and renders; these functions do the work in the order that keeps state
safe: take the lock (unless only reading), load the state and replay any journal left by an
interrupted apply (writing the recovered state at once when holding the lock), plan, check the
plan against the policies, ask, apply, and persist — also when interrupted or when operations failed.

The policy gate lives here, not in the commands, so that every caller of these functions gets it:
``plan_only`` records the verdict in the plan and raises ``PolicyDenied`` for a denied plan once the
caller has had it (``on_planned``: to show, save or summarize it), ``apply_run`` raises it before
asking for confirmation. Callbacks (``on_plan``, ``on_policy`` …) let the caller show each step as
it happens; they never decide anything.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.registry import Registry
from backends.base import LocalStateFile, SealedStore, StateStore
from engine import remote_state
from engine.apply.applier import Applier, Events
from engine.apply.finish import ApplyResult
from engine.lang.references import remembered
from engine.lang.templatefile import render
from engine.limiter import Limiter
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.plan.json_view import PolicyDocument
from engine.plan.model import Plan
from engine.plan.planfile import load_plan
from engine.plan.planner import (
    PlanOptions,
    PlanResult,
    config_hash,
    let_go_of_taken_over_syntax,
    make_plan,
)
from engine.plugins.functions import resolver as functions_resolver
from engine.plugins.registry import registry_for
from engine.providers import Providers
from engine.recovery import Recovery, load_state
from engine.session import manager_for, open_store, resolved_backend
from engine.state.gc_pause import gc_paused, gc_paused_then_frozen
from engine.state.manager import StateManager
from engine.state.model import State
from engine.state_tools.terraform_files import refuse_if_left_behind
from engine.telemetry.cloud import watch as watch_cloud
from engine.telemetry.timings import BACKEND, LOCK, Attributes, Timings, entered
from engine.validate import Loaded, load_and_evaluate
from engine.walk.config import ConfigWalk, WalkHooks
from policies.gate import PolicyOptions, check_plan, enforce, may_read_whole_plan
from policies.model import PolicyOutcome
from vocab.errors import CtlError, DiagnosticsError, ExitCode
from vocab.limits import DEFAULT_PARALLELISM
from vocab.reserved_paths import reserved_paths

_log = logging.getLogger(__name__)


def _phase_done(phase: str, started: float, timings: Timings | None = None) -> None:
    """One structured log record per phase, so CTL_LOG=info shows where a run spends its time;
    the same measurement goes to the timing report when one is asked for."""
    seconds = time.perf_counter() - started
    if timings is not None:
        timings.phase(phase, seconds)
    _log.info("phase %s took %.3fs", phase, seconds, extra={"phase": phase, "seconds": round(seconds, 6)})


@dataclass
class RunOptions:
    root: Path
    plan: PlanOptions
    lock: LockOptions = field(default_factory=LockOptions)
    take_lock: bool = True
    # -parallelism, read once: each run makes one ``Limiter`` of it that all its walks share.
    parallelism: int = DEFAULT_PARALLELISM
    # The policy gate: the built-in pack and <root>/policies by default; None skips it (callers that
    # check policies themselves, such as tests of the planner).
    policy: PolicyOptions | None = field(default_factory=PolicyOptions)
    policy_override: str | None = None  # set once soft-mandatory failures were accepted: kept in history


@dataclass
class Planned:
    """What ``plan_only`` produced: the plan, the journal recovery before it, the policy verdict."""

    result: PlanResult
    recovery: Recovery
    policy: PolicyOutcome | None  # None when the run skipped the gate (``RunOptions.policy``)

    @property
    def plan(self) -> Plan:
        return self.result.plan


@dataclass
class Prepared:
    loaded: Loaded
    store: StateStore
    workspace: str
    backend: str = "local"  # the backend's kind (s3, gcs …), which the trace's state operations name


def _state_attrs(prep: Prepared) -> Attributes:
    """What the trace says of every state operation: the backend's kind and the workspace."""
    return (("ctl.backend", prep.backend), ("ctl.workspace", prep.workspace))


def _managed(prep: Prepared, root: Path, timings: Timings | None) -> StateManager:
    """The workspace's state manager, its reads and writes measured when the run is."""
    manager = manager_for(prep.store, prep.workspace, root)
    if timings is not None:
        attrs = _state_attrs(prep)
        manager.measured = lambda name: entered(timings, BACKEND, name=name, attrs=attrs)
        # The journal's appends are many small writes: counted as waiting on the backend, not traced one by one.
        manager.journal.measured = lambda: timings.waiting(BACKEND, record_span=False)
    return manager


def _lock_measured(timings: Timings | None, lock: LockOptions) -> Timings | None:
    """The recorder to time taking the lock with: none when no lock is taken (``plan`` without ``--lock``)."""
    return timings if lock.enabled else None


def prepare(opts: RunOptions, registry: Registry | None = None) -> Prepared:
    """Load and evaluate the configuration; errors raise with every diagnostic.

    ``registry`` is the one the run plans and applies with: given, the providers' schemas are not
    read again for the configuration's checks (a big provider's is tens of megabytes decoded).
    """
    started = time.perf_counter()
    loaded = load_and_evaluate(opts.root, var_args=opts.plan.var_args, environ=opts.plan.environ,
                               prompt=opts.plan.prompt, workspace=opts.plan.workspace,
                               require_all_variables=True, registry=registry)
    if loaded.diags.has_errors or loaded.root is None:
        raise DiagnosticsError(loaded.diags.items)
    store = open_store(opts.root, loaded.root, opts.plan.var_args)
    timings = opts.plan.timings
    if timings is not None:
        for m in loaded.modules:
            attrs: Attributes = (("ctl.module.dir", m.directory), ("ctl.module.files", m.files))
            timings.detail("load.module", m.start, m.end, (("ctl.module", m.address), *attrs) if m.address else attrs)
    _phase_done("load", started, timings)
    backend = resolved_backend(opts.root, loaded.root)[0] if timings is not None else "local"
    return Prepared(loaded, store, opts.plan.workspace, backend)


@gc_paused_then_frozen
@remembered()  # each expression's references worked out once per run
def plan_only(opts: RunOptions, registry: Registry | None = None, *,
              events: Events | None = None,
              on_recovery: Callable[[Recovery], None] | None = None,
              on_plan: Callable[[PlanResult], None] | None = None,
              on_policy: Callable[[PolicyOutcome], None] | None = None,
              on_planned: Callable[[Planned], None] | None = None) -> Planned:
    """``ctl plan``: one consistent snapshot (locked only when asked, ``--lock``), then the policy gate.

    ``events`` receives the refresh progress (``refresh_begin``/``refresh_start``/``refresh_complete``).
    The verdict is recorded in the plan (``policy_results``, the override used) and returned. A plan
    the policies deny raises ``PolicyDenied``, as ``apply_run`` does, but only after ``on_planned``
    has had the finished plan: a denied plan is still shown, saved and summarized for CI to publish
    (``ctl apply`` re-checks a saved plan and refuses it while the policies deny it).
    """
    registry = remote_state.install(registry or registry_for(opts.root))  # data.terraform_remote_state
    timings = opts.plan.timings
    if timings is not None:
        watch_cloud(timings)
    events = timings.events(events) if timings is not None else events
    prep = prepare(opts, registry)
    if not opts.plan.read_as_document and not may_read_whole_plan(opts.root, opts.policy):
        let_go_of_taken_over_syntax(prep.loaded)  # nothing reads the plan's configuration view
    manager = _managed(prep, opts.root, timings)
    lock = opts.lock if opts.take_lock else LockOptions(enabled=False)
    with entered(_lock_measured(timings, lock), LOCK, locked(prep.store, prep.workspace, "OperationTypePlan", lock),
                 "state.lock", attrs=_state_attrs(prep), leaving="state.unlock"):
        state, rec = load_state(manager, holding_lock=opts.take_lock and lock.enabled, loaded=prep.loaded,
                                registry=registry)
        refuse_if_left_behind(opts.root, prep.workspace, manager.lineage is not None)
        started = time.perf_counter()
        result = make_plan(opts.root, state, manager.lineage or state.lineage,
                           manager.serial if manager.lineage else -1, opts.plan, registry, first=prep.loaded,
                           events=events, limiter=Limiter(opts.parallelism))
        _phase_done("plan", started, timings)
        if timings is not None:
            timings.plan_phases(result.timings)
    assert prep.loaded.walk is not None
    prep.loaded.walk.forget_resources()  # the plan walk took over what it needed; nothing reads it again
    if on_recovery is not None:
        on_recovery(rec)
    if on_plan is not None:
        on_plan(result)
    outcome = None
    if opts.policy is not None:
        outcome = _check_policies(result.plan, opts, opts.policy, on_policy)
        result.plan.policy_override = outcome.override if outcome.override_used else None
    planned = Planned(result, rec, outcome)
    if on_planned is not None:
        on_planned(planned)
    if outcome is not None:
        _enforce(outcome, opts)
    return planned


@gc_paused
def _check_policies(plan: Plan, opts: RunOptions, policy: PolicyOptions,
                    on_policy: Callable[[PolicyOutcome], None] | None) -> PolicyOutcome:
    """The gate over one plan; the findings are recorded in the plan (saved plans, job summaries)."""
    started = time.perf_counter()
    outcome = check_plan(PolicyDocument(plan), opts.root, policy)
    _phase_done("policy", started, opts.plan.timings)
    plan.policy_results = outcome.results_json()
    if on_policy is not None:
        on_policy(outcome)
    return outcome


def _enforce(outcome: PolicyOutcome, opts: RunOptions) -> None:
    """Refuse a denied plan; remember an override that was needed, for the state's history."""
    enforce(outcome)
    if outcome.override_used:
        opts.policy_override = outcome.override


@remembered()  # each expression's references worked out once per run
def apply_run(
    opts: RunOptions,
    registry: Registry | None = None,
    *,
    saved_plan: Path | None,
    confirm: Callable[[Plan], bool],
    events: Events | None = None,
    stop: threading.Event | None = None,
    abandon: threading.Event | None = None,
    on_plan: Callable[[PlanResult], None] | None = None,
    on_recovery: Callable[[Recovery], None] | None = None,
    on_policy: Callable[[PolicyOutcome], None] | None = None,
) -> tuple[Plan, ApplyResult | None]:
    """``ctl apply``/``destroy``: plan (or load a saved plan), check policies, confirm, apply, persist.

    ``events`` receives the refresh progress and then every operation's start and end. A plan the
    policies deny raises ``PolicyDenied`` before anything is asked or changed; a saved plan is
    checked again (the policies may have changed since), keeping the override it was saved with.
    """
    registry = remote_state.install(registry or registry_for(opts.root))  # data.terraform_remote_state
    timings = opts.plan.timings
    if timings is not None:
        watch_cloud(timings)
    events = timings.events(events) if timings is not None else events
    loaded_plan = load_plan(saved_plan, var_args=opts.plan.var_args) if saved_plan is not None else None
    if loaded_plan is not None and opts.policy is not None:
        if opts.policy.override is None:
            opts.policy.override = loaded_plan.policy_override
        outcome = check_plan(PolicyDocument(loaded_plan), opts.root, opts.policy)
        if on_policy is not None:
            on_policy(outcome)
        _enforce(outcome, opts)
    given_vars = opts.plan.var_args  # a saved plan's values are its own; these may still open the state
    if loaded_plan is not None:
        opts.plan.workspace = loaded_plan.workspace
        opts.plan.var_args = []
    prep = prepare(opts, registry) if loaded_plan is None else \
        _prepare_for_saved(opts, loaded_plan, given_vars, registry)
    manager = _managed(prep, opts.root, timings)
    operation = "OperationTypeApply"
    # One stop event for Ctrl-C and for a lock found broken by the heartbeat: either way the apply
    # starts nothing new, lets running operations finish and persists what they did.
    stop = stop or threading.Event()
    limiter = Limiter(opts.parallelism)  # the run's one concurrency limit: its plan and its apply
    with entered(_lock_measured(timings, opts.lock), LOCK,
                 locked(prep.store, prep.workspace, operation, opts.lock, stop=stop), "state.lock",
                 attrs=_state_attrs(prep), leaving="state.unlock"):
        state, rec = load_state(manager, holding_lock=opts.lock.enabled, loaded=prep.loaded, registry=registry)
        if on_recovery is not None:
            on_recovery(rec)
        if loaded_plan is not None:
            _check_saved(loaded_plan, manager, state, prep.loaded)
            plan = loaded_plan
            plan_result = None
            if not plan.has_changes:  # as for a plan just made: nothing to walk, nothing to write
                if isinstance(manager.store, SealedStore) and manager.store.needs_rewrite(manager.workspace):
                    manager.persist(state)
                return plan, ApplyResult(state)
        else:
            refuse_if_left_behind(opts.root, prep.workspace, manager.lineage is not None)
            started = time.perf_counter()
            plan_result = make_plan(opts.root, state, manager.lineage or state.lineage,
                                    manager.serial if manager.lineage else -1, opts.plan, registry,
                                    first=prep.loaded, events=events, limiter=limiter)
            _phase_done("plan", started, timings)
            if timings is not None:
                timings.plan_phases(plan_result.timings)
            plan = plan_result.plan
            if on_plan is not None:
                on_plan(plan_result)
            if opts.policy is not None:
                _enforce(_check_policies(plan, opts, opts.policy, on_policy), opts)
            if not plan.has_changes:
                if isinstance(manager.store, SealedStore) and manager.store.needs_rewrite(manager.workspace):
                    manager.persist(state)  # completes an encryption migration or key rotation
                return plan, None
            if not confirm(plan):
                raise CtlError("Apply cancelled.", hint="Nothing was changed.")
        assert prep.loaded.walk is not None
        prep.loaded.walk.forget_resources()  # the apply evaluates every resource again, in its own walk
        started = time.perf_counter()
        manager.policy_override = opts.policy_override
        result = _apply(plan, manager, prep.loaded, opts, registry, limiter, events, stop, abandon)
        _phase_done("apply", started, timings)
        prep.loaded.release()  # nothing reads the configuration again: let it go before the state's bytes exist
        started = time.perf_counter()
        manager.compact(result.state)
        _phase_done("persist", started, timings)
    return plan, result


def _prepare_for_saved(opts: RunOptions, plan: Plan, var_args: list[tuple[str, str]],
                       registry: Registry) -> Prepared:
    """The configuration for a saved plan: its variable values come from the plan itself (``var_args``
    reach only encryption settings that name variables)."""
    loaded = load_and_evaluate(opts.root, workspace=plan.workspace, decided=plan.variables, registry=registry)
    if loaded.diags.has_errors or loaded.root is None:
        raise DiagnosticsError(loaded.diags.items)
    backend = resolved_backend(opts.root, loaded.root)[0] if opts.plan.timings is not None else "local"
    return Prepared(loaded, open_store(opts.root, loaded.root, var_args), plan.workspace, backend)


def _check_saved(plan: Plan, manager: StateManager, state: State, loaded: Loaded) -> None:
    """A saved plan applies only to the state and configuration it was made from."""
    # A plan made before any state existed (serial -1) carries a lineage nobody stored yet: the
    # state written since then is compared by serial only, and found stale below.
    if manager.lineage is not None and plan.serial >= 0 and plan.lineage != manager.lineage:
        raise CtlError("Saved plan does not match the state",
                       detail=f"The plan was made for state lineage {plan.lineage}; the state at "
                              f"{manager.source} has lineage {manager.lineage}.",
                       hint="Run ctl plan again against this state.")
    current = manager.serial if manager.lineage is not None else -1
    if plan.serial != current:
        raise CtlError("Saved plan is stale",
                       detail=f"The state changed since the plan was made (serial {plan.serial} -> {current}).",
                       hint="Run ctl plan --out again and apply the new plan.")
    assert loaded.root is not None
    if config_hash(loaded.root) != plan.config_hash:
        raise CtlError("Saved plan is stale: the configuration changed since the plan was made",
                       hint="Run ctl plan --out again and apply the new plan.")


def _state_file(manager: StateManager) -> Path | None:
    """The state's file when it is on this file system, which no resource may write over."""
    store = manager.store
    return store.state_path(manager.workspace) if isinstance(store, LocalStateFile) else None


def _apply(plan: Plan, manager: StateManager, loaded: Loaded, opts: RunOptions, registry: Registry,
           limiter: Limiter, events: Events | None, stop: threading.Event | None, abandon: threading.Event | None) -> ApplyResult:
    assert loaded.graph is not None and loaded.walk is not None and loaded.root is not None
    if plan.mode == "refresh-only":
        state = plan.prior_state.copy()
        state.serial = manager.serial
        return ApplyResult(state)
    cancelled = threading.Event()
    providers = Providers(registry, loaded.walk.provider_configs, loaded.root.dir, cancelled,
                          reserved_paths(_state_file(manager), loaded.root.dir), timings=opts.plan.timings)
    from vocab.errors import Diagnostics

    diags = Diagnostics()
    # The saved plan's values as the configuration's types convert them (a ``set(string)`` is a set
    # again, not the JSON list the plan file holds), exactly as the plan's own walk saw them.
    cwalk = ConfigWalk(loaded.graph, dict(loaded.walk.root_vars), diags, root_dir=loaded.root.dir,
                       workspace=plan.workspace, hooks=WalkHooks(), plan_mode=False, render_template=render,
                       provider_function=functions_resolver(registry))
    abandon = abandon or threading.Event()
    applier = Applier(plan, manager, graph=loaded.graph, walk_=cwalk, registry=registry, providers=providers,
                      limiter=limiter, events=events, stop=stop, abandon=abandon, last_use=True)
    watcher = threading.Thread(target=_cancel_on_abandon, args=(abandon, cancelled), daemon=True)
    watcher.start()
    try:
        return applier.run()
    finally:
        providers.close()


def _cancel_on_abandon(abandon: threading.Event, cancelled: threading.Event) -> None:
    abandon.wait()
    cancelled.set()


def exit_code_for(result: ApplyResult | None) -> ExitCode:
    if result is None:
        return ExitCode.OK
    if result.interrupted:
        return ExitCode.INTERRUPTED
    return ExitCode.OK if result.ok else ExitCode.ERROR


__all__: list[Any] = ["Planned", "RunOptions", "apply_run", "plan_only", "prepare"]
