"""After an interrupted apply: find the objects its unfinished creates may have made.

Replaying the journal (``engine.state.journal``) restores every operation whose result was
recorded. A create whose intent has no result is the dangerous case: the object may exist in the
cloud without being in state, and creating it again would fail (a taken bucket name) or leave a
duplicate nobody manages. Each such create's adapter is asked to look the object up by the planned
arguments its intent recorded (``ResourceType.find``); what it finds is adopted into the state, so
nothing is lost track of. What it cannot look for is reported with the ``ctl import`` command to run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adapters.base import ResourceType
from adapters.registry import Registry
from engine.plan.diff import mark_sensitive, stored_marks
from engine.plan.planner import config_lookup
from engine.plan.refresh import ResourceLookup, config_key
from engine.providers import Providers
from engine.state.address import AddressError, InstanceAddress
from engine.state.journal import Orphan
from engine.state.manager import StateManager
from engine.state.model import InstanceState, State
from vocab.errors import CtlError

if TYPE_CHECKING:
    from engine.validate import Loaded

_log = logging.getLogger(__name__)

FOUND = "found"  # looked up and adopted into the state
ABSENT = "absent"  # looked up and not there: nothing was created
STATE_ONLY = "state-only"  # the type keeps its object in state alone: nothing to look for
UNSEARCHABLE = "unsearchable"  # the planned arguments name no object: the user has to check
FAILED = "failed"  # the lookup itself failed (an unreachable endpoint, no credentials)


@dataclass(frozen=True)
class Outcome:
    """What became of one orphaned operation."""

    orphan: Orphan
    kind: str  # FOUND, ABSENT, STATE_ONLY, UNSEARCHABLE, FAILED; "" for updates and deletes
    object_id: str = ""  # FOUND: the adopted object's id
    import_id: str = ""  # the ID ``ctl import`` would take, when the planned arguments give it
    error: str = ""  # FAILED: why


@dataclass
class Recovery:
    """What loading the state found of an interrupted apply."""

    replayed: bool = False
    orphans: list[Orphan] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    persisted: bool = False  # the recovered state (with adopted objects) was written


def find_orphans(state: State, orphans: list[Orphan], registry: Registry, providers: Providers,
                 config_of: ResourceLookup) -> list[Outcome]:
    """Look up every orphaned create; adopt what is found into ``state`` (in place).

    Updates and deletes need no lookup: the object is in state either way and the next refresh
    reads what it became.
    """
    outcomes = []
    for orphan in orphans:
        outcomes.append(_look_up(state, orphan, registry, providers, config_of) if _is_create(orphan)
                        else Outcome(orphan, ""))
    return outcomes


def _is_create(orphan: Orphan) -> bool:
    return orphan.op == "create" and not orphan.deposed


def _look_up(state: State, orphan: Orphan, registry: Registry, providers: Providers,
             config_of: ResourceLookup) -> Outcome:
    try:
        addr = InstanceAddress.parse(orphan.address)
    except AddressError:
        return Outcome(orphan, UNSEARCHABLE)
    rt = registry.resource_type(addr.type, "managed")
    if rt is None:
        return Outcome(orphan, UNSEARCHABLE)
    if rt.state_only:
        return Outcome(orphan, STATE_ONLY)
    if state.instance(addr) is not None:
        return Outcome(orphan, UNSEARCHABLE)  # an object is recorded there already: a human decides
    identity = orphan.planned_identity if isinstance(orphan.planned_identity, dict) else {}
    path, res_addr = config_key(addr)
    resource = config_of.get((path, res_addr))
    import_id = ""
    try:
        ctx = providers.context(rt, str(addr), path, resource)
        import_id = rt.import_id(ctx, identity) or ""
        if not rt.findable(ctx, identity):
            return Outcome(orphan, UNSEARCHABLE, import_id=import_id)
        found = rt.find(ctx, identity)
    except CtlError as exc:
        return Outcome(orphan, FAILED, import_id=import_id, error=exc.summary)
    except Exception as exc:  # an SDK failure: reported, never fatal to the run that recovers
        _log.debug("looking up %s failed", addr, exc_info=True)
        return Outcome(orphan, FAILED, import_id=import_id, error=str(exc) or type(exc).__name__)
    if found is None:
        return Outcome(orphan, ABSENT, import_id=import_id)
    marked = stored_marks(mark_sensitive(found, rt), rt)
    state.set_instance(addr, InstanceState.from_marked(marked, schema_version=rt.schema_version),
                       provider=providers.state_provider(rt, resource))
    return Outcome(orphan, FOUND, object_id=_shown_id(rt, found), import_id=import_id)


def _shown_id(rt: ResourceType, attrs: dict[str, Any]) -> str:
    if rt.id_attribute in rt.sensitive:
        return "(sensitive value)"
    return str(attrs.get(rt.id_attribute) or "")


def _type_of(address: str) -> str:
    try:
        return InstanceAddress.parse(address).type
    except AddressError:
        return "resource of this type"


def describe(rec: Recovery) -> list[str]:
    """One line per orphaned operation, saying what happened to it and what (if anything) to do."""
    lines = []
    outcomes = rec.outcomes or [Outcome(o, UNSEARCHABLE if _is_create(o) else "") for o in rec.orphans]
    for o in outcomes:
        addr = o.orphan.address
        if o.kind == FOUND:
            where = ("adopted it into the state" if rec.persisted
                     else "this plan counts it as existing; the next apply records it in the state")
            lines.append(f"{addr}: found the object an interrupted apply created (id {o.object_id}); {where}")
        elif o.kind == ABSENT:
            looked = f" (looked for {o.import_id})" if o.import_id else ""
            lines.append(f"{addr}: an interrupted apply started to create it, but nothing was created{looked}; "
                         "the next apply creates it")
        elif o.kind == STATE_ONLY:
            lines.append(f"{addr}: an interrupted apply started to create it; a {_type_of(addr)} leaves nothing "
                         "outside the state, so the next apply simply creates it")
        elif o.kind in (UNSEARCHABLE, FAILED):
            failed = f"; looking it up failed: {o.error}" if o.kind == FAILED else ""
            lines.append(f"{addr}: possibly created by an interrupted apply{failed}; if the object exists, "
                         f"adopt it with: ctl import '{addr}' {o.import_id or 'ID'}")
        else:
            verb = {"delete": "deleted", "update": "updated"}.get(o.orphan.op, o.orphan.op)
            lines.append(f"{addr}: possibly {verb} by an interrupted apply; the next plan's refresh reads "
                         "what it became")
    return lines


__all__ = ["ABSENT", "FAILED", "FOUND", "STATE_ONLY", "UNSEARCHABLE", "Outcome", "Recovery", "describe",
           "find_orphans"]


def load_state(manager: StateManager, *, holding_lock: bool, loaded: Loaded | None = None,
               registry: Registry | None = None) -> tuple[State, Recovery]:
    """Load state, replaying a journal; with the lock held, write the recovered state right away.

    Given the configuration and the adapters, creates the interrupted apply left unfinished are
    looked up and what is found is adopted (``engine.recovery``) before anything is written.
    """
    # The state lives as long as the command: built with the collector paused, then frozen out of
    # its view, as the loaded configuration is (engine.validate), never traversed again.
    state = manager.load()
    rec = Recovery(replayed=manager.replayed, orphans=list(manager.orphans))
    if rec.orphans and loaded is not None and registry is not None:
        assert loaded.walk is not None and loaded.root is not None
        providers = Providers(registry, loaded.walk.provider_configs, loaded.root.dir)
        try:
            rec.outcomes = find_orphans(state, rec.orphans, registry, providers, config_lookup(loaded.root))
        finally:
            providers.close()  # the lookups' provider processes end with them, not with ctl
    if holding_lock and (manager.replayed or manager.journal.appended):
        manager.compact(state)
        rec.persisted = True
    return state, rec
