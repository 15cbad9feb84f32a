"""time_sleep: real (short) sleeps, and interruption that ends them promptly."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from adapters import time as time_provider
from adapters.base import AdapterContext, AdapterError
from adapters.time.duration import parse_duration
from tests.adapters.contract import ResourceContract
from vocab.values import is_unknown

SLEEP = time_provider.PROVIDER.resources["time_sleep"]


class TestTimeSleepContract(ResourceContract):
    provider = time_provider.PROVIDER
    type_name = "time_sleep"
    state_only = True

    def samples(self, workdir: Any) -> list[dict[str, Any]]:
        return [
            {"create_duration": "10ms"},
            {"destroy_duration": "1ms", "triggers": {"build": "42"}},
            {"create_duration": "0s", "destroy_duration": "0"},
        ]


@pytest.fixture
def ctx(tmp_path: Any) -> AdapterContext:
    return AdapterContext(provider_config={}, workdir=tmp_path, address="time_sleep.wait")


def _cancel_after(ctx: AdapterContext, seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, ctx.cancelled.set)
    timer.start()
    return timer


def test_create_waits_and_records_when(ctx: AdapterContext) -> None:
    started = time.monotonic()
    state = SLEEP.create(ctx, SLEEP.plan(ctx, None, {"create_duration": "200ms"}))
    assert time.monotonic() - started >= 0.2
    created = datetime.strptime(state["id"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs(datetime.now(UTC) - created) < timedelta(seconds=5)


def test_delete_waits_for_destroy_duration(ctx: AdapterContext) -> None:
    state = SLEEP.create(ctx, SLEEP.plan(ctx, None, {"destroy_duration": "0.2s"}))
    started = time.monotonic()
    SLEEP.delete(ctx, state)
    assert time.monotonic() - started >= 0.2


def test_an_interrupted_create_ends_promptly_with_an_error(ctx: AdapterContext) -> None:
    timer = _cancel_after(ctx, 0.1)
    started = time.monotonic()
    with pytest.raises(AdapterError, match="interrupted") as info:
        SLEEP.create(ctx, SLEEP.plan(ctx, None, {"create_duration": "1h"}))
    timer.join()
    assert time.monotonic() - started < 2
    assert info.value.address == "time_sleep.wait"


def test_an_interrupted_destroy_ends_promptly_with_an_error(ctx: AdapterContext) -> None:
    state = SLEEP.create(ctx, SLEEP.plan(ctx, None, {"destroy_duration": "30m"}))
    timer = _cancel_after(ctx, 0.1)
    started = time.monotonic()
    with pytest.raises(AdapterError, match="interrupted"):
        SLEEP.delete(ctx, state)
    timer.join()
    assert time.monotonic() - started < 2


def test_an_already_cancelled_run_does_not_start_sleeping(ctx: AdapterContext) -> None:
    ctx.cancelled.set()
    started = time.monotonic()
    with pytest.raises(AdapterError, match="interrupted"):
        SLEEP.create(ctx, SLEEP.plan(ctx, None, {"create_duration": "10s"}))
    assert time.monotonic() - started < 0.5


def test_changing_a_duration_updates_in_place_without_waiting(ctx: AdapterContext) -> None:
    state = SLEEP.create(ctx, SLEEP.plan(ctx, None, {"create_duration": "1ms"}))
    planned = SLEEP.plan(ctx, state, {"create_duration": "1h", "destroy_duration": "5s"})
    assert planned["id"] == state["id"]
    started = time.monotonic()
    updated = SLEEP.update(ctx, state, planned)
    assert time.monotonic() - started < 0.5
    assert updated["id"] == state["id"] and updated["destroy_duration"] == "5s"
    assert SLEEP.replace_on == {"triggers"}


def test_plan_for_create_leaves_id_unknown_and_triggers_as_strings(ctx: AdapterContext) -> None:
    planned = SLEEP.plan(ctx, None, {"create_duration": "1s", "triggers": {"n": 3, "ok": False}})
    assert is_unknown(planned["id"])
    assert planned["triggers"] == {"n": "3", "ok": "false"}
    assert planned["destroy_duration"] is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("1m", 60),
        ("1h2m3s", 3723),
        ("1.5h", 5400),
        ("300ms", 0.3),
        ("0", 0),
        ("2us", 2e-6),
        ("-1s", -1),
    ],
)
def test_go_style_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["5", "1d", "s", "1h 2m", "", "1.2.3s"])
def test_malformed_durations_are_rejected_by_schema_and_create(ctx: AdapterContext, text: str) -> None:
    assert not Draft202012Validator(SLEEP.schema).is_valid({"create_duration": text})
    with pytest.raises(AdapterError, match="create_duration"):
        SLEEP.create(ctx, SLEEP.plan(ctx, None, {"create_duration": text or "x"}))


def test_schema_requires_a_duration() -> None:
    validator = Draft202012Validator(SLEEP.schema)
    assert not validator.is_valid({})
    assert not validator.is_valid({"create_duration": None, "triggers": {"a": "b"}})
    assert validator.is_valid({"destroy_duration": "1s"})


def test_import(ctx: AdapterContext) -> None:
    state = SLEEP.import_(ctx, "30s,,env=prod")
    assert (state["create_duration"], state["destroy_duration"]) == ("30s", None)
    assert state["triggers"] == {"env": "prod"}
    assert state["id"].endswith("Z")
    for bad in ("30s", ",", "1d,", "1s,,novalue"):
        with pytest.raises(AdapterError):
            SLEEP.import_(ctx, bad)


def test_provider_identity() -> None:
    assert time_provider.PROVIDER.source == "registry.terraform.io/hashicorp/time"
