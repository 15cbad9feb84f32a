"""When traces are on, and how the recorder's intervals become a span tree."""

from __future__ import annotations

import pytest

from engine.telemetry.timings import Span, Timings
from engine.telemetry.tracing import _containers, finish, wanted


@pytest.mark.parametrize(("env", "expected"), [
    ({}, False),
    ({"OTEL_SERVICE_NAME": "x"}, False),  # naming a service turns nothing on
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
    ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, False),
    ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, False),
])
def test_traces_are_on_only_when_the_standard_variables_ask(env: dict[str, str], expected: bool) -> None:
    assert wanted(env) is expected


def test_the_parts_of_a_phase_are_laid_end_to_end_from_its_start() -> None:
    spans = [Span("load/parse", "phase", 100.0, 100.2), Span("load/graph", "phase", 100.3, 100.4),
             Span("load", "phase", 1.0, 2.0), Span("plan/refresh", "phase", 9.0, 9.5),
             Span("plan/diff", "phase", 9.5, 9.75), Span("plan", "phase", 3.0, 4.0),
             Span("state.lock", "lock", 2.0, 2.5)]
    laid = {c.name: (round(c.start, 6), round(c.end, 6)) for c in _containers(spans)}
    assert laid == {"load": (1.0, 2.0), "load/parse": (1.0, 1.2), "load/graph": (1.2, 1.3),
                    "state.lock": (2.0, 2.5), "plan": (3.0, 4.0), "plan/refresh": (3.0, 3.5),
                    "plan/diff": (3.5, 3.75)}
    by_name = {c.name: c for c in _containers(spans)}
    assert by_name["load"].holds(1.2, 1.3) and not by_name["load"].holds(2.0, 2.5)  # the lock follows load
    assert not by_name["load/parse"].holds(1.2, 1.3)  # siblings end to end are not nested


def test_an_unsupported_exporter_is_a_warning_not_a_failure() -> None:
    problem = finish(Timings(report_wanted=False), "plan", environ={"OTEL_TRACES_EXPORTER": "zipkin"})
    assert problem is not None and "OTEL_TRACES_EXPORTER=zipkin" in problem
    assert finish(Timings(), "plan", environ={}) is None
