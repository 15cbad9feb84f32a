"""The plan walk's decision for each resource instance: create, update, replace, read or nothing.

Called by ``ConfigWalk`` once per instance, in dependency order, with the instance's evaluated
arguments. It asks the adapter to fill in computed attributes, compares with the refreshed prior
object, applies ``ignore_changes``/``replace_triggered_by``/``prevent_destroy``/``--replace``, checks
preconditions, records the change, and returns the planned value that later references see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from adapters.base import ResourceType
from adapters.registry import Registry
from engine import schema
from engine.graph import RESOURCE, Graph, Node
from engine.lang.conditions import failed_condition
from engine.lang.references import references
from engine.limiter import Limiter
from engine.plan.diff import (
    call_plain,
    changed_attributes,
    equal,
    keep_ignored_changes,
    mark_sensitive,
    plain,
)
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_NOOP,
    ACTIONS_READ,
    ACTIONS_REPLACE,
    ACTIONS_REPLACE_CBD,
    ACTIONS_UPDATE,
    ResourceChange,
)
from engine.plan.targets import Selection
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.model import InstanceState, State
from engine.telemetry.timings import Timings, short_message
from engine.walk.config import ResourceInstance, WalkHooks
from vocab.errors import CtlError, Diagnostics
from vocab.values import UNKNOWN, contains_unknown


class PlanHooks(WalkHooks):
    plan_mode = True

    def __init__(
        self,
        registry: Registry,
        diags: Diagnostics,
        *,
        graph: Graph,
        prior: State,
        providers: Providers,
        mode: str,
        replace: list[str],
        selection: Selection | None,
        previous_addresses: dict[str, str],
        resource_deps: dict[Node, list[str]],
        limiter: Limiter,
        timings: Timings | None = None,
    ) -> None:
        self.registry = registry
        self.timings = timings
        self.limiter = limiter
        self.diags = diags
        self.graph = graph
        self.prior = prior
        self.providers = providers
        self.mode = mode
        self.replace = set(replace)
        self.selection = selection
        self.previous = previous_addresses
        self.resource_deps = resource_deps
        self.changes: dict[str, ResourceChange] = {}
        self.visited: set[str] = set()
        self.data_reads: dict[str, InstanceState] = {}

    def resource_values(self, instances: list[ResourceInstance]) -> list[Any]:
        """Instances whose planning waits on another process (a provider plugin) are planned
        concurrently, up to the run's parallelism: each waits on its own RPCs, not on its siblings."""
        if len(instances) < 2:
            return super().resource_values(instances)
        res = instances[0].resource
        rt = self.registry.resource_type(res.type, res.mode)
        if rt is None or not rt.remote_plan:
            return super().resource_values(instances)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(self.limiter.size, len(instances)),
                                thread_name_prefix="plan") as pool:
            return list(pool.map(self.resource_value, instances))

    # ---- entry point -----------------------------------------------------------------------

    def resource_value(self, inst: ResourceInstance) -> Any:
        """The instance's planned value, planned holding a slot of the run's limiter (its provider
        operations: the plan, or a data source's read); timed for the timing report only when one is
        asked for."""
        with self.limiter:
            return self._timed_value(inst)

    def _timed_value(self, inst: ResourceInstance) -> Any:
        if self.timings is None:
            return self._resource_value(inst)
        started = time.perf_counter()
        error = message = ""
        try:
            return self._resource_value(inst)
        except BaseException as exc:
            error, message = type(exc).__name__, short_message(str(exc))
            raise
        finally:
            change = self.changes.get(inst.address)
            self.timings.resource(inst.address, "plan", time.perf_counter() - started, ok=not error, error=error,
                                  message=message,
                                  action="-".join(change.actions) if change is not None else "",
                                  provider=change.provider if change is not None else "")

    def _resource_value(self, inst: ResourceInstance) -> Any:
        res = inst.resource
        self.visited.add(inst.address)
        rt = self.registry.resource_type(res.type, res.mode)
        prior_obj = self.prior.instance(inst.address)
        prior = prior_obj.marked_attributes() if prior_obj is not None else None
        if prior is not None and rt is not None:
            prior = mark_sensitive(rt.from_state(prior), rt)
        if rt is None or inst.config is None:
            return prior if prior is not None else UNKNOWN
        config = schema.normalize(rt, inst.config)
        checked = inst.checked  # the validate walk's findings on this very configuration
        self.diags.extend(checked if checked is not None else
                          schema.check(rt, config, inst.address, res.body, res.type_at))
        node = Node(inst.scope.path, RESOURCE, res.address)
        if self.selection is not None and not self.selection.allows(inst.address, node):
            return prior if prior is not None else UNKNOWN
        if res.mode == "data":
            if self.mode == "destroy":
                # Nothing will be read during a destroy; references see the last value read.
                return prior if prior is not None else UNKNOWN
            return self._data(inst, rt, config, node)
        if self.mode == "refresh-only":
            return prior if prior is not None else UNKNOWN
        if self.mode == "destroy":
            if prior is not None:
                self._record(inst, rt, ACTIONS_DELETE, prior, None, node)
                self._check_prevent_destroy(inst)
            return prior if prior is not None else UNKNOWN
        tainted = prior_obj is not None and prior_obj.status == "tainted"
        return self._managed(inst, rt, config, prior, node, tainted=tainted,
                             private=prior_obj.private_bytes() if prior_obj is not None else b"",
                             prior_is_plain=prior_obj is not None and not prior_obj.sensitive_attributes)

    # ---- managed resources -----------------------------------------------------------------

    def _managed(self, inst: ResourceInstance, rt: ResourceType, config: dict[str, Any],
                 prior: dict[str, Any] | None, node: Node, *, tainted: bool = False,
                 private: bytes = b"", prior_is_plain: bool = False) -> Any:
        """Plan one managed instance; a tainted object (a create that failed halfway, or
        ``ctl taint``) is always replaced, as Terraform does.

        ``prior_is_plain``: the prior object has no secrets, so it has no marks to take off.
        """
        ctx = self.providers.context(rt, inst.address, inst.scope.path, inst.resource)
        ctx.private = private
        lc = inst.resource.lifecycle
        if rt.remote_plan and prior is not None and lc.ignore_changes:
            # As Terraform does: the provider plans from a configuration whose ignored arguments
            # hold their prior values, so what it plans (and later applies) keeps them.
            config = keep_ignored_changes(config, prior, lc.ignore_changes, rt)
        prior_plain = prior if prior_is_plain else plain(prior)
        try:
            planned = call_plain(rt.plan, ctx, prior_plain, marked=config)
        except CtlError as err:
            self.diags.add(err)
            return prior if prior is not None else UNKNOWN
        planned = mark_sensitive(planned, rt)
        if prior is None:
            self._preconditions(inst)
            self._record(inst, rt, ACTIONS_CREATE, None, planned, node)
            self._postconditions(inst, planned)
            return planned
        if prior is not None and lc.ignore_changes:
            planned = keep_ignored_changes(planned, prior, lc.ignore_changes, rt)
        planned_plain = plain(planned)
        changed = changed_attributes(prior_plain or {}, planned_plain)
        declared = schema.argument_names(rt)
        changed = [k for k in changed if k in declared]
        forcing = rt.requires_replace(ctx, prior_plain or {}, planned_plain, changed)
        reason = "replace_because_cannot_update" if forcing else None
        if tainted:
            reason = "replace_because_tainted"
        elif inst.address in self.replace:
            reason = "replace_by_request"
        elif not forcing and self._triggered(inst):
            reason = "replace_by_triggers"
        if reason is not None:
            try:
                fresh = call_plain(rt.plan, ctx, None, marked=config)
            except CtlError as err:
                self.diags.add(err)
                return prior
            fresh = mark_sensitive(fresh, rt)
            actions = ACTIONS_REPLACE_CBD if lc.create_before_destroy else ACTIONS_REPLACE
            self._check_prevent_destroy(inst)
            self._preconditions(inst)
            self._record(inst, rt, actions, prior, fresh, node, replace_paths=forcing,
                         reason=reason)
            self._postconditions(inst, fresh)
            return fresh
        if not changed:
            self._preconditions(inst)
            self._record(inst, rt, ACTIONS_NOOP, prior, prior, node)
            self._postconditions(inst, prior)
            return prior
        self._preconditions(inst)
        self._record(inst, rt, ACTIONS_UPDATE, prior, planned, node)
        self._postconditions(inst, planned)
        return planned

    def _triggered(self, inst: ResourceInstance) -> bool:
        """``replace_triggered_by``: a referenced resource instance is being changed."""
        for expr in inst.resource.lifecycle.replace_triggered_by:
            for ref in references(expr):
                if ref.root in ("count", "each", "self", "var", "local", "path", "terraform"):
                    continue
                parts = [p for p in ref.parts if isinstance(p, str)]
                if not parts:
                    continue
                target = f"{ref.root}.{parts[0]}"
                prefix = inst.module_address + "." if inst.module_address else ""
                for addr, change in tuple(self.changes.items()):  # a snapshot: sibling instances may be planning
                    if addr.startswith(prefix + target) and change.actions not in (ACTIONS_NOOP, ACTIONS_READ):
                        rest = addr[len(prefix + target):]
                        if rest == "" or rest.startswith("["):
                            return True
        return False

    def _check_prevent_destroy(self, inst: ResourceInstance) -> None:
        if inst.resource.lifecycle.prevent_destroy:
            self.diags.error(
                "Instance cannot be destroyed",
                detail=f"{inst.address} has lifecycle.prevent_destroy set, but the plan would destroy it.",
                hint="Remove prevent_destroy, or change the plan so it keeps this object.",
                range=inst.resource.rng,
                address=inst.address,
            )

    # ---- data sources ----------------------------------------------------------------------

    def _data(self, inst: ResourceInstance, rt: ResourceType, config: dict[str, Any], node: Node) -> Any:
        pending = self._dependency_pending(node)
        if contains_unknown(config) or pending:
            planned = call_plain(rt.plan, self.providers.context(rt, inst.address, inst.scope.path, inst.resource),
                                 None, marked=config)
            # Terraform names unknown configuration first; a pending dependency only when it is known.
            reason = "read_because_config_unknown" if contains_unknown(config) else "read_because_dependency_pending"
            self._record(inst, rt, ACTIONS_READ, None, planned, node, reason=reason)
            return planned
        try:
            ctx = self.providers.context(rt, inst.address, inst.scope.path, inst.resource)
            result = call_plain(rt.read, ctx, marked=config)
        except CtlError as err:
            err.address = err.address or inst.address
            self.diags.add(err)
            return UNKNOWN
        if result is None:
            self.diags.error(f"{inst.address}: the data source found nothing", address=inst.address)
            return UNKNOWN
        result = mark_sensitive(result, rt)
        self.data_reads[inst.address] = InstanceState.from_marked(result, schema_version=rt.schema_version)
        return result

    def _dependency_pending(self, node: Node) -> bool:
        deps = self.resource_deps.get(node, [])
        if not deps:
            return False
        for addr, change in tuple(self.changes.items()):  # a snapshot: sibling instances may be planning
            if change.actions in (ACTIONS_NOOP, ACTIONS_READ):
                continue
            if static_address(addr) in deps:
                return True
        return False

    # ---- conditions ------------------------------------------------------------------------

    def _preconditions(self, inst: ResourceInstance) -> None:
        self._conditions(inst, inst.resource.lifecycle.preconditions, None, "precondition")

    def _postconditions(self, inst: ResourceInstance, planned: Any) -> None:
        self._conditions(inst, inst.resource.lifecycle.postconditions, planned, "postcondition")

    def _conditions(self, inst: ResourceInstance, conditions: Sequence[Any], self_value: Any, kind: str) -> None:
        if not conditions:
            return
        ctx = inst.eval_ctx(self_value)
        for cond in conditions:
            try:
                msg = failed_condition(cond, ctx)  # an unknown result is checked again during apply
            except CtlError as err:
                self.diags.add(err)
                continue
            if msg is not None:
                self.diags.error(f"Resource {kind} failed", detail=f"{inst.address}: {msg}",
                                 range=cond.rng, address=inst.address)

    # ---- recording -------------------------------------------------------------------------

    def _record(self, inst: ResourceInstance, rt: ResourceType, actions: tuple[str, ...],
                before: dict[str, Any] | None, after: dict[str, Any] | None, node: Node,
                *, replace_paths: list[list[str | int]] | None = None, reason: str | None = None) -> None:
        res = inst.resource
        self.changes[inst.address] = ResourceChange(
            address=inst.address,
            module_address=inst.module_address,
            mode=res.mode,
            type=res.type,
            name=res.name,
            index=None if inst.key is None else inst.key,
            provider=self.providers.state_provider(rt, res),
            actions=actions,
            before=before,
            after=after,
            replace_paths=replace_paths or [],
            action_reason=reason,
            previous_address=self.previous.get(inst.address),
            dependencies=self.resource_deps.get(node, []),
            create_before_destroy=res.lifecycle.create_before_destroy,
            schema_version=rt.schema_version,
        )


def static_address(addr: str) -> str:
    """``module.net["a"].aws_x.y[0]`` -> ``module.net.aws_x.y``: the resource block it came from."""
    a = InstanceAddress.parse(addr)
    mods = "".join(f"module.{name}." for name, _ in a.module)
    return f"{mods}{'data.' if a.mode == 'data' else ''}{a.type}.{a.name}"


__all__ = ["PlanHooks", "equal"]
