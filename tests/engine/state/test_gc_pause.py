"""``gc_paused``: the cyclic collector is off while a document is built, and as it was afterwards."""

from __future__ import annotations

import gc

import pytest

from engine.state.gc_pause import gc_paused


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
