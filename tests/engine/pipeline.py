"""Running the plan and apply pipeline in-process for unit tests of its modules.

Everything here is real: the configuration is written to a directory, state lives in the local
backend next to it, and the adapters are the native ones plus ``demo_thing``, a small resource type
registered under the ``demo`` provider that records every call it receives (and can be told to fail
or to block at a chosen point), so tests can see the order of operations and what the state held
at each one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError, PartialResult, Provider, ResourceType
from adapters.registry import Registry
from backends.local.store import LocalStore
from engine.apply.applier import Applier, ApplyResult
from engine.lang.templatefile import render
from engine.limiter import Limiter
from engine.plan.model import Plan, ResourceChange
from engine.plan.planner import PlanOptions, PlanResult, make_plan
from engine.providers import Providers
from engine.state.manager import StateManager
from engine.state.model import State
from engine.validate import load_and_evaluate
from engine.walk.config import ConfigWalk, WalkHooks
from tests.conftest import write_tree
from vocab.errors import Diagnostics, DiagnosticsError

STATE_FILE = "ctl.tfstate"

DEMO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "value": {"type": ["string", "null"]},
        "fail": {"type": ["string", "null"], "description": "create/update/delete: fail that operation"},
        "id": {"type": ["string", "null"], "readOnly": True},
    },
    "required": ["name"],
    "additionalProperties": False,
}


class DemoThing(ResourceType):
    """A remote-like object named by ``name``; ``value`` updates in place, a new ``name`` replaces.

    ``fail = "create"`` (or ``"update"``, ``"delete"``, ``"partial"``) makes that operation fail;
    ``"partial"`` fails a create after the object was made (``PartialResult``).
    """

    name = "demo_thing"
    schema = DEMO_SCHEMA
    computed = frozenset({"id"})
    replace_on = frozenset({"name"})

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        cloud: DemoCloud = ctx.client
        cloud.called("create", planned["name"], ctx)
        if planned.get("fail") == "create":
            raise AdapterError(f"cannot create {planned['name']}", address=ctx.address)
        out = dict(planned, id=f"id-{planned['name']}")
        if planned.get("fail") == "partial":
            raise PartialResult(f"{planned['name']} was made but not configured", result=out, address=ctx.address)
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        cloud: DemoCloud = ctx.client
        cloud.called("update", planned["name"], ctx)
        if planned.get("fail") == "update":
            raise AdapterError(f"cannot update {planned['name']}", address=ctx.address)
        return dict(planned, id=prior["id"])

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        cloud: DemoCloud = ctx.client
        cloud.called("delete", prior["name"], ctx)
        if prior.get("fail") == "delete":
            raise AdapterError(f"cannot delete {prior['name']}", address=ctx.address)


class DemoReader(ResourceType):
    """Data source ``demo_thing``: reads an object by name (records the read)."""

    name = "demo_thing"
    mode = "data"
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "id": {"type": ["string", "null"], "readOnly": True}},
    }
    computed = frozenset({"id"})

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        cloud: DemoCloud = ctx.client
        cloud.called("read", attrs["name"], ctx)
        return dict(attrs, id=f"id-{attrs['name']}")


@dataclass
class Call:
    op: str
    name: str
    address: str
    stored: list[str]  # the addresses a fresh reader of the backend sees at the time of the call


@dataclass(eq=False)
class DemoCloud(Provider):
    """The ``demo`` provider; configuring it hands this object to its types, which log into it.

    ``on_call(op, name)`` runs inside each operation (to set a stop event, or wait for one).
    """

    calls: list[Call] = field(default_factory=list)
    state_file: Path | None = None
    on_call: Callable[[str, str], None] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def configure(self, config: dict[str, Any], workdir: Path) -> Any:
        return self

    def called(self, op: str, name: str, ctx: AdapterContext) -> None:
        stored = stored_addresses(self.state_file) if self.state_file is not None else []
        with self.lock:
            self.calls.append(Call(op, name, ctx.address, stored))
        if self.on_call is not None:
            self.on_call(op, name)

    def ops(self) -> list[tuple[str, str]]:
        return [(c.op, c.name) for c in self.calls]


def demo_registry(state_file: Path | None = None) -> tuple[Registry, DemoCloud]:
    """Every installed adapter plus ``demo``; the returned cloud logs the demo calls."""
    registry = Registry.discover()
    cloud = DemoCloud("demo", "example.com/test/demo", resources={"demo_thing": DemoThing()},
                      data_sources={"demo_thing": DemoReader()}, state_file=state_file)
    registry.register(cloud)
    return registry, cloud


def stored_addresses(state_file: Path) -> list[str]:
    """What another process reading the local backend now would find (journal replayed)."""
    manager = StateManager(LocalStore(state_file), "default")
    return sorted(str(a) for a, _ in manager.load().instances())


@dataclass
class Project:
    """A configuration directory with its local state; ``plan`` and ``apply`` run the pipeline."""

    root: Path
    registry: Registry
    cloud: DemoCloud

    @property
    def store(self) -> LocalStore:
        return LocalStore(self.root / STATE_FILE)

    def write(self, main_tf: str, **files: str) -> None:
        write_tree(self.root, {"main.tf": main_tf, **files})

    def manager(self, workspace: str = "default") -> StateManager:
        return StateManager(self.store, workspace, errored_dir=self.root)

    def state(self) -> State:
        return self.manager().load()

    def plan(self, **opts: Any) -> PlanResult:
        manager = self.manager()
        state = manager.load()
        return self._plan(manager, state, PlanOptions(**opts))

    def _plan(self, manager: StateManager, state: State, opts: PlanOptions) -> PlanResult:
        return make_plan(self.root, state, manager.lineage or state.lineage,
                         manager.serial if manager.lineage else -1, opts, self.registry)

    def apply(self, *, stop: threading.Event | None = None, parallelism: int = 10,
              events: list[tuple[str, str]] | None = None, **opts: Any) -> tuple[Plan, ApplyResult]:
        """Plan, then apply that plan and write the final state, as ``ctl apply -auto-approve`` does."""
        manager = self.manager()
        state = manager.load()
        popts = PlanOptions(**opts)
        loaded = load_and_evaluate(self.root, registry=self.registry, require_all_variables=True)
        if loaded.diags.has_errors or loaded.graph is None or loaded.walk is None or loaded.root is None:
            raise DiagnosticsError(loaded.diags.items)
        plan = make_plan(self.root, state, manager.lineage or state.lineage,
                         manager.serial if manager.lineage else -1, popts, self.registry, first=loaded).plan
        providers = Providers(self.registry, loaded.walk.provider_configs, self.root)
        cwalk = ConfigWalk(loaded.graph, dict(plan.variables), Diagnostics(), root_dir=self.root,
                           workspace=plan.workspace, hooks=WalkHooks(), plan_mode=False, render_template=render)
        log = events if events is not None else []
        applier = Applier(plan, manager, graph=loaded.graph, walk_=cwalk, registry=self.registry,
                          providers=providers, limiter=Limiter(parallelism), stop=stop,
                          events=lambda event, address, _details: log.append((event, address)))
        result = applier.run()
        manager.compact(result.state)
        return plan, result


def actions(plan: Plan) -> dict[str, str]:
    """Each change's action as the plan summary shows it: create, update, replace, delete, read, no-op."""
    return {c.address: _action(c) for c in plan.changes}


def _action(change: ResourceChange) -> str:
    if change.is_replace:
        return "replace (create first)" if change.actions[0] == "create" else "replace"
    return change.actions[0]


def change(plan: Plan, address: str) -> ResourceChange:
    found = [c for c in plan.changes if c.address == address]
    assert found, f"{address} not in the plan: {[c.address for c in plan.changes]}"
    return found[0]


def attrs(state: State, address: str) -> dict[str, Any]:
    inst = state.instance(address)
    assert inst is not None, f"{address} not in state: {[str(a) for a, _ in state.instances()]}"
    return dict(inst.attributes)


def new_project(root: Path) -> Project:
    """An empty configuration directory whose demo calls see the local state file in it."""
    root.mkdir(parents=True, exist_ok=True)
    registry, cloud = demo_registry(root / STATE_FILE)
    return Project(root, registry, cloud)
