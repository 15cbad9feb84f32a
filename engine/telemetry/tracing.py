"""OpenTelemetry traces of a command, built from the timing recorder once the command is over.

Off unless the standard variables ask for it: ``OTEL_TRACES_EXPORTER`` (``otlp``, ``console``;
``none`` turns it off) or an OTLP endpoint (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``). ``OTEL_EXPORTER_OTLP_PROTOCOL`` picks ``http/protobuf``
(the default) or ``grpc``; ``OTEL_SERVICE_NAME`` names the service (``ctl`` otherwise);
``TRACEPARENT`` (and ``TRACESTATE``) make the command's trace a part of a CI pipeline's trace.
The exporters read their own variables (headers, timeout, certificates) as the SDK documents.

Why after the fact: the engine records every event once, on the ``Timings`` recorder, as an
interval (phases, lock and state operations, each resource's refresh, plan and apply, each call into
a provider plugin, which ``PluginClient.observe`` reports). The trace
is those intervals laid out as spans, each the child of the innermost phase that contains it, under
one root span for the command. Nothing in the engine's hot paths knows about OpenTelemetry, the SDK
is imported only here and only when tracing is on (``ctl --version`` and an untraced plan import
none of it), and exporting happens once, at the end, bounded by the exporter's own timeout: an
unreachable collector costs at most that timeout and one warning, never the run.

Attributes hold addresses, actions, provider names, module directories, backend kinds, workspaces
and outcomes, never values. A failed span has the error status and an ``exception`` event with the
failure's kind (an exception's class) and its short message: the first line of what the user was
shown, in which ctl has already masked every sensitive value (``vocab.redact``). A provider call's
own failure gives its kind only: the provider's text has not been through that masking yet; the
resource step above it carries the message once it has.

The SDK and the OTLP exporters are runtime dependencies rather than an optional extra, so that a
pipeline which sets ``OTEL_*`` for every tool gets ctl's traces after a plain ``pip install``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.telemetry.timings import DETAIL, Attributes, ResourceTiming, Span, Timings, short_message
from vocab.errors import CtlError

_log = logging.getLogger(__name__)

# Parts of a phase that run one after the other from its start: the planner reports how long each took.
_PARTS = {"load": ("load/parse", "load/graph", "load/evaluate"), "plan": ("plan/refresh", "plan/diff")}
_SPAN_NAMES = {"load/parse": "parse", "load/graph": "graph", "load/evaluate": "evaluate",
               "plan/refresh": "refresh", "plan/diff": "diff"}
# The part a detail belongs to: the parts are laid out from their phase's start (``_containers``), a
# little before the work itself begins, so a detail is put in its part by name, not by its times.
_WITHIN = {"load.module": "load/parse"}
_SLACK = 0.005  # seconds: a resource timed from its progress event may end a hair after its phase


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the standard OpenTelemetry variables ask for traces (no SDK import)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    return bool(exporter or env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


@dataclass(frozen=True)
class _Container:
    """A span that may hold others: a phase, a wait, or the refresh laid out from its resources."""

    name: str
    kind: str
    start: float
    end: float
    attrs: Attributes = ()
    error: str = ""

    def holds(self, start: float, end: float) -> bool:
        """Whether a span of these times lies within this one (one that starts as this ends does not)."""
        return (self.start <= start < self.end and end <= self.end) or start == end == self.start

    def holds_resource(self, start: float, end: float) -> bool:
        """The same, allowing for a resource timed from its progress event, a hair after the fact."""
        return self.start - _SLACK <= start and end <= self.end + _SLACK


def finish(timings: Timings | None, command: str, *, error: BaseException | None = None,
           failure: tuple[str, str] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """Export the command's trace when tracing is on; returns a warning to show when exporting failed.

    ``error`` is the exception that ended the command; ``failure`` the kind and short message of a
    command that failed without one (an apply some of whose operations failed).
    """
    env = os.environ if environ is None else environ
    if timings is None or not wanted(env):
        return None
    if error is not None:
        failure = (type(error).__name__, short_message(error.summary) if isinstance(error, CtlError) else "")
    try:
        return _export(timings, command, failure, env)
    except Exception as exc:  # a trace must never fail the run it describes
        _log.debug("exporting the trace failed", exc_info=True)
        return f"Could not export the trace: {type(exc).__name__}: {exc}"


def _export(timings: Timings, command: str, failure: tuple[str, str] | None, env: Mapping[str, str]) -> str | None:
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import SpanExportResult
    from opentelemetry.trace import Status, StatusCode
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    from vocab.version import VERSION

    class Collect(SpanProcessor):
        """Keeps the ended spans, exported together once the trace is complete."""

        def __init__(self) -> None:
            self.spans: list[ReadableSpan] = []

        def on_end(self, span: ReadableSpan) -> None:
            self.spans.append(span)

    exporter, problem = _exporter(env)
    if exporter is None:
        return problem
    attributes = {"service.version": VERSION}
    if not env.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = "ctl"
    provider = TracerProvider(resource=Resource.create(attributes))
    collect = Collect()
    provider.add_span_processor(collect)
    tracer = provider.get_tracer("ctl", VERSION)

    def ns(t: float) -> int:
        return timings.epoch_offset_ns + int(t * 1e9)

    carrier = {k: env[v] for k, v in (("traceparent", "TRACEPARENT"), ("tracestate", "TRACESTATE")) if env.get(v)}
    parent = TraceContextTextMapPropagator().extract(carrier) if carrier else None
    import time as _time

    end = _time.perf_counter()

    def failed(span: Any, kind: str, message: str, at: float) -> None:
        """The error status, ``error.type`` and an ``exception`` event with the short message."""
        span.set_status(Status(StatusCode.ERROR, message or kind))
        span.set_attribute("error.type", kind)
        event = {"exception.type": kind}
        if message:
            event["exception.message"] = message
        span.add_event("exception", event, timestamp=ns(at))

    root = tracer.start_span(f"ctl {command}", context=parent, start_time=ns(timings.started),
                             attributes={"ctl.command": command})
    if failure is not None:
        failed(root, *failure, end)
    spans, resources, rpcs = timings.snapshot()
    containers = _containers([s for s in spans if s.kind != DETAIL])
    opened: list[tuple[_Container, Any]] = []
    for c in containers:  # outermost first: each opens under the innermost one already open that holds it
        holder = next((s for k, s in reversed(opened) if k.holds(c.start, c.end) and k is not c), root)
        span = tracer.start_span(_SPAN_NAMES.get(c.name, c.name), context=trace.set_span_in_context(holder),
                                 start_time=ns(c.start), attributes={"ctl.kind": c.kind, **dict(c.attrs)})
        if c.error:
            failed(span, c.error, "", c.end)
        opened.append((c, span))
    for d in (s for s in spans if s.kind == DETAIL):  # one module's loading, within ``parse``
        holder = next((s for k, s in opened if k.name == _WITHIN.get(d.name)), None) or \
            _innermost(opened, d.start, d.end, root)
        span = tracer.start_span(d.name, context=trace.set_span_in_context(holder), start_time=ns(d.start),
                                 attributes=dict(d.attrs))
        span.end(end_time=ns(d.end))
    providers = {r.address: r.provider for r in resources if r.provider}
    resource_spans: list[tuple[ResourceTiming, Any]] = []
    for r in resources:
        holder = _innermost(opened, r.start, r.end, root)
        span = tracer.start_span(f"resource.{r.step}", context=trace.set_span_in_context(holder),
                                 start_time=ns(r.start), attributes=_resource_attributes(r, providers))
        if not r.ok:
            failed(span, r.error or "failed", r.message, r.end)
        resource_spans.append((r, span))
    for call in rpcs:
        # A call belongs to the resource step that made it: the same thread (the apply names the
        # worker that ran each step), within its time; a call no step made (configuring a provider,
        # looking up what an interrupted apply left) sits under the phase it ran in.
        holder = next((s for r, s in resource_spans if r.thread == call.thread and r.start - _SLACK <= call.start
                       and call.end <= r.end + _SLACK), None) or _innermost(opened, call.start, call.end, root)
        span = tracer.start_span(f"provider.{call.operation}", context=trace.set_span_in_context(holder),
                                 start_time=ns(call.start),
                                 attributes={"rpc.system": "grpc", "rpc.method": call.operation,
                                             "ctl.provider": call.provider,
                                             "ctl.rpc.outcome": "failed" if call.error else "ok"})
        if call.error:
            failed(span, call.error, "", call.end)
        span.end(end_time=ns(call.end))
    for r, span in resource_spans:
        span.end(end_time=ns(r.end))

    for c, span in opened:
        span.end(end_time=ns(c.end))
    root.end(end_time=ns(end))
    # Quiet the exporter's own retry messages: one warning says it all.
    otel_logger = logging.getLogger("opentelemetry")
    quiet = otel_logger.level
    otel_logger.setLevel(logging.DEBUG if _log.isEnabledFor(logging.DEBUG) else logging.CRITICAL)
    try:
        result = exporter.export(collect.spans)
    finally:
        exporter.shutdown()
        otel_logger.setLevel(quiet)
    if result is not SpanExportResult.SUCCESS:
        where = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "the collector"
        return f"Could not send the trace to {where}; the run itself is unaffected."
    return None


def _innermost(opened: list[tuple[_Container, Any]], start: float, end: float, root: Any) -> Any:
    """The span of the innermost phase a resource's step (or a provider call) ran in: one that holds
    it exactly if any (a phase that took no time holds nothing), else give or take ``_SLACK``."""
    phases = [(k, s) for k, s in opened if k.kind == "phase"]
    for exact in (True, False):
        found = [(k, s) for k, s in phases
                 if (k.start <= start and end <= k.end if exact else k.holds_resource(start, end))]
        if found:
            return min(found, key=lambda ks: ks[0].end - ks[0].start)[1]
    return root


def _exporter(env: Mapping[str, str]) -> tuple[Any, str | None]:
    """The span exporter the variables name, or None and why not."""
    kind = env.get("OTEL_TRACES_EXPORTER", "").strip().lower() or "otlp"
    if kind == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter(), None
    if kind != "otlp":
        return None, f"OTEL_TRACES_EXPORTER={kind} is not supported: use otlp, console or none."
    protocol = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "http/protobuf").strip().lower()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

        return GrpcExporter(), None
    if protocol != "http/protobuf":
        return None, f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported: use http/protobuf or grpc."
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

    return HttpExporter(), None


def _containers(spans: list[Span]) -> list[_Container]:
    """The phases and waits as recorded, with the parts of load and plan laid out in time, outermost first.

    The planner reports how long loading's parts, the refresh and the diff took, not when; each
    runs right after the one before from the start of its phase, so they are laid end to end there.
    """
    out: list[_Container] = []
    part_of = {part: whole for whole, parts in _PARTS.items() for part in parts}
    at = {s.name: s.start for s in spans if s.name in _PARTS}
    for s in spans:
        whole = part_of.get(s.name)
        if whole is None:
            out.append(_Container(s.name, s.kind, s.start, s.end, s.attrs, s.error))
        elif whole in at:  # a part whose phase was not recorded (a saved plan's apply) is left out
            out.append(_Container(s.name, "phase", at[whole], at[whole] + (s.end - s.start)))
            at[whole] += s.end - s.start
    out.sort(key=lambda c: (c.start, -(c.end - c.start)))
    return out


def _resource_attributes(r: ResourceTiming, providers: Mapping[str, str]) -> dict[str, Any]:
    """What a resource's span says: where, what and how it went, never a value."""
    module = ""
    if r.address.startswith("module."):
        from engine.state.address import InstanceAddress

        try:
            module = "".join(f"module.{name}" + (f"[{key!r}]".replace("'", '"') if isinstance(key, str) else
                                                  f"[{key}]" if key is not None else "") + "."
                             for name, key in InstanceAddress.parse(r.address).module).rstrip(".")
        except Exception:  # an address the parser does not take: no module attribute rather than a wrong one
            module = ""
    attrs: dict[str, Any] = {"ctl.resource.address": r.address, "ctl.resource.step": r.step,
                             "ctl.resource.outcome": "ok" if r.ok else "failed"}
    if r.action:
        attrs["ctl.resource.action"] = r.action
    if module:
        attrs["ctl.module"] = module
    provider = r.provider or providers.get(r.address, "")
    if provider:
        attrs["ctl.provider"] = provider
    if r.error:
        attrs["error.type"] = r.error
    return attrs
