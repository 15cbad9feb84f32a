"""One round of ``ctl reconcile``: refresh and plan, apply what the policies allow unattended.

A round reads first, as ``ctl plan`` does, without the state lock: a loop that mostly finds
nothing to do must not hold up the people who apply by hand. Each planned change is described to
the ``unattended`` rules of the policy set (``policies.unattended``); when none allows it, it is
reported and left. Only when some change is allowed does the round take the lock, through
``apply_run``: the plan is made again under the lock for exactly those addresses (``--target``
style), checked again against the rules and the policy gate, and applied. The second plan is
what makes the lock worth holding: a change a person made between the read and the lock is seen,
and a plan that now holds anything the rules do not allow is not applied at all.

A round killed mid-apply leaves its journal and its lock. The next round's read replays the
journal (``engine.recovery``); its apply takes over the lock only when the lock is one a reconcile
took (its reason says so) and its holder is gone: a process on this host that no longer runs, or a
lock nobody renewed for the stale threshold. Any other lock is somebody's, and is waited for.

The round never prints: it returns a ``RoundReport``, which the CLI writes as one line of JSON.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.registry import Registry
from engine.config.model import Module
from engine.drift.detect import MASK, ObjectDrift, drifted_objects
from engine.operations import Planned, RunOptions, apply_run, plan_only
from engine.plan.model import ACTIONS_CREATE, ACTIONS_DELETE, ACTIONS_UPDATE, Plan, ResourceChange
from engine.plugins.registry import registry_for
from engine.recovery import Recovery
from policies.loader import unattended_rules
from policies.unattended import ChangeFacts, Decision, UnattendedRule, decide
from vocab.errors import CtlError, ExitCode, LockHeld, PolicyDenied

LOCK_REASON = "ctl reconcile"
DEFAULT_MAX_BACKOFF = 3600.0  # seconds: the longest wait after failing rounds, unless --every is longer


@dataclass(frozen=True)
class Refused:
    """A planned change left for a person, and why."""

    address: str
    actions: tuple[str, ...]
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"address": self.address, "actions": list(self.actions), "reason": self.reason}


@dataclass
class RoundReport:
    """What one round saw and did. ``outcome`` is ``converged`` (nothing left to change),
    ``pending`` (changes left for a person), ``error`` or ``interrupted``."""

    workspace: str
    drifted: list[ObjectDrift] = field(default_factory=list)
    changes: int = 0
    applied: list[str] = field(default_factory=list)
    allowed_by: dict[str, str] = field(default_factory=dict)  # address -> the rule that allowed its change
    refused: list[Refused] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    recovered: bool = False
    error: CtlError | None = None
    interrupted: bool = False

    @property
    def outcome(self) -> str:
        if self.interrupted:
            return "interrupted"
        if self.error is not None or self.failed:
            return "error"
        return "pending" if self.refused else "converged"

    @property
    def exit_code(self) -> ExitCode:
        """The round as a process exit code: the one ``--once`` exits with."""
        if self.interrupted:
            return ExitCode.INTERRUPTED
        if self.error is not None:
            return self.error.exit_code
        if self.failed:
            return ExitCode.ERROR
        return ExitCode.CHANGES_PRESENT if self.refused else ExitCode.OK


class _PlanMoved(CtlError):
    """The plan made under the lock holds a change the rules do not allow: nothing is applied."""


def reconcile_round(make_options: Callable[[], RunOptions], *, stop: threading.Event,
                    abandon: threading.Event, rules: list[UnattendedRule] | None = None) -> RoundReport:
    """Refresh, plan, and apply what ``rules`` allow (the policy set's when not given).

    ``make_options`` gives fresh options for each operation (a run mutates the ones it is given).
    ``stop`` set before the apply means none is started; set during it, the apply starts nothing
    new, lets running operations finish and persists, as ``ctl apply`` does on Ctrl-C.
    """
    read = make_options()
    report = RoundReport(workspace=read.plan.workspace)
    try:
        if rules is None:
            rules = unattended_rules(read.root, read.policy.policy_dirs if read.policy else [])
        read.take_lock = False
        registry = registry_for(read.root)  # the read and the apply share it: each schema decoded once a round
        planned = _read(read, registry)
        report.recovered = _recovered(planned.recovery)
        plan = planned.plan
        report.drifted = drifted_objects(plan.drift)
        pending = [c for c in plan.changes if _counts(c)]
        report.changes = len(pending)
        if planned.policy is not None and planned.policy.denied:
            reason = "denied by policy: " + "; ".join(f.message for f in planned.policy.blocking)
            report.refused = [Refused(c.address, c.actions, reason) for c in pending]
            report.error = PolicyDenied("the plan is denied by policy; nothing was applied",
                                        hint="`ctl plan` shows the failing policies.")
            return report
        decisions = {c.address: decide(rules, facts_of(c, plan)) for c in pending}
        report.refused = [Refused(c.address, c.actions, decisions[c.address].reason) for c in pending
                          if not decisions[c.address].allowed]
        allowed = [c.address for c in pending if decisions[c.address].allowed]
        report.allowed_by = {a: decisions[a].rule or "" for a in allowed}
        if not allowed:
            return report
        if stop.is_set():
            report.interrupted = True
            return report
        _apply_allowed(make_options, registry, allowed, rules, report, stop, abandon, planned.result.root)
    except CtlError as exc:  # a denied plan, a held lock, a configuration or provider error: the round's
        report.error = exc
    return report


def _read(opts: RunOptions, registry: Registry) -> Planned:
    """The round's read: a plan the policies deny is reported with what it would have changed, so
    the plan operation's refusal, which follows handing the plan over, is taken as the verdict."""
    handed: list[Planned] = []
    try:
        return plan_only(opts, registry, on_planned=handed.append)
    except PolicyDenied:
        if not handed:
            raise
        return handed[0]


def _apply_allowed(make_options: Callable[[], RunOptions], registry: Registry, allowed: list[str],
                   rules: list[UnattendedRule],
                   report: RoundReport, stop: threading.Event, abandon: threading.Event, root: Module) -> None:
    def confirm(plan: Plan) -> bool:
        moved = [c for c in plan.changes if _counts(c) and not decide(rules, facts_of(c, plan)).allowed]
        if moved:
            first = moved[0]
            raise _PlanMoved(f"applying the allowed changes would also {action_of(first)} {first.address}, which no "
                             "unattended rule allows (something they depend on, or a change made since the "
                             "read); nothing was applied",
                             hint=f"Apply {first.address} by hand or allow it in policy-set.yaml; the next round "
                                  "plans again.", address=first.address)
        return True

    def on_recovery(rec: Recovery) -> None:
        report.recovered = report.recovered or _recovered(rec)

    for attempt in (1, 2):
        opts = make_options()
        opts.plan.targets = list(allowed)
        opts.take_lock = True
        opts.lock.reason = LOCK_REASON
        try:
            plan, result = apply_run(opts, registry, saved_plan=None, confirm=confirm, stop=stop, abandon=abandon,
                                     on_recovery=on_recovery)
        except LockHeld as exc:
            if attempt == 1 and _take_over(opts, exc, root):
                report.recovered = True
                continue
            raise
        break
    if result is None:  # nothing to change any more: someone converged it between the read and the lock
        return
    report.applied = sorted(a for a in result.applied if _counts_address(plan, a))
    report.failed = sorted(result.failed)
    report.interrupted = result.interrupted


def _take_over(opts: RunOptions, exc: LockHeld, root: Module) -> bool:
    """Break a lock a killed reconcile left: its reason is ours and its holder is gone."""
    from backends.base import LocalStateFile
    from backends.local.holders import holder_is_gone
    from engine.locking.liveness import liveness
    from engine.session import open_store

    holder = exc.holder
    if holder is None or not holder.Info.startswith(LOCK_REASON):
        return False
    store = open_store(opts.root, root)
    local = isinstance(store, LocalStateFile)  # a lock file on this host: its PID is ours to check
    if not ((local and holder_is_gone(holder)) or liveness(holder).abandoned):
        return False
    store.unlock(opts.plan.workspace, holder.ID, force=True)
    return True


def _recovered(rec: Recovery) -> bool:
    return bool(rec.replayed or rec.orphans or rec.outcomes)


def _counts(change: ResourceChange) -> bool:
    """A change a person would call one: a managed object created, updated, deleted or replaced."""
    return change.mode == "managed" and not change.is_noop


def _counts_address(plan: Plan, address: str) -> bool:
    return any(c.address == address and _counts(c) for c in plan.changes)


def action_of(change: ResourceChange) -> str:
    """The change as the rules name it: create, update, delete, replace (or what else it is)."""
    if change.importing_id:
        return "import"
    if change.is_replace:
        return "replace"
    names: dict[tuple[str, ...], str] = {ACTIONS_CREATE: "create", ACTIONS_UPDATE: "update",
                                         ACTIONS_DELETE: "delete"}
    return names.get(tuple(change.actions), "-".join(change.actions))


def facts_of(change: ResourceChange, plan: Plan) -> ChangeFacts:
    """What the rules read of one change: its action, what it touches, whether it reverts drift."""
    action = action_of(change)
    if action != "update":
        return ChangeFacts(change.address, action, frozenset(), False)
    leaves = drifted_objects([change])[0].attributes  # the leaves the update alters, before -> after
    touched = frozenset(str(a.path[0]) for a in leaves if a.path)
    drift = next((d for d in plan.drift if d.address == change.address), None)
    reverts = False
    if drift is not None and leaves and drift.after is not None:
        recorded = {a.path: a for a in drifted_objects([drift])[0].attributes}
        reverts = all(a.path in recorded and not a.sensitive and a.after != MASK
                      and recorded[a.path].before == a.after for a in leaves)
    return ChangeFacts(change.address, action, touched, reverts)


def backoff_delay(every: float, failures: int, cap: float = DEFAULT_MAX_BACKOFF) -> float:
    """Seconds before the next round: ``every`` after a good round; after ``failures`` failing
    rounds in a row, ``every`` doubled for each failure after the first, never beyond ``cap``
    (nor below ``every``): a broken backend or configuration is retried less and less often."""
    if failures <= 0:
        return every
    return float(min(max(cap, every), every * 2.0 ** min(failures - 1, 32)))


__all__ = ["DEFAULT_MAX_BACKOFF", "LOCK_REASON", "Decision", "Refused", "RoundReport", "action_of",
           "backoff_delay", "facts_of", "reconcile_round"]
