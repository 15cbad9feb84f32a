"""What Ctrl-C and SIGTERM do while ctl works: stop safely, as Terraform does.

A plan asks the running providers to stop (``stop_providers_on_interrupt``); an apply or a reconcile
round starts nothing new, lets running operations finish and saves state (``install_stop_signals``).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any


def stop_providers_on_interrupt() -> Callable[[], Any]:
    """First Ctrl-C: say so, and ask the running providers to stop (StopProvider), as Terraform does;
    the plan then ends with what they report. A second Ctrl-C ends ctl at once."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.stderr.write("\nInterrupt received: stopping; the running providers were asked to stop "
                         "(interrupt again to quit at once).\n")
        from engine.providers import stop_all

        stop_all()

    old = signal.signal(signal.SIGINT, handler)
    return lambda: signal.signal(signal.SIGINT, old)


def install_stop_signals(stop: threading.Event, abandon: threading.Event, *,
                         first: Callable[[str], str], second: str) -> Callable[[], None]:
    """First SIGINT/SIGTERM sets ``stop`` (start nothing new); the second sets ``abandon`` (stop waiting
    for running operations, save state). The engine polls both events, so a handler never does more
    than set one and say so on stderr: ``first`` is given the signal's name, ``second`` is said as is.

    Returns the function that puts the previous handlers back. Signals can only be handled on the main
    thread; elsewhere (a command run from a test's thread) nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            abandon.set()
            sys.stderr.write(second)
        else:
            stop.set()
            sys.stderr.write(first(signal.Signals(signum).name))

    old_int = signal.signal(signal.SIGINT, handler)
    old_term = signal.signal(signal.SIGTERM, handler)

    def restore() -> None:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
    return restore
