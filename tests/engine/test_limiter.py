"""The run's one concurrency limit: never more holders than its size, a slot freed however the body ends."""

from __future__ import annotations

import threading
import time

import pytest

from engine.limiter import Limiter


def most_at_once(limiter: Limiter, threads: int) -> int:
    """How many of ``threads`` workers held a slot of ``limiter`` at the same moment, at most."""
    held = most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal held, most
        with limiter:
            with lock:
                held += 1
                most = max(most, held)
            time.sleep(0.02)
            with lock:
                held -= 1

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return most


def test_never_more_holders_than_its_size_and_the_default_is_10() -> None:
    assert most_at_once(Limiter(2), 12) == 2
    assert Limiter().size == 10 and most_at_once(Limiter(), 24) == 10


def test_a_failing_body_gives_its_slot_back() -> None:
    limiter = Limiter(1)
    with pytest.raises(RuntimeError), limiter:
        raise RuntimeError("the provider failed")
    done = threading.Event()
    threading.Thread(target=lambda: (limiter.__enter__(), done.set()), daemon=True).start()
    assert done.wait(5)  # the slot is free again


def test_a_size_below_1_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Limiter(0)
