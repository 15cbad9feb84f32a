"""``gc_paused``: the cyclic collector is off while a document is built, and as it was afterwards;
``gc_paused_then_frozen``: what was built is out of its view before it resumes."""

from __future__ import annotations

import gc

import pytest

from engine.state.gc_pause import gc_paused, gc_paused_then_frozen


@gc_paused
def _seen_enabled() -> bool:
    return gc.isenabled()


@gc_paused
def _fails() -> None:
    raise ValueError("boom")


def test_the_collector_is_paused_inside_and_resumes_after() -> None:
    assert gc.isenabled()
    assert _seen_enabled() is False
    assert gc.isenabled()
    with pytest.raises(ValueError, match="boom"):
        _fails()
    assert gc.isenabled()  # also after an exception


def test_a_collector_paused_by_the_caller_stays_paused() -> None:
    gc.disable()
    try:
        assert _seen_enabled() is False
        assert not gc.isenabled()
    finally:
        gc.enable()


@gc_paused_then_frozen
def _builds() -> list[list[int]]:
    return [[i] for i in range(20_000)]


def test_what_a_frozen_function_built_is_not_collected_as_the_collector_resumes() -> None:
    """Everything made while paused is young; resuming first would start a collection of all of it."""
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    frozen_before = gc.get_freeze_count()
    gc.callbacks.append(seen)
    try:
        built = _builds()
    finally:
        gc.callbacks.remove(seen)
    assert gc.isenabled()
    assert collections == []
    assert gc.get_freeze_count() >= frozen_before + len(built)
