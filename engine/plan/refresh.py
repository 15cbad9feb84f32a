"""Refresh: read every object in state through its adapter, concurrently, and note the drift.

Objects that changed outside ctl become ``resource_drift`` entries (update, or delete when the
object is gone); the refreshed state is what the plan compares the configuration against.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from adapters.base import ResourceType
from adapters.registry import Registry
from engine.config.model import Resource
from engine.limiter import Limiter
from engine.plan.diff import changed_attributes, mark_sensitive, stored_marks
from engine.plan.model import ACTIONS_DELETE, ACTIONS_UPDATE, ResourceChange
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.model import InstanceState, State, encode_private
from vocab.errors import CtlError, Diagnostics
from vocab.values import apply_paths

ResourceLookup = dict[tuple[tuple[str, ...], str], Resource]  # (module path, "type.name") -> config
RefreshEvents = Callable[[str, str, dict[str, Any]], None]  # (event, address, details), from worker threads

_log = logging.getLogger(__name__)


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
    limiter: Limiter,
    events: RefreshEvents | None = None,
) -> tuple[State, list[ResourceChange]]:
    """The refreshed state and the drift found; read errors go to ``diags``. That is ``state`` itself
    when no object changed (as ``apply_moved`` gives it back when nothing moved), else a copy.

    Every read holds a slot of the run's ``limiter`` (``-parallelism``), as the plan walk and the
    apply walker do, so the run never has more provider operations in flight than it allows.

    ``events`` lets a progress view follow along: ``refresh_begin`` (``total``) once, then
    ``refresh_start`` / ``refresh_complete`` (or ``refresh_errored``) per instance with its ``id`` and
    ``elapsed`` seconds. It is called from the worker threads, so it must be thread-safe.
    """
    notify = events or (lambda _e, _a, _d: None)
    privates: dict[str, bytes] = {}  # private data the provider returned, by address (one writer each)
    work: list[tuple[InstanceAddress, InstanceState, Any]] = []
    for addr, inst in state.instances():
        if addr.mode != "managed":
            continue
        rt = registry.resource_type(addr.type, "managed")
        if rt is None:
            diags.error(f"Cannot refresh {addr}: no adapter provides {addr.type}", address=str(addr))
            continue
        work.append((addr, inst, rt))

    def fetch(addr: InstanceAddress, name: str, inst: InstanceState, rt: Any) -> tuple[Any, CtlError | None]:
        """The object as the adapter reads it now (``_UNCHANGED`` when reading cannot change it)."""
        if _reads_itself(inst, rt):
            return _UNCHANGED, None
        path, res_addr = config_key(addr)
        resource = config_of.get((path, res_addr))
        try:
            with limiter:
                ctx = providers.context(rt, name, path, resource)
                ctx.stored_schema_version = inst.schema_version
                ctx.private = inst.private_bytes()
                attrs = rt.read(ctx, dict(inst.attributes))
            if ctx.new_private is not None:
                privates[name] = ctx.new_private
            return attrs, None
        except CtlError as exc:
            return None, exc
        except Exception as exc:  # an SDK failure: reported against the address
            return None, CtlError(f"Refreshing {name} failed: {exc}", address=name)

    debug = _log.isEnabledFor(logging.DEBUG)  # a record per object costs more than a state-only read

    def read(item: tuple[InstanceAddress, InstanceState, Any]) -> tuple[Any, BaseException | None]:
        addr, inst, rt = item
        name = str(addr)
        started = time.monotonic()
        secret_id = _id_is_secret(inst)
        notify("refresh_start", name, {"id": None if secret_id else inst.attributes.get("id")})
        attrs, err = fetch(addr, name, inst, rt)
        elapsed = time.monotonic() - started
        if debug:
            _log.debug("refreshed %s in %.3fs", name, elapsed,
                       extra={"address": name, "seconds": round(elapsed, 6), "ok": err is None})
        if err is not None:
            notify("refresh_errored", name, {"error": str(err), "elapsed": elapsed, "error_type": type(err).__name__})
        else:
            current = inst.attributes if attrs is _UNCHANGED else attrs
            fresh_id = current.get("id") if isinstance(current, dict) and not secret_id else None
            notify("refresh_complete", name, {"id": fresh_id, "elapsed": elapsed, "gone": attrs is None})
        return attrs, err

    notify("refresh_begin", "", {"total": len(work)})

    # Objects that live only in state (terraform_data, random_*) are read on this thread: the read
    # is a few dictionary copies, and a future per object would cost more than the read itself.
    with ThreadPoolExecutor(max_workers=limiter.size) as pool:
        pending = {i: pool.submit(read, item) for i, item in enumerate(work) if not item[2].state_only}
        here = {i: read(item) for i, item in enumerate(work) if i not in pending}
        results = [pending[i].result() if i in pending else here[i] for i in range(len(work))]
    # Copied at the first object that changed: most refreshes change nothing, and a copy of a
    # large state's index and lists is a second index beside the state it copies.
    new: State | None = None
    drift: list[ResourceChange] = []
    for (addr, inst, rt), (attrs, err) in zip(work, results, strict=True):
        if err is not None:
            diags.add(err if isinstance(err, CtlError) else CtlError(str(err), address=str(addr)))
            continue
        if attrs is _UNCHANGED:
            continue
        before = inst.marked_attributes()
        new = new if new is not None else state.copy()
        if attrs is None:
            new.remove_instance(addr)
            drift.append(_drift(addr, state, before, None, ACTIONS_DELETE))
            continue
        # What was secret stays secret: the prior object's sensitive paths apply to the fresh one.
        after = mark_sensitive(apply_paths(attrs, list(inst.sensitive_attributes)), rt)
        fresh = InstanceState.from_marked(stored_marks(after, rt), index_key=inst.index_key, schema_version=rt.schema_version,
                                          dependencies=inst.dependencies,
                                          create_before_destroy=inst.create_before_destroy, status=inst.status,
                                          private=encode_private(privates.get(str(addr))) or inst.private,
                                          extra=inst.extra)  # identity fields kept
        if changed_attributes(inst.attributes, fresh.attributes):
            drift.append(_drift(addr, state, before, fresh.marked_attributes(), ACTIONS_UPDATE))
            new.set_instance(addr, fresh)
        elif fresh.private != inst.private:
            new.set_instance(addr, inst.replace(private=fresh.private))  # not drift: the provider's own data
    return (new if new is not None else state), drift


_UNCHANGED = object()  # what a read that would give back the stored object gives instead


def _reads_itself(inst: InstanceState, rt: ResourceType) -> bool:
    """Whether reading ``inst`` would give back exactly the stored object, so it need not be read.

    So it is for a type that lives only in state (``terraform_data``, ``random_*``) and keeps the
    default read, when the stored object is already at the type's schema version: refreshing tens
    of thousands of them was a provider context, a copy and a comparison each, to learn nothing.
    """
    return rt.state_only and type(rt).read is ResourceType.read and inst.schema_version == rt.schema_version


def _id_is_secret(inst: InstanceState) -> bool:
    return any(tuple(p)[:1] == ("id",) for p in inst.sensitive_attributes)


def _drift(addr: InstanceAddress, state: State, before: dict[str, Any], after: dict[str, Any] | None,
           actions: tuple[str, ...]) -> ResourceChange:
    res = state.resource(addr)
    return ResourceChange(
        address=str(addr), module_address=addr.module_str, mode=addr.mode, type=addr.type, name=addr.name,
        index=addr.key, provider=res.provider if res else "", actions=actions, before=before, after=after,
    )
