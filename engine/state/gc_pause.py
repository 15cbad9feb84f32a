"""Building or reading a whole state or plan document with the cyclic garbage collector paused.

Such a document is hundreds of thousands of small dicts and lists without reference cycles, made
in one go: every few hundred allocations the collector would start, and now and then traverse the
whole heap (the configuration, the state) looking for cycles there are none of, a large share of
the time of encoding the state and of decoding it. What the
paused function drops is freed by reference counting as usual; the collector resumes afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside (left off if it already was): for a document made or read in
    pieces by a loop that is not one function, such as a state streamed to its file."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def gc_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with the collector off while it runs (left off if it already was)."""

    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            return fn(*args, **kwargs)

    return paused


def gc_paused_then_frozen(fn: Callable[P, R]) -> Callable[P, R]:
    """``gc_paused``, then everything alive is frozen out of the collector's view.

    For work whose result lives as long as the command (the configuration, the state, a plan): a plan allocates a few
    objects per value of every resource, and at scale the collector spent a large share of a
    re-plan rescanning them. Frozen, they are never scanned again; any cycle made meanwhile (an
    SDK's) is kept until the process ends, which for a command is soon.

    They are frozen before the collector resumes: everything made while it was paused is still in
    its youngest generation, and the first allocation after it resumed would start a collection
    of that whole generation, long at scale, only to find no garbage.
    """

    @functools.wraps(fn)
    def frozen_after(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            try:
                return fn(*args, **kwargs)
            finally:
                gc.freeze()

    return frozen_after
