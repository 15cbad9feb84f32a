"""Durations written as Go writes them ("30s", "1m", "1h2m3s", "1.5h", "300ms") and cancellable sleep.

``time_sleep`` accepts the strings Terraform's time provider accepts, and an interrupted apply
must not wait out a long sleep: ``sleep`` wakes within a fraction of a second once the run's
cancel flag is set.
"""

from __future__ import annotations

import re
import threading
import time

# Go's time.ParseDuration: an optional sign, then one or more <decimal><unit>; "0" alone is allowed.
DURATION_PATTERN = r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$"
_PART = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SLICE_SECONDS = 0.1


def parse_duration(text: str) -> float:
    """Seconds in a Go duration string; ValueError with the reason when it is not one."""
    if not re.fullmatch(DURATION_PATTERN, text):
        raise ValueError(
            f'invalid duration {text!r}: expected a number and a unit, like "30s", "5m" or "1h2m3s"'
        )
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    return sign * sum(float(num) * _UNIT_SECONDS[unit] for num, unit in _PART.findall(body))


def sleep(seconds: float, cancelled: threading.Event) -> bool:
    """Sleep ``seconds`` in short slices; False as soon as ``cancelled`` is set, True when done."""
    deadline = time.monotonic() + max(seconds, 0.0)
    while True:
        if cancelled.is_set():
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        if cancelled.wait(min(remaining, _SLICE_SECONDS)):
            return False
