"""The timing report of ``--timings`` / ``CTL_TIMINGS=1``: where a plan or an apply spent its time.

A slow run is explained by a few numbers: how long each phase took (load, refresh, plan, apply,
persist), how long the run waited on the state lock, on providers and on the backend that holds
the state, and which resources were the slowest. ``Timings`` gathers them as the engine reaches
each point; the engine already times its phases for the log (``engine.operations._phase_done``)
and the refresh and apply already time each resource for their progress events, so those
measurements are recorded here, not taken again. Only the plan of each resource is timed anew.

The recorder is one object per command, passed down explicitly (``PlanOptions.timings``), never a
global: two runs in one process (tests, a server) keep their reports apart. Worker threads record
resources concurrently, so every write takes a lock. Each measurement is also kept as an interval
(``Span``: when it started and ended), from which ``engine.telemetry.tracing`` builds the run's
OpenTelemetry trace once the command is over: one instrumentation point per event serves both, and
the recorder exists whenever either the report or a trace is wanted (``report`` says which).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

Events = Callable[[str, str, dict[str, Any]], None]

# What a run waits on, in the order the report shows them. ``cloud`` is the time of ctl's own requests
# to cloud APIs (``engine.telemetry.cloud``): part of the backend's time and of native providers'.
LOCK, PROVIDERS, BACKEND, CLOUD = "lock", "providers", "backend", "cloud"
WAITS = (LOCK, PROVIDERS, BACKEND, CLOUD)

# The planner's phase names, as parts of the run's phases: loading (parse, graph, evaluate) and planning.
_SUB_PHASES = {"parse": "load/parse", "graph": "load/graph", "evaluate": "load/evaluate",
               "refresh": "plan/refresh", "plan": "plan/diff"}
# The order the report lists phases in: the order a run goes through them.
_PHASE_ORDER = ("load", "load/parse", "load/graph", "load/evaluate", "plan", "plan/refresh", "plan/diff",
                "policy", "apply", "persist")

_STEP_OF_EVENT = {"refresh_complete": "refresh", "refresh_errored": "refresh",
                  "apply_complete": "apply", "apply_errored": "apply"}


@dataclass(frozen=True)
class ResourceTiming:
    """One resource's step (refresh, plan or apply) and how long it took."""

    address: str
    step: str
    seconds: float
    action: str = ""
    ok: bool = True
    end: float = 0.0  # perf_counter() when it ended
    provider: str = ""  # provider["registry.terraform.io/hashicorp/random"], when known
    error: str = ""  # the kind of failure (an exception's class)
    thread: int = 0  # the thread that did the work: a provider call on the same thread within it is its own
    message: str = ""  # the failure's short message, as the user was shown it (secrets already masked)

    @property
    def start(self) -> float:
        return self.end - self.seconds


@dataclass(frozen=True)
class Rpc:
    """One call into a provider plugin (``PlanResourceChange`` …), for the trace."""

    operation: str
    provider: str
    start: float
    end: float
    error: str
    thread: int


Attributes = tuple[tuple[str, str | int], ...]


@dataclass(frozen=True)
class Span:
    """A phase, a wait or a detail, as an interval of ``perf_counter()`` times (a trace's span)."""

    name: str
    kind: str  # "phase", one of WAITS, or DETAIL
    start: float
    end: float
    attrs: Attributes = ()  # what the trace shows about it: names, kinds, counts, never a value
    error: str = ""  # the kind of failure, when it failed


# A span that holds nothing and is no wait: one module's loading (``Timings.detail``).
DETAIL = "detail"


@dataclass(eq=False)  # one recorder per command, known by identity (``engine.telemetry.cloud`` keeps a weak set)
class Timings:
    """The measurements of one command; ``report`` orders them for display."""

    phases: dict[str, float] = field(default_factory=dict)
    waits: dict[str, float] = field(default_factory=lambda: dict.fromkeys(WAITS, 0.0))
    resources: list[ResourceTiming] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    report_wanted: bool = True  # False when the recorder exists only for a trace
    spans: list[Span] = field(default_factory=list)
    rpcs: list[Rpc] = field(default_factory=list)
    # time.time_ns() at perf_counter() == 0: turns the intervals into a trace's wall-clock times
    epoch_offset_ns: int = field(default_factory=lambda: time.time_ns() - time.perf_counter_ns())
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def phase(self, name: str, seconds: float) -> None:
        """A phase of the run ended; a phase run twice (a plan within an apply) adds up."""
        now = time.perf_counter()
        with self._lock:
            self.phases[name] = self.phases.get(name, 0.0) + seconds
            self.spans.append(Span(name, "phase", now - seconds, now))

    def wait(self, kind: str, seconds: float, name: str = "", attrs: Attributes = (), error: str = "", *,
             record_span: bool = True) -> None:
        """Time spent waiting on the lock, a provider, the backend or the cloud (``WAITS``); ``name``
        says on what (``state.lock``, ``state.unlock``, ``state.read``, ``state.write``), ``attrs``
        where (the backend's kind, the workspace) and ``error`` the kind of failure, if it failed.
        Without ``record_span`` (each of many small cloud requests) only the total is kept."""
        now = time.perf_counter()
        with self._lock:
            self.waits[kind] = self.waits.get(kind, 0.0) + seconds
            if record_span:
                self.spans.append(Span(name or kind, kind, now - seconds, now, attrs, error))

    def detail(self, name: str, start: float, end: float, attrs: Attributes = ()) -> None:
        """A part of a phase worth its own span in the trace but not its own row in the report
        (one module's loading, within ``load/parse``)."""
        with self._lock:
            self.spans.append(Span(name, DETAIL, start, end, attrs))

    def resource(self, address: str, step: str, seconds: float, *, action: str = "", ok: bool = True,
                 provider: str = "", error: str = "", message: str = "", thread: int = 0) -> None:
        """One resource's step. Every step is a call into the resource's provider (the built-in
        ``terraform`` one too), so its time is also time waiting on providers: summed over the
        concurrent calls, which is why that wait may exceed the run's wall time. ``thread`` is the
        thread that did the work, when another reports it (the apply's); the caller's otherwise."""
        with self._lock:
            self.resources.append(ResourceTiming(address, step, seconds, action, ok, time.perf_counter(),
                                                 provider, error, thread or threading.get_ident(), message))
            self.waits[PROVIDERS] = self.waits.get(PROVIDERS, 0.0) + seconds

    def rpc_observer(self, provider: str) -> Callable[[str, float, str], None]:
        """What a provider plugin's client calls after each call (``PluginClient.observe``). Only the
        trace reads these: the time is already in the resource steps that made the calls."""
        def observe(operation: str, seconds: float, error: str) -> None:
            now = time.perf_counter()
            with self._lock:
                self.rpcs.append(Rpc(operation, provider, now - seconds, now, error, threading.get_ident()))
        return observe

    @contextmanager
    def waiting(self, kind: str, name: str = "", attrs: Attributes = (), *, record_span: bool = True) -> Iterator[None]:
        """Time the block as waiting on ``kind``, also when it raises (a lock never obtained)."""
        t = time.perf_counter()
        error = ""
        try:
            yield
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            self.wait(kind, time.perf_counter() - t, name, attrs, error, record_span=record_span)

    def plan_phases(self, measured: dict[str, float]) -> None:
        """The planner's own phase times (``PlanResult.timings``), under the phase they belong to."""
        for name, seconds in measured.items():
            self.phase(_SUB_PHASES.get(name, name), seconds)

    def events(self, forward: Events | None) -> Events:
        """The progress events, passed on to ``forward`` after recording each resource's elapsed time.

        The refresh and the apply time every resource for their progress events already; reading
        the time from there keeps one measurement per resource.
        """
        def observe(event: str, address: str, details: dict[str, Any]) -> None:
            step = _STEP_OF_EVENT.get(event)
            elapsed = details.get("elapsed")
            if step is not None and isinstance(elapsed, (int, float)):
                failed = event.endswith("_errored")
                thread = details.get("thread")
                self.resource(address, step, float(elapsed), action=str(details.get("action") or ""),
                              ok=not failed, error=str(details.get("error_type") or "failed") if failed else "",
                              message=short_message(str(details.get("error") or "")) if failed else "",
                              thread=thread if isinstance(thread, int) else 0)
            if forward is not None:
                forward(event, address, details)
        return observe

    def snapshot(self) -> tuple[list[Span], list[ResourceTiming], list[Rpc]]:
        """Copies of what was recorded, taken under the lock: what the trace is built from."""
        with self._lock:
            return list(self.spans), list(self.resources), list(self.rpcs)

    def report(self, top: int = 10) -> TimingReport:
        """The slowest ``top`` resource steps, the phases in the order they ran, and the waits."""
        with self._lock:
            slowest = sorted(self.resources, key=lambda r: (-r.seconds, r.address, r.step))[:top]
            order = {name: i for i, name in enumerate(_PHASE_ORDER)}
            phases = dict(sorted(self.phases.items(), key=lambda kv: order.get(kv[0], len(order))))
            return TimingReport(total=time.perf_counter() - self.started, phases=phases,
                                waits=dict(self.waits), slowest=slowest, resource_count=len(self.resources))


@dataclass(frozen=True)
class TimingReport:
    """What ``--timings`` shows: a snapshot of ``Timings`` taken once the run is over."""

    total: float
    phases: dict[str, float]
    waits: dict[str, float]
    slowest: list[ResourceTiming]
    resource_count: int

    def to_json(self) -> dict[str, Any]:
        """The machine-readable form (JSON UI ``timings`` message), seconds rounded to the microsecond."""
        return {
            "total_seconds": round(self.total, 6),
            "phases": [{"name": k, "seconds": round(v, 6)} for k, v in self.phases.items()],  # in run order
            "waiting": {k: round(v, 6) for k, v in self.waits.items()},
            "slowest_resources": [
                {"address": r.address, "step": r.step, "action": r.action, "seconds": round(r.seconds, 6),
                 "ok": r.ok} for r in self.slowest],
            "resources_timed": self.resource_count,
        }

    def rows(self) -> list[tuple[str, str, float]]:
        """(what, kind, seconds) rows: the phases, the waits, then the slowest resources."""
        out = [(name, "phase", s) for name, s in self.phases.items()]
        out += [(f"waiting on {name}", "wait", s) for name, s in self.waits.items()]
        out += [(r.address, f"{r.step} {r.action}".strip() + ("" if r.ok else " (failed)"), r.seconds)
                for r in self.slowest]
        return out

    def lines(self) -> list[str]:
        """The plain-text table printed after the run."""
        rows = self.rows()
        width = max((len(w) for w, _, _ in rows), default=10)
        kind_width = max((len(k) for _, k, _ in rows), default=5)
        out = [f"Timings (total {self.total:.3f}s; {self.resource_count} resource steps timed):"]
        out += [f"  {what:<{width}}  {kind:<{kind_width}}  {seconds:9.3f}s" for what, kind, seconds in rows]
        return out


def short_message(text: str, limit: int = 200) -> str:
    """The first line of an error message, cut to ``limit`` characters: what a span says of a failure.

    It is the message the user was shown, in which ctl has already masked every sensitive value it
    knows of (``vocab.redact``); cutting it short keeps whatever detail follows the first line, such
    as a provider's full answer, out of the trace.
    """
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


@contextmanager
def entered(timings: Timings | None, kind: str, cm: AbstractContextManager[Any] | None = None,
            name: str = "", *, attrs: Attributes = (), leaving: str = "") -> Iterator[None]:
    """Enter ``cm`` (or run the block, without one), timing the entry (or the block) as waiting on ``kind``.

    With a context manager, only entering it is waiting (taking the lock); the block inside is not,
    and leaving it (releasing the lock) is timed too when ``leaving`` names it. Without a recorder,
    nothing is timed.
    """
    if timings is None:
        if cm is None:
            yield
        else:
            with cm:
                yield
        return
    if cm is None:
        with timings.waiting(kind, name, attrs):
            yield
        return
    with ExitStack() as stack:
        left: list[float] = []

        def after_leaving() -> None:
            if left:
                timings.wait(kind, time.perf_counter() - left[0], leaving, attrs)

        if leaving:  # runs last: after the context manager was left
            stack.callback(after_leaving)
        with timings.waiting(kind, name, attrs):
            stack.enter_context(cm)
        if leaving:  # runs first: as the context manager is about to be left
            stack.callback(lambda: left.append(time.perf_counter()))
        yield


def enabled(flag: bool, environ: dict[str, str] | None = None) -> bool:
    """Whether to measure: ``--timings``, or ``CTL_TIMINGS`` set to a true value."""
    import os

    env = os.environ if environ is None else environ
    return flag or env.get("CTL_TIMINGS", "").strip().lower() in ("1", "true", "yes", "on")
