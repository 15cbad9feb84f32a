"""What the first Ctrl-C does while providers run: ask them to stop, as Terraform does."""

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
