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

This module runs the steps in order; the flags and the report are in ``options``, the
``--backend-config`` merging in ``backend_config``, the detection of a backend switch in
``backend_change``, the copying in ``migration`` and Terraform's local state files in
``terraform_states``.
"""

from __future__ import annotations

from pathlib import Path

from adapters.registry import Registry
from engine import remote_state
from engine.config.loader import load_config
from engine.config.model import Module
from engine.graph import build_graph
from engine.init.backend_change import changed_error, previous_backend
from engine.init.backend_config import parse_backend_config, unrecorded_secrets
from engine.init.migration import migrate_state
from engine.init.options import InitOptions, InitReport
from engine.init.terraform_states import move_or_name_terraform_states
from engine.install.cache import stopped_by_sigterm
from engine.plugins.init_step import checking_registry, deferred, select_providers
from engine.plugins.selection import Selected
from engine.session import (
    BackendRecord,
    backend_settings,
    public_settings,
    read_backend_record,
    write_backend_record,
)
from engine.validate import check_resource_types
from vocab.errors import CtlError, Diagnostics, DiagnosticsError, UsageError


def initialize(root_dir: Path, opts: InitOptions | None = None) -> InitReport:
    """Load the configuration, check adapters and backend, migrate if asked, write ``.ctl/backend.json``.

    A SIGTERM anywhere in it (a CI runner cancelling while a registry is asked) ends it as Ctrl-C
    does: one message, exit 130, every ``finally`` run, instead of a silent death."""
    with stopped_by_sigterm("ctl init", hint="What finished is kept (installed providers are complete); "
                                             "run `ctl init` again."):
        return _initialize(root_dir, opts)


def _initialize(root_dir: Path, opts: InitOptions | None) -> InitReport:
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
    registry = remote_state.install(checking_registry(selected))
    check_resource_types(root, registry, diags, deferred(selected))
    build_graph(root, Diagnostics())
    if diags.has_errors:
        raise DiagnosticsError(diags.items)

    kind, block = backend_settings(root)
    record = read_backend_record(root_dir)
    if not opts.backend:  # e.g. to validate in CI without the backend's credentials
        report = InitReport(record.kind if record is not None else kind, "not checked, --backend=false")
        _served(report, root, registry, selected)
        return report
    extra = parse_backend_config(opts.backend_config, root_dir)
    settings = {**block, **extra}
    if record is not None and not extra and record.kind == kind and public_settings(block) == public_settings(record.block):
        settings = {**block, **record.config}  # re-running plain `ctl init` keeps what --backend-config gave
    store = factory.make_store(kind, settings, root_dir)

    report = InitReport(kind, store.describe())
    report.warnings = unrecorded_secrets(extra)
    previous = previous_backend(root_dir, record, kind, settings, store)
    migrate = opts.migrate_state or opts.force_copy
    if previous is not None:
        report.previous = previous.where
        if not (migrate or opts.reconfigure):
            raise changed_error(previous, kind, store)
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
    move_or_name_terraform_states(root_dir, root, migrate, opts.lock, report)

    _served(report, root, registry, selected)
    return report


def _served(report: InitReport, root: Module, registry: Registry, selected: list[Selected]) -> None:
    """What serves each provider the configuration uses: a plugin, or an adapter."""
    report.plugins = [f"{s.entry.local_name}: {s.entry.source} v{s.entry.version}"
                      f"{f' (protocol {s.entry.protocol})' if s.entry.protocol is not None else ''} "
                      f"from {s.found_in}" for s in selected]
    used = sorted({registry.provider_for_type(r.type) for _, m in root.walk() for r in m.resources.values()})
    plugin_names = {s.entry.local_name for s in selected}
    report.providers = [(name, p.source) for name in used
                        if (p := registry.provider(name)) is not None and name not in plugin_names]
