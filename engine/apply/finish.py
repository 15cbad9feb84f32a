"""The bookkeeping at the end of an apply: its outcome, dependencies refreshed, root outputs recorded, counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.apply.ordering import ApplyNode
from engine.apply.values import op_of
from engine.apply.walker import WalkResult
from engine.plan.model import CREATE, DELETE, UPDATE, Plan, ResourceChange
from engine.state.model import OutputValue, State, output_type
from engine.walk.config import ConfigWalk
from vocab.errors import CtlError, Diagnostics
from vocab.types import plain_data
from vocab.values import Null, contains_unknown, deep_unmark


class PostconditionFailed(CtlError):
    """The operation succeeded but a postcondition is false: the object is recorded, dependents wait."""

    def __init__(self, message: str, *, result: dict[str, Any], **kw: Any) -> None:
        super().__init__(message, **kw)
        self.result = result


@dataclass
class ApplyResult:
    """What an apply did: the state it left, and each operation's outcome by address."""

    state: State
    applied: list[str] = field(default_factory=list)
    failed: dict[str, BaseException] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    cancelled: list[str] = field(default_factory=list)
    interrupted: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {"add": 0, "change": 0, "destroy": 0})
    diags: Diagnostics = field(default_factory=Diagnostics)

    @property
    def ok(self) -> bool:
        return not (self.failed or self.skipped or self.interrupted or self.diags.has_errors)


def errored(op: str, exc: BaseException, elapsed: float, worker: int) -> dict[str, Any]:
    """An ``apply_errored`` event's details: the message the user is shown, the failure's kind and
    the worker thread that ran the operation (the trace puts the provider calls it made under it)."""
    return {"action": op, "error": str(exc), "elapsed": elapsed, "error_type": type(exc).__name__, "thread": worker}


def refresh_dependencies(plan: Plan, state: State) -> None:
    """Unchanged objects get the dependencies the configuration gives them now (as Terraform
    does on every apply), so a later delete of an imported object is ordered correctly."""
    if plan.mode != "normal":
        return
    for change in plan.changes:
        if not change.is_noop or change.mode != "managed":
            continue
        inst = state.instance(change.address)
        if inst is not None and sorted(inst.dependencies) != sorted(change.dependencies):
            state.set_instance(change.address, inst.replace(dependencies=list(change.dependencies)))


def record_outputs(plan: Plan, state: State, cwalk: ConfigWalk | None) -> None:
    """Root outputs as the apply left them, null ones left out; a full destroy leaves none (and no
    data sources)."""
    if plan.mode == "destroy":
        state.outputs = {}
        if not plan.targets and not plan.excludes:
            for addr, _ in list(state.instances()):
                if addr.mode == "data":
                    state.remove_instance(addr)
        return
    if cwalk is None:
        return
    for name, (value, sensitive) in cwalk.root_outputs.items():
        if contains_unknown(value):
            continue
        plain, _ = deep_unmark(value)
        if plain is None or type(plain) is Null:  # a null output is not recorded, as both references
            state.outputs.pop(name, None)  # leave it out: `output NAME` says it is not found
            continue
        state.outputs[name] = OutputValue(plain_data(plain), output_type(plain), sensitive)
    for name in list(state.outputs):
        if name not in cwalk.root_outputs and name in plan.outputs:
            del state.outputs[name]


def count_changes(out: ApplyResult, changes: dict[str, ResourceChange], *, created: set[str],
                  deleted: set[str]) -> None:
    """Added, changed and destroyed objects, for the summary line.

    A replacement is counted half by half: ``created`` holds the addresses whose create (or
    update) step finished with an object recorded, ``deleted`` those whose delete step finished,
    so a replacement that destroyed the old object and failed to create the new one reads
    "0 added, 1 destroyed", which is what happened.
    """
    done = created | deleted
    for addr, change in changes.items():
        if change.is_replace:
            out.counts["add"] += addr in created
            out.counts["destroy"] += addr in deleted
        elif addr in done:
            key = {CREATE: "add", UPDATE: "change", DELETE: "destroy"}.get(change.actions[0])
            if key:
                out.counts[key] += 1


def warn_possibly_done(diags: Diagnostics, addr: str, op: str) -> None:
    """An operation whose provider crashed, exited or stopped answering during the call, or that a
    second interrupt gave up waiting for: it may have done its work. Its intent is left open, as a
    killed apply leaves it, so the journal keeps it through every compaction and the next run
    reports it (looked up where the type can be, else with the ``ctl import`` to run); this run
    names it now."""
    verb = {CREATE: "created", DELETE: "deleted"}.get(op, "updated")
    if op == CREATE:
        then = (f"If the object exists, adopt it with: ctl import '{addr}' ID (the next run reminds you); "
                "otherwise the next apply creates it.")
    else:
        then = "The next plan's refresh reads what it became."
    diags.warning(f"possibly {verb}",
                  detail=f"It was cut short during the {op}, so whether it finished is unknown. {then}",
                  address=addr)


def summarize(result: WalkResult[ApplyNode], plan: Plan, state: State, diags: Diagnostics, *,
              changes: dict[str, ResourceChange], drops: dict[str, ResourceChange], interrupted: bool,
              cwalk: ConfigWalk | None) -> ApplyResult:
    """The apply's outcome from its walk's: what was applied, failed, skipped or cut short, with the
    state's dependencies, root outputs and counts brought up to date."""
    out = ApplyResult(state, diags=diags)
    created: set[str] = set()
    deleted: set[str] = set()
    for (kind, addr), _ in result.succeeded.items():
        if kind in ("op", "del"):
            out.applied.append(addr)
            (deleted if kind == "del" else created).add(addr)
        elif kind == "drop":
            out.counts["destroy"] += 1
    for (kind, addr), exc in result.failed.items():
        if kind == "op" and isinstance(exc, PostconditionFailed):
            created.add(addr)  # the object was made and recorded; only its check failed
        if kind == "drop":
            change = drops[addr]
            out.failed[f"{change.address} (deposed object {change.deposed})"] = exc
        elif kind in ("op", "del", "prov") or isinstance(exc, PostconditionFailed):
            out.failed[addr] = exc
    for (kind, addr), (_, blocker) in result.skipped.items():
        if kind in ("op", "del"):
            out.skipped[addr] = blocker
    out.cancelled = sorted(a for k, a in result.cancelled | result.abandoned if k in ("op", "del"))
    for kind, addr in sorted(result.abandoned):  # given up on while running: their intents stay open
        if kind in ("op", "del"):
            warn_possibly_done(diags, addr, DELETE if kind == "del" else op_of(changes[addr]))
    out.interrupted = interrupted
    refresh_dependencies(plan, state)
    record_outputs(plan, state, cwalk)
    count_changes(out, changes, created=created, deleted=deleted)
    return out
