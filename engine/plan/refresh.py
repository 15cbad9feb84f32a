"""Refresh: read every object in state through its adapter, concurrently, and note the drift.

Objects that changed outside ctl become ``resource_drift`` entries (update, or delete when the
object is gone); the refreshed state is what the plan compares the configuration against.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from adapters.registry import Registry
from engine.config.model import Resource
from engine.errors import CtlError, Diagnostics
from engine.lang.values import apply_paths
from engine.plan.diff import changed_attributes, mark_sensitive
from engine.plan.model import ACTIONS_DELETE, ACTIONS_UPDATE, ResourceChange
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.model import InstanceState, State

ResourceLookup = dict[tuple[tuple[str, ...], str], Resource]  # (module path, "type.name") -> config


def config_key(addr: InstanceAddress) -> tuple[tuple[str, ...], str]:
    """Where an instance's resource block is: its module call path and its address in that module."""
    prefix = "data." if addr.mode == "data" else ""
    return tuple(name for name, _ in addr.module), f"{prefix}{addr.type}.{addr.name}"


def refresh(
    state: State,
    registry: Registry,
    providers: Providers,
    config_of: ResourceLookup,
    diags: Diagnostics,
    parallelism: int = 10,
) -> tuple[State, list[ResourceChange]]:
    """A refreshed copy of ``state`` and the drift found; read errors go to ``diags``."""
    work: list[tuple[InstanceAddress, InstanceState, Any]] = []
    for addr, inst in state.instances():
        if addr.mode != "managed":
            continue
        rt = registry.resource_type(addr.type, "managed")
        if rt is None:
            diags.error(f"Cannot refresh {addr}: no adapter provides {addr.type}", address=str(addr))
            continue
        work.append((addr, inst, rt))

    def read(item: tuple[InstanceAddress, InstanceState, Any]) -> tuple[Any, BaseException | None]:
        addr, inst, rt = item
        path, res_addr = config_key(addr)
        resource = config_of.get((path, res_addr))
        try:
            ctx = providers.context(rt, str(addr), path, resource)
            return rt.read(ctx, dict(inst.attributes)), None
        except CtlError as exc:
            return None, exc
        except Exception as exc:  # an SDK failure: reported against the address
            return None, CtlError(f"Refreshing {addr} failed: {exc}", address=str(addr))

    with ThreadPoolExecutor(max_workers=max(1, parallelism)) as pool:
        results = list(pool.map(read, work))
    new = state.copy()
    drift: list[ResourceChange] = []
    for (addr, inst, rt), (attrs, err) in zip(work, results, strict=True):
        if err is not None:
            diags.add(err if isinstance(err, CtlError) else CtlError(str(err), address=str(addr)))
            continue
        before = inst.marked_attributes()
        if attrs is None:
            new.remove_instance(addr)
            drift.append(_drift(addr, state, before, None, ACTIONS_DELETE))
            continue
        # What was secret stays secret: the prior object's sensitive paths apply to the fresh one.
        after = mark_sensitive(apply_paths(attrs, list(inst.sensitive_attributes)), rt)
        fresh = InstanceState.from_marked(after, index_key=inst.index_key, schema_version=inst.schema_version,
                                          dependencies=inst.dependencies,
                                          create_before_destroy=inst.create_before_destroy, status=inst.status)
        if changed_attributes(inst.attributes, fresh.attributes):
            drift.append(_drift(addr, state, before, fresh.marked_attributes(), ACTIONS_UPDATE))
            new.set_instance(addr, fresh)
    return new, drift


def _drift(addr: InstanceAddress, state: State, before: dict[str, Any], after: dict[str, Any] | None,
           actions: tuple[str, ...]) -> ResourceChange:
    res = state.resource(addr)
    return ResourceChange(
        address=str(addr), module_address=addr.module_str, mode=addr.mode, type=addr.type, name=addr.name,
        index=addr.key, provider=res.provider if res else "", actions=actions, before=before, after=after,
    )
