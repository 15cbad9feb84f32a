"""``ctl drift``: refresh, report what changed outside ctl, and record it only when asked.

The refresh is a refresh-only plan (``engine.operations``), so the reading, the provider setup and
the drift found are exactly what ``ctl plan`` shows in its "changed outside of ctl" section. Without
``record`` nothing holds the state lock and nothing is written: the run is a read, as ``ctl plan``
is by default. With ``record`` it is ``ctl apply -refresh-only`` without the question: the lock is
held while the state is read, refreshed and written back, and only then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.drift.detect import ObjectDrift, drifted_objects
from engine.operations import RunOptions, apply_run, plan_only
from engine.plan.model import Plan
from engine.plan.planner import config_lookup
from engine.plan.refresh import config_key
from engine.positions import SourceRange
from engine.state.address import InstanceAddress


@dataclass
class DriftReport:
    """What one ``ctl drift`` run found, and whether it recorded it in the state."""

    plan: Plan
    objects: list[ObjectDrift]
    recorded: bool
    where: dict[str, SourceRange]  # address -> its resource block, for annotations

    @property
    def drifted(self) -> bool:
        return bool(self.objects)


def run_drift(opts: RunOptions, *, record: bool, events: Any = None) -> DriftReport:
    """Refresh under ``opts`` (its targets select what is reported) and report the drift."""
    opts.plan.mode = "refresh-only"
    opts.policy = None  # a report, not a change: nothing for the policies to gate
    targets = list(opts.plan.targets)
    where: dict[str, SourceRange] = {}
    if record:
        plan, _ = apply_run(opts, saved_plan=None, confirm=lambda _plan: True, events=events)
        recorded = bool(plan.drift)
    else:
        opts.take_lock = False
        planned = plan_only(opts, events=events)
        plan, recorded = planned.plan, False
        lookup = config_lookup(planned.result.root)
        for change in plan.drift:
            try:
                res = lookup.get(config_key(InstanceAddress.parse(change.address)))
            except Exception:  # an address that names no block: no location, the report still stands
                res = None
            if res is not None:
                where[change.address] = res.rng
    return DriftReport(plan, drifted_objects(plan.drift, targets), recorded, where)
