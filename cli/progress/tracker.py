"""The state a progress view keeps for the current phase, and the clock that drives "Still creating...".

``Tracker`` counts what finished, holds what is in flight and what failed; ``Ticker`` is the thread
that wakes a view twice a second so it can report operations still running. The plain view and the
JSON stream use both; the live view, which redraws on its own, needs only the tracker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Running:
    action: str
    started: float
    next_tick: float


@dataclass
class Tracker:
    """What a view knows about the current phase: counts, what is in flight, what failed."""

    phase: str = ""
    total: int | None = None
    done: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (address, error)
    running: dict[str, _Running] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def begin(self, phase: str, total: int | None) -> None:
        self.phase, self.total, self.done = phase, total, 0
        self.failed, self.running, self.started = [], {}, time.monotonic()

    def start(self, address: str, action: str, interval: float) -> None:
        now = time.monotonic()
        self.running[address] = _Running(action, now, now + interval)

    def finish(self, address: str, error: str | None = None) -> None:
        self.running.pop(address, None)
        self.done += 1
        if error is not None:
            self.failed.append((address, error))

    def due(self, interval: float) -> list[tuple[str, str, float]]:
        """Operations that crossed another ``interval`` since their last "still running" report."""
        now = time.monotonic()
        out = []
        for addr, run in sorted(self.running.items()):
            if now >= run.next_tick:
                run.next_tick += interval
                out.append((addr, run.action, now - run.started))
        return out


class Ticker:
    """A daemon thread calling ``tick`` twice a second until stopped (for "Still creating...")."""

    def __init__(self, tick: Callable[[], None]) -> None:
        self._tick = tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def ensure_started(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="ctl-progress", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self._tick()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
