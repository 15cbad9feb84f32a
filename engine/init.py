"""``ctl init``: check a configuration directory, check its backend, and record the backend in ``.ctl/``.

The backend block is completed by ``--backend-config`` (``NAME=VALUE`` or an HCL file of attributes,
later ones winning, as Terraform merges them) and the result is recorded in ``.ctl/backend.json`` —
credentials left out, so the file can be cached and shared — for every later command to use.

Before a backend is recorded, its store is probed: a store that does not really refuse a second
conditional create or a stale compare-and-swap would make every lock and every state write a
silent no-op, so it is refused with the reason. Switching an initialized directory to another
backend (or other settings) is refused unless the user says what should happen to the state:
``--migrate-state`` copies every workspace, byte for byte, under the locks of both stores;
``--reconfigure`` switches without copying.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backends.base import StateStore, state_facts
from backends.local import DEFAULT_FILENAME
from engine import remote_state
from engine.config.loader import load_config
from engine.config.structured import parse_json_file
from engine.config.syntax import EMPTY_SCHEMA
from engine.errors import CtlError, Diagnostics, DiagnosticsError, UsageError
from engine.graph import build_graph
from engine.install.installer import DownloadProgress
from engine.lang.hcl import parse_hcl_file
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.plugins.init_step import select_providers
from engine.plugins.registry import registry_for
from engine.session import (
    BackendRecord,
    backend_settings,
    constant_settings,
    is_secret_setting,
    manager_for,
    public_settings,
    read_backend_record,
    write_backend_record,
)
from engine.state.model import State
from engine.validate import check_resource_types

MIGRATE_OPERATION = "OperationTypeMigrate"


@dataclass(frozen=True)
class MigratedWorkspace:
    """One workspace's state as copied (or found already copied) to the new backend."""

    workspace: str
    serial: int | None
    lineage: str
    resources: int
    already_there: bool = False


@dataclass(frozen=True)
class Migration:
    """What ``--migrate-state`` is about to copy, for the confirmation prompt."""

    source: str
    destination: str
    workspaces: list[str]


@dataclass
class InitOptions:
    """The ``ctl init`` flags; ``confirm`` (if given) is asked before copying unless ``force_copy``."""

    backend_config: list[str] = field(default_factory=list)
    migrate_state: bool = False
    reconfigure: bool = False
    force_copy: bool = False
    lock: LockOptions = field(default_factory=LockOptions)
    confirm: Callable[[Migration], bool] | None = None
    plugin_dirs: list[str] | None = None  # -plugin-dir (see engine/plugins/init_step.py)
    native: bool | None = None  # -native=false: provider plugins serve every type of their provider
    upgrade: bool = False  # -upgrade: choose provider versions anew within the constraints
    progress: DownloadProgress | None = None  # called as provider packages download


@dataclass
class InitReport:
    backend: str
    location: str
    providers: list[tuple[str, str]] = field(default_factory=list)
    previous: str | None = None  # where the state was before, when the backend changed
    migrated: list[MigratedWorkspace] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)  # "NAME SOURCE vVERSION (protocol N) from DIR"
    terraform_moved: list[str] = field(default_factory=list)  # Terraform local states moved in


def initialize(root_dir: Path, opts: InitOptions | None = None) -> InitReport:
    """Load the configuration, check adapters and backend, migrate if asked, write ``.ctl/backend.json``."""
    from backends import factory

    opts = opts or InitOptions()
    if opts.migrate_state and opts.reconfigure:
        raise UsageError("--migrate-state and --reconfigure exclude each other",
                         hint="--migrate-state copies the state to the new backend; --reconfigure does not.")
    root, diags = load_config(root_dir)
    if diags.has_errors:
        raise DiagnosticsError(diags.items)
    selected = select_providers(root_dir, root, opts.plugin_dirs, opts.native, upgrade=opts.upgrade,
                                progress=opts.progress)
    registry = remote_state.install(registry_for(root_dir))
    check_resource_types(root, registry, diags)
    build_graph(root, Diagnostics())
    if diags.has_errors:
        raise DiagnosticsError(diags.items)

    kind, block = backend_settings(root)
    extra = parse_backend_config(opts.backend_config, root_dir)
    record = read_backend_record(root_dir)
    settings = {**block, **extra}
    if record is not None and not extra and record.kind == kind and public_settings(block) == public_settings(record.block):
        settings = {**block, **record.config}  # re-running plain `ctl init` keeps what --backend-config gave
    store = factory.make_store(kind, settings, root_dir)

    report = InitReport(kind, store.describe())
    report.plugins = [f"{s.entry.local_name}: {s.entry.source} v{s.entry.version} (protocol {s.entry.protocol}) "
                      f"from {s.found_in}" for s in selected]
    report.warnings = _unrecorded_secrets(extra)
    previous = _previous(root_dir, record, kind, settings, store)
    migrate = opts.migrate_state or opts.force_copy
    if previous is not None:
        report.previous = previous.where
        if not (migrate or opts.reconfigure):
            raise _changed_error(previous, kind, store)
        if migrate and previous.store is None:
            raise CtlError(
                f"cannot open the previous backend {previous.where} to copy its state: {previous.problem}",
                hint="Its credentials come from the environment; or run `ctl init --reconfigure` to switch "
                     "without copying.",
            )
    store.probe()
    if previous is not None and previous.store is not None and migrate:
        report.migrated = migrate_state(previous.store, store, root_dir, opts)
    write_backend_record(root_dir, BackendRecord(kind, settings, block))
    _terraform_states(root_dir, root, migrate, opts.lock, report)

    used = sorted({registry.provider_for_type(r.type) for _, m in root.walk() for r in m.resources.values()})
    plugin_names = {s.entry.local_name for s in selected}
    report.providers = [(name, p.source) for name in used
                        if (p := registry.provider(name)) is not None and name not in plugin_names]
    return report


def _terraform_states(root_dir: Path, root: Any, migrate: bool, lock: LockOptions, report: InitReport) -> None:
    """Terraform's own local states next to the configuration: moved in with --migrate-state, else named."""
    from engine.session import open_store
    from engine.state_tools.terraform_files import migrate_terraform_states, terraform_states

    found = terraform_states(root_dir)
    if not found:
        return
    store = open_store(root_dir, root)  # sealed, when the configuration encrypts state
    if migrate:
        for moved in migrate_terraform_states(root_dir, store, lock):
            report.terraform_moved.append(f'{moved.path.relative_to(root_dir)} → workspace "{moved.workspace}" '
                                          f"({moved.resources} resource(s); the file is kept as "
                                          f"{moved.path.name}.migrated)")
        return
    for state in found:
        if store.read(state.workspace) is None:
            report.warnings.append(
                f"{state.path.relative_to(root_dir)} holds {state.resources} resource(s) written by Terraform; "
                "ctl keeps its state in the backend above and would plan to create them again. Run "
                "`ctl init --migrate-state` to move it in.")


# -- --backend-config ---------------------------------------------------------------------------------


def parse_backend_config(items: list[str], root_dir: Path) -> dict[str, Any]:
    """Merge ``--backend-config`` arguments in order: ``NAME=VALUE`` pairs and HCL (or JSON) files.

    As with Terraform, an argument with ``=`` is a pair unless a file of that name exists; a file is
    looked up from the working directory, then from the configuration directory.
    """
    merged: dict[str, Any] = {}
    for item in items:
        path = Path(item).expanduser()
        candidates = [path] if path.is_absolute() else [path, root_dir / path]
        found = next((p for p in candidates if p.is_file()), None)
        if found is not None:
            merged.update(_settings_file(found))
            continue
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f'--backend-config "{item}": no such file, and not NAME=VALUE',
                             hint="Give a file of backend settings, or NAME=VALUE (repeat the option for more).")
        if not name.strip():
            raise UsageError(f'--backend-config "{item}": the setting name is empty')
        merged[name.strip()] = value
    return merged


def _settings_file(path: Path) -> dict[str, Any]:
    """The attributes of a settings file: HCL (``*.tfbackend``, ``*.hcl`` …) or JSON (``*.json``)."""
    try:
        src = path.read_bytes()
    except OSError as exc:
        raise CtlError(f"cannot read the backend settings file {path}: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        return constant_settings(parse_json_file(src, str(path), EMPTY_SCHEMA))
    return constant_settings(parse_hcl_file(src, str(path)))


def _unrecorded_secrets(extra: dict[str, Any]) -> list[str]:
    names = sorted(n for n, v in extra.items() if is_secret_setting(n, v))
    if not names:
        return []
    return [
        f"--backend-config {', '.join(names)} {'is' if len(names) == 1 else 'are'} not recorded in "
        ".ctl/backend.json: later commands take credentials from the environment (or the backend "
        "block); see docs/backends.md."
    ]


# -- backend changes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Previous:
    """Where the state was before, when that is another place: the store, if it could be opened."""

    where: str
    store: StateStore | None
    problem: str = ""


def _previous(root_dir: Path, record: BackendRecord | None, kind: str, settings: dict[str, Any],
              new: StateStore) -> _Previous | None:
    """The backend the state was in before, when the configuration now names another; else None.

    Without a record, a directory that used the local default (``ctl.tfstate``) before getting a
    backend block has its state there: that counts as a change only when there is state to lose.
    Opening the previous store may fail (its credentials are gone): that matters only for copying.
    """
    from backends import factory

    if record is None:
        if kind == "local" and new.describe() == str(root_dir / DEFAULT_FILENAME):
            return None
        old = factory.make_store("local", {}, root_dir)
        return _Previous(f"local ({old.describe()})", old) if _workspaces_with_state(old) else None
    if record.kind == kind and public_settings(record.config) == public_settings(settings):
        return None
    try:
        old = factory.make_store(record.kind, record.config, root_dir)
    except CtlError as exc:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(public_settings(record.config).items()))
        return _Previous(f"{record.kind} ({shown})", None, exc.summary)
    if record.kind == kind and old.describe() == new.describe():
        return None  # other spelling, same place (``./ctl.tfstate`` and ``ctl.tfstate``)
    return _Previous(f"{record.kind} ({old.describe()})", old)


def _changed_error(previous: _Previous, kind: str, new: StateStore) -> CtlError:
    return CtlError(
        f"Backend configuration changed: {previous.where} → {kind} ({new.describe()})",
        detail="The state of the previous backend is not copied unless you ask for it.",
        hint="Run `ctl init --migrate-state` to copy every workspace's state to the new backend, or "
             "`ctl init --reconfigure` to use the new backend without copying.",
    )


def _workspaces_with_state(store: StateStore) -> list[str]:
    """Workspaces that hold a state or the journal of an interrupted apply (both must move)."""
    return [ws for ws in store.workspaces() if store.read(ws) is not None or store.journal_read(ws)]


# -- --migrate-state ----------------------------------------------------------------------------------


def migrate_state(old: StateStore, new: StateStore, root_dir: Path, opts: InitOptions) -> list[MigratedWorkspace]:
    """Copy every workspace from ``old`` to ``new`` under both locks, byte for byte.

    Writing the same bytes keeps lineage and serial, so saved plans, ``state push`` checks and the
    history keep working. Every destination is checked before anything is copied, so a refusal
    leaves both stores as they were; each workspace is checked again once both locks are held.
    """
    names = _workspaces_with_state(old)
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
    State.from_json(snap.data, manager.source)  # a corrupt document is refused, naming its object
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


__all__ = [
    "InitOptions",
    "InitReport",
    "MigratedWorkspace",
    "Migration",
    "initialize",
    "migrate_state",
    "parse_backend_config",
]
