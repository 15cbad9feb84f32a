"""What a configuration walk builds: module instance scopes, resource instances, and the hooks that
decide what a resource is to the expressions referring to it.

``engine.walk.config`` fills these in, node by node; validate, plan and apply read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.config.model import Module, ModuleCall, Resource
from engine.graph import ModPath
from engine.lang.eval import EvalContext
from engine.lang.functions import FunctionContext
from engine.walk.addresses import (
    Key,
    ModKey,
    UnknownKey,
    _relative,
    module_address,
)
from vocab.errors import Diagnostic
from vocab.values import (
    UNKNOWN,
)


@dataclass
class ModuleScope:
    """The values visible to expressions inside one module instance."""

    key: ModKey
    module: Module
    path: ModPath
    vars: dict[str, Any] = field(default_factory=dict)
    locals: dict[str, Any] = field(default_factory=dict)
    modules: dict[str, Any] = field(default_factory=dict)
    data: dict[str, dict[str, Any]] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    call: ModuleCall | None = None  # the call that made this instance (None for the root module)
    call_ctx: EvalContext | None = None  # where the call's inputs are evaluated: the caller, with each/count
    expansion: str = "single"  # how the call expanded: "single", "count" or "for_each"
    ctx: EvalContext = field(init=False)
    variables: dict[str, Any] = field(init=False)

    def bind(self, fixed: dict[str, Any], func_ctx: FunctionContext) -> None:
        self.variables = {
            **fixed,
            "var": self.vars,
            "local": self.locals,
            "module": self.modules,
            "data": self.data,
            "path": {"module": _relative(self.module.dir, Path(fixed["path"]["cwd"])), "root": fixed["path"]["root"],
                     "cwd": fixed["path"]["cwd"]},
        }
        self.ctx = EvalContext(variables=self.variables, func_ctx=func_ctx)

    def forget_resources(self) -> None:
        """Drop every resource's value (what ``set_resource`` stored); the rest stays as evaluated."""
        for res in self.module.resources.values():
            (self.data if res.mode == "data" else self.variables).pop(res.type, None)

    def forget_resource(self, res: Resource) -> None:
        """Drop one resource's values (what ``set_resource`` stored for it)."""
        (self.data if res.mode == "data" else self.variables).get(res.type, {}).pop(res.name, None)

    def set_resource(self, res: Resource, key: Key, value: Any, expansion: str) -> None:
        """Store an instance's value where references find it: object, list (count) or map."""
        table = self.data if res.mode == "data" else self.variables
        by_type = table.setdefault(res.type, {})
        if isinstance(key, UnknownKey):
            by_type[res.name] = UNKNOWN  # how many instances there will be is not known yet
        elif expansion == "single":
            by_type[res.name] = value
        elif expansion == "count":
            items = by_type.setdefault(res.name, [])
            assert isinstance(key, int)
            while len(items) <= key:
                items.append(None)
            items[key] = value
        else:
            by_type.setdefault(res.name, {})[key] = value

    def init_resource(self, res: Resource, expansion: str) -> None:
        table = self.data if res.mode == "data" else self.variables
        by_type = table.setdefault(res.type, {})
        by_type[res.name] = None if expansion == "single" else ([] if expansion == "count" else {})


@dataclass(slots=True)
class ResourceInstance:
    """One instance of a resource after expansion, with its evaluated arguments."""

    address: str
    resource: Resource
    scope: ModuleScope
    key: Key
    expansion: str  # "single" | "count" | "for_each"
    config: dict[str, Any] | None  # None when the arguments could not be evaluated
    bindings: dict[str, Any] | None = None  # count.index / each.key / each.value
    # The schema check's findings on ``config``, once a walk made it (validate): a later walk that
    # takes over the same ``config`` reports these instead of checking again (see ConfigWalk).
    checked: tuple[Diagnostic, ...] | None = None

    @property
    def module_address(self) -> str:
        return module_address(self.scope.key)

    def eval_ctx(self, self_value: Any = None) -> EvalContext:
        """The scope its arguments and conditions are evaluated in (``self`` for postconditions)."""
        bindings = dict(self.bindings or {})
        if self_value is not None:
            bindings["self"] = self_value
        return self.scope.ctx.child(bindings) if bindings else self.scope.ctx


class WalkHooks:
    """What a walk does with each resource instance; the default is what ``validate`` needs."""

    plan_mode = False  # unknown count/for_each is an error when planning, one placeholder otherwise
    checks_without_instances = False  # whether ``without_instances`` wants a resource with none

    def resource_value(self, inst: ResourceInstance) -> Any:
        """The value references to this instance see."""
        return _with_unknown_computed(inst)

    def resource_values(self, instances: list[ResourceInstance]) -> list[Any]:
        """The values of a resource's instances (which cannot refer to each other): one by one here."""
        return [self.resource_value(inst) for inst in instances]

    def without_instances(self, res: Resource, address: str, config: dict[str, Any]) -> None:
        """A resource whose ``count`` or ``for_each`` gave no instance, its arguments evaluated once
        with ``count.index`` and ``each`` unknown: nothing to do by default (see ``ValidateHooks``)."""


ComputedLookup = Callable[[Resource], frozenset[str]]


class ModeWatch(FunctionContext):
    """A function context that counts reads of ``plan_mode`` and ``plan_timestamp``.

    They are the only inputs of a function that differ between a validate walk and a plan walk of
    the same configuration (``timestamp()``, ``uuid()``, ``plantimestamp()``, also inside a
    ``templatefile``), so a walk learns which of its nodes a later walk must evaluate afresh.
    """

    mode_reads: list[int]  # shared by every context of one walk: [count]
    _plan_mode: bool
    _plan_timestamp: str

    @property
    def plan_mode(self) -> bool:
        self.mode_reads[0] += 1
        return self._plan_mode

    @plan_mode.setter
    def plan_mode(self, value: bool) -> None:
        self._plan_mode = value

    @property
    def plan_timestamp(self) -> str:
        self.mode_reads[0] += 1
        return self._plan_timestamp

    @plan_timestamp.setter
    def plan_timestamp(self, value: str) -> None:
        self._plan_timestamp = value


def _module_value(instances: list[ModuleScope], expansion: str, *, live: bool) -> Any:
    """What ``module.NAME`` is: one instance's outputs, a list of them (count) or a map (for_each).

    ``live`` shares each instance's own output table, so outputs appear as they are evaluated;
    otherwise the tables are copied, once every output is known.
    """
    def table(scope: ModuleScope) -> dict[str, Any]:
        return scope.outputs if live else dict(scope.outputs)

    if any(isinstance(c.key[-1][1], UnknownKey) for c in instances):
        return UNKNOWN  # count/for_each not known (validate): neither are the instance keys
    if expansion == "single":
        return table(instances[0]) if instances else {}
    if expansion == "count":
        return [table(c) for c in instances]
    return {c.key[-1][1]: table(c) for c in instances}


def _with_unknown_computed(inst: ResourceInstance) -> Any:
    if inst.config is None:
        return UNKNOWN
    return inst.config
