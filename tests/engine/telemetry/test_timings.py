"""The timing report's recorder: what it keeps, in which order it reports, and that it measures once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.operations import RunOptions, apply_run, plan_only
from engine.plan.planner import PlanOptions
from engine.telemetry.timings import BACKEND, LOCK, PROVIDERS, Timings, enabled, entered, short_message


def test_events_are_passed_on_and_their_elapsed_time_recorded() -> None:
    seen: list[tuple[str, str]] = []
    timings = Timings()
    observe = timings.events(lambda event, address, details: seen.append((event, address)))
    observe("refresh_start", "a.b", {})
    observe("refresh_complete", "a.b", {"elapsed": 0.5})
    observe("apply_errored", "a.c", {"elapsed": 2.0, "action": "create", "error": "boom"})
    assert seen == [("refresh_start", "a.b"), ("refresh_complete", "a.b"), ("apply_errored", "a.c")]
    report = timings.report()
    assert [(r.address, r.step, r.action, r.ok) for r in report.slowest] == [
        ("a.c", "apply", "create", False), ("a.b", "refresh", "", True)]
    assert report.waits[PROVIDERS] == pytest.approx(2.5)
    assert "a.c" in report.lines()[-2] and "(failed)" in report.lines()[-2]


def test_phases_are_reported_in_run_order_and_the_slowest_resources_first() -> None:
    timings = Timings()
    timings.phase("persist", 0.1)
    timings.phase("apply", 3.0)
    timings.plan_phases({"parse": 0.2, "refresh": 0.4, "plan": 0.3})
    timings.phase("load", 0.5)
    for i in range(15):
        timings.resource(f"r.x[{i}]", "plan", float(i))
    report = timings.report(top=3)
    assert list(report.phases) == ["load", "load/parse", "plan/refresh", "plan/diff", "apply", "persist"]
    assert [r.address for r in report.slowest] == ["r.x[14]", "r.x[13]", "r.x[12]"]
    assert report.resource_count == 15
    assert [p["name"] for p in report.to_json()["phases"]] == list(report.phases)


def test_a_lock_never_taken_still_counts_as_waiting() -> None:
    @contextmanager
    def refused() -> Iterator[None]:
        time.sleep(0.05)
        raise RuntimeError("lock held")
        yield

    timings = Timings()
    with pytest.raises(RuntimeError), entered(timings, LOCK, refused()):
        pass
    assert timings.waits[LOCK] >= 0.05


def test_only_entering_the_lock_is_waiting_not_the_block_inside() -> None:
    timings = Timings()
    with entered(timings, LOCK, _slow_enter(0.05)):
        time.sleep(0.1)
    assert 0.05 <= timings.waits[LOCK] < 0.1
    with entered(timings, BACKEND):
        time.sleep(0.02)
    assert timings.waits[BACKEND] >= 0.02


def test_without_a_recorder_the_context_manager_is_still_entered() -> None:
    entered_: list[str] = []

    @contextmanager
    def cm() -> Iterator[None]:
        entered_.append("in")
        yield
        entered_.append("out")

    with entered(None, LOCK, cm()):
        assert entered_ == ["in"]
    assert entered_ == ["in", "out"]


def test_recording_from_many_threads_loses_nothing() -> None:
    timings = Timings()

    def work(n: int) -> None:
        for i in range(500):
            timings.resource(f"r.t{n}[{i}]", "apply", 0.001)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert timings.report().resource_count == 4000
    assert timings.waits[PROVIDERS] == pytest.approx(4.0)


@pytest.mark.parametrize(("flag", "env", "expected"), [
    (True, {}, True), (False, {}, False), (False, {"CTL_TIMINGS": "1"}, True),
    (False, {"CTL_TIMINGS": "true"}, True), (False, {"CTL_TIMINGS": "0"}, False)])
def test_enabled_by_the_flag_or_the_setting(flag: bool, env: dict[str, str], expected: bool) -> None:
    assert enabled(flag, env) is expected


def _slow_enter(seconds: float) -> Any:
    @contextmanager
    def cm() -> Iterator[None]:
        time.sleep(seconds)
        yield
    return cm()


CONFIG = """
resource "time_sleep" "slow" {
  create_duration = "300ms"
}
resource "terraform_data" "quick" {
  input = "x"
}
module "m" {
  source = "./mod"
}
"""


def test_a_plan_and_an_apply_time_every_resource_once_and_every_phase(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "main.tf").write_text('resource "terraform_data" "inner" {\n  input = "y"\n}\n')
    addresses = {"time_sleep.slow", "terraform_data.quick", "module.m.terraform_data.inner"}

    timings = Timings()
    opts = RunOptions(root=tmp_path, plan=PlanOptions(timings=timings), policy=None)
    _plan, result = apply_run(opts, saved_plan=None, confirm=lambda _p: True)
    assert result is not None and result.ok
    report = timings.report()
    assert {(r.address, r.step) for r in timings.resources} == \
        {(a, s) for a in addresses for s in ("plan", "apply")}
    assert report.slowest[0].address == "time_sleep.slow" and report.slowest[0].step == "apply"
    assert report.slowest[0].seconds >= 0.3
    assert {"load", "plan", "plan/diff", "apply", "persist"} <= set(report.phases)
    assert report.phases["apply"] >= 0.3 and report.waits[BACKEND] > 0

    again = Timings()
    plan_only(RunOptions(root=tmp_path, plan=PlanOptions(timings=again), policy=None))
    assert {(r.address, r.step) for r in again.resources} == \
        {(a, s) for a in addresses for s in ("refresh", "plan")}
    assert "apply" not in again.report().phases

    # The trace's material: each module's loading, and every state operation with its backend and workspace.
    spans, resources, _ = timings.snapshot()
    loads = {dict(s.attrs).get("ctl.module", ""): dict(s.attrs) for s in spans if s.name == "load.module"}
    assert loads == {"": {"ctl.module.dir": ".", "ctl.module.files": 1},
                     "module.m": {"ctl.module": "module.m", "ctl.module.dir": "mod", "ctl.module.files": 1}}
    state_ops = [(s.name, dict(s.attrs)) for s in spans if s.name.startswith("state.")]
    assert [name for name, _ in state_ops] == ["state.lock", "state.read", "state.write", "state.unlock"]
    assert all(attrs == {"ctl.backend": "local", "ctl.workspace": "default"} for _, attrs in state_ops)
    # The apply names the worker that ran each step, not the thread that records the state.
    applied = {r.thread for r in resources if r.step == "apply"}
    assert threading.get_ident() not in applied


def test_leaving_the_lock_is_timed_too_when_named() -> None:
    timings = Timings()

    @contextmanager
    def slow_to_leave() -> Iterator[None]:
        yield
        time.sleep(0.05)

    attrs = (("ctl.backend", "s3"), ("ctl.workspace", "dev"))
    with entered(timings, LOCK, slow_to_leave(), "state.lock", attrs=attrs, leaving="state.unlock"):
        pass
    (lock, unlock) = timings.spans
    assert (lock.name, unlock.name) == ("state.lock", "state.unlock") and unlock.attrs == attrs
    assert unlock.end - unlock.start >= 0.05 and timings.waits[LOCK] >= 0.05


def test_a_failed_step_keeps_its_short_message_and_the_worker_that_ran_it() -> None:
    timings = Timings()
    observe = timings.events(None)
    observe("apply_errored", "aws_s3_bucket.b", {"elapsed": 1.0, "action": "create", "thread": 42,
                                                "error": "aws_s3_bucket.b: BucketAlreadyExists\nthe whole answer …",
                                                "error_type": "AdapterError"})
    (r,) = timings.resources
    assert (r.ok, r.error, r.message, r.thread) == (False, "AdapterError", "aws_s3_bucket.b: BucketAlreadyExists", 42)
    assert short_message("x" * 500) == "x" * 199 + "…"


def test_the_journal_of_an_apply_is_time_waiting_on_the_backend(tmp_path: Path) -> None:
    """Each operation's intent and result are written to the journal as it runs: storage time, summed
    without a span each (an apply of thousands of resources would send thousands)."""
    (tmp_path / "main.tf").write_text("".join(f'resource "terraform_data" "r{i}" {{\n  input = "{i}"\n}}\n'
                                              for i in range(20)))
    timings = Timings()
    _plan, result = apply_run(RunOptions(root=tmp_path, plan=PlanOptions(timings=timings), policy=None),
                              saved_plan=None, confirm=lambda _p: True)
    assert result is not None and result.ok
    traced = sum(s.end - s.start for s in timings.spans if s.kind == BACKEND)
    assert timings.waits[BACKEND] > traced > 0  # the reads and writes, and the journal beside them
    assert {s.name for s in timings.spans if s.kind == BACKEND} == {"state.read", "state.write"}
