"""``ctl init --migrate-state``: copy every workspace's state to the new backend, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from backends.base import StateStore, state_facts
from engine.init.backend_change import workspaces_with_state
from engine.init.options import InitOptions, MigratedWorkspace, Migration
from engine.locking.hold import locked
from engine.session import manager_for
from engine.state.codec import decode_state
from vocab.errors import CtlError

MIGRATE_OPERATION = "OperationTypeMigrate"


def migrate_state(old: StateStore, new: StateStore, root_dir: Path, opts: InitOptions) -> list[MigratedWorkspace]:
    """Copy every workspace from ``old`` to ``new`` under both locks, byte for byte.

    Writing the same bytes keeps lineage and serial, so saved plans, ``state push`` checks and the
    history keep working. Every destination is checked before anything is copied, so a refusal
    leaves both stores as they were; each workspace is checked again once both locks are held.
    """
    names = workspaces_with_state(old)
    for ws in names:
        snap = old.read(ws)
        if snap is not None:
            _check_destination(new, ws, snap.data, root_dir)
    plan = Migration(old.describe(), new.describe(), names)
    if names and not opts.force_copy and opts.confirm is not None and not opts.confirm(plan):
        raise CtlError("State migration cancelled", hint="Nothing was copied; the backend was not changed.")
    done = []
    for ws in names:
        with locked(old, ws, MIGRATE_OPERATION, opts.lock), locked(new, ws, MIGRATE_OPERATION, opts.lock):
            done.extend(_copy_workspace(old, new, ws, root_dir))
    return done


def _copy_workspace(old: StateStore, new: StateStore, ws: str, root_dir: Path) -> list[MigratedWorkspace]:
    manager = manager_for(old, ws, root_dir)
    state = manager.load()  # an interrupted apply's journal is folded in first: it must not be left behind
    if manager.replayed or manager.journal.appended:
        manager.compact(state)
    snap = old.read(ws)
    if snap is None:
        return []
    decode_state(snap.data, manager.source)  # a corrupt document is refused, naming its object
    facts = state_facts(snap.data)
    lineage = _lineage(snap.data)
    already = _check_destination(new, ws, snap.data, root_dir)
    if not already:
        new.write(ws, snap.data, expected=None)
    return [MigratedWorkspace(ws, facts.serial, lineage, facts.resources, already_there=already)]


def _check_destination(new: StateStore, ws: str, data: bytes, root_dir: Path) -> bool:
    """True when ``new`` already holds exactly this state; an error when it holds another one."""
    there = new.read(ws)
    if there is None:
        return False
    if there.data == data:
        return True
    where = manager_for(new, ws, root_dir).source
    mine, theirs = state_facts(data), state_facts(there.data)
    raise CtlError(
        f'Cannot migrate workspace "{ws}": {where} already holds a different state',
        detail=f"There: lineage {_lineage(there.data) or '?'}, serial {theirs.serial}, {theirs.resources} "
               f"resources. To copy: lineage {_lineage(data) or '?'}, serial {mine.serial}, {mine.resources} "
               "resources.",
        hint="Nothing was copied. Remove or move that state first, or run `ctl init --reconfigure` to use "
             "the new backend's state as it is.",
    )


def _lineage(data: bytes) -> str:
    try:
        doc = json.loads(data)
    except ValueError:
        return ""
    value = doc.get("lineage") if isinstance(doc, dict) else None
    return value if isinstance(value, str) else ""

