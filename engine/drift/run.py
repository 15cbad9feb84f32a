"""``ctl drift``: refresh, report what changed outside ctl, and record it only when asked.

The refresh is a refresh-only plan (``engine.operations``), so the reading, the provider setup and
the drift found are exactly what ``ctl plan`` shows in its "changed outside of ctl" section. Without
``record`` nothing holds the state lock and nothing is written: the run is a read, as ``ctl plan``
is by default. With ``record`` it is ``ctl apply -refresh-only`` without the question: the lock is
held while the state is read, refreshed and written back, and only then.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from adapters.registry import Registry
from engine.config.model import Module
from engine.drift.adopt import Adoption
from engine.drift.detect import ObjectDrift, drifted_objects
from engine.operations import RunOptions, apply_run, plan_only
from engine.plan.model import Plan
from engine.plan.planner import config_lookup
from engine.plan.refresh import config_key
from engine.state.address import InstanceAddress
from vocab.errors import CtlError, DiagnosticsError
from vocab.positions import SourceRange


@dataclass
class DriftReport:
    """What one ``ctl drift`` run found, and whether it recorded it in the state."""

    plan: Plan
    objects: list[ObjectDrift]
    recorded: bool
    where: dict[str, SourceRange]  # address -> its resource block, for annotations
    root: Module | None = None  # the configuration read (without --refresh-state)

    @property
    def drifted(self) -> bool:
        return bool(self.objects)


def run_drift(opts: RunOptions, *, record: bool, events: Any = None, registry: Registry | None = None) -> DriftReport:
    """Refresh under ``opts`` (its targets select what is reported) and report the drift; ``registry``:
    the providers to read with, when the caller needs them after the read too."""
    opts.plan.mode = "refresh-only"
    opts.policy = None  # a report, not a change: nothing for the policies to gate
    targets = list(opts.plan.targets)
    where: dict[str, SourceRange] = {}
    if record:
        plan, _ = apply_run(opts, registry, saved_plan=None, confirm=lambda _plan: True, events=events)
        recorded = bool(plan.drift)
    else:
        opts.take_lock = False
        planned = plan_only(opts, registry, events=events)
        plan, recorded = planned.plan, False
        lookup = config_lookup(planned.result.root)
        for change in plan.drift:
            try:
                res = lookup.get(config_key(InstanceAddress.parse(change.address)))
            except Exception:  # an address that names no block: no location, the report still stands
                res = None
            if res is not None:
                where[change.address] = res.rng
    root = None if record else planned.result.root
    return DriftReport(plan, drifted_objects(plan.drift, targets), recorded, where, root)


def run_adopt(opts: RunOptions, addresses: list[str], *, allow_sensitive: bool, write: bool) -> tuple[DriftReport, Adoption]:
    """Refresh (read only), then rewrite the configuration's literals to what was read.

    Every file is checked before any is written: one that cannot be written, or that would not read
    back as HCL, stops the whole adoption with nothing changed.
    """
    from engine.drift.adopt import plan_adoption
    from engine.plugins.registry import registry_for

    opts.plan.targets = list(addresses)
    registry = registry_for(opts.root)  # one for the read and the adoption: each schema decoded once
    report = run_drift(opts, record=False, registry=registry)
    assert report.root is not None
    adoption = plan_adoption(opts.root, report.root, report.plan.drift, report.objects, registry,
                             allow_sensitive=allow_sensitive)
    adoption.files = {f: (old, _styled(f, old, new)) for f, (old, new) in adoption.files.items()}
    adoption.shown_files = {f: (old, _styled(f, old, new)) for f, (old, new) in adoption.shown_files.items()}
    if write:
        _write_all(adoption)
    return report, adoption


def _styled(file: Path, old: str, new: str) -> str:
    """``new``, formatted when ``old`` was already as ``ctl fmt`` writes it; checked to read as HCL."""
    from engine.fmt import format_source
    from engine.lang.hcl import parse_hcl_file

    if file.name.endswith((".tf.json", ".tf.yaml", ".tf.yml")):
        try:
            json.loads(new) if file.name.endswith(".json") else yaml.safe_load(new)
        except (ValueError, yaml.YAMLError) as exc:
            raise CtlError(f"Adopting the drift would leave {file.name} unreadable; nothing was written",
                           detail=str(exc), hint="Edit the values by hand; `ctl drift` lists them.") from None
        return new
    try:
        canonical = format_source(old.encode(), str(file)) == old.encode()
        if canonical:
            return format_source(new.encode(), str(file)).decode()
        parse_hcl_file(new.encode(), str(file))
    except DiagnosticsError as err:
        raise CtlError(f"Adopting the drift would leave {file.name} unreadable; nothing was written",
                       detail="; ".join(d.summary for d in err.diagnostics()),
                       hint="Edit the values by hand; `ctl drift` lists them.") from None
    return new


def _write_all(adoption: Adoption) -> None:
    from engine.fmt.files import _replace

    for file in adoption.files:
        # A file without write permission bits is read-only to its owner's intent, even for root.
        if not os.access(file, os.W_OK) or not os.stat(file).st_mode & 0o222:
            raise CtlError(f"Cannot write {os.path.relpath(file)}: permission denied; nothing was written",
                           hint="Make the file writable, or run `ctl drift adopt --dry-run` for the patch.")
    for file, (old, new) in adoption.files.items():
        if new != old:
            try:
                _replace(str(file), new.encode())
            except OSError as exc:
                raise CtlError(f"Could not write {os.path.relpath(file)}: {exc.strerror or exc}") from None
