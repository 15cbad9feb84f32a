"""The run's one concurrency limit: ``-parallelism`` read once, shared by every walk of the run.

Terraform reads ``-parallelism`` once into one semaphore (``terraform.Context``'s ``parallelSem``)
that every graph walk takes before it executes a vertex, so the limit holds for the run as a whole,
not per walk. A ``Limiter`` is that semaphore here: the operation that owns a run
(``engine.operations``) makes one and hands it to the refresh, to the plan walk's concurrent
instances and to the apply walker, and each takes a slot around every provider operation. The
worker pools the walks keep are sized by the same number, so a thread never waits for a slot its
own walk holds.

Not reentrant: a thread holding a slot must not take another (it could wait for itself). A walk
takes it around one operation, and nothing inside an operation takes it again.

The slots are tokens in a ``queue.SimpleQueue``: taking and returning one is C code, where
``threading.Semaphore`` runs a Python-level condition and lock on every acquire and release, and
every planned and applied instance takes a slot (bench/README.md has the cost of each).
"""

from __future__ import annotations

import queue
from types import TracebackType

from vocab.limits import DEFAULT_PARALLELISM


class Limiter:
    """At most ``size`` provider operations at once, across all the walks that share this object.

    ``with limiter:`` holds one slot for the body; it blocks while ``size`` others are held.
    """

    __slots__ = ("_tokens", "size")

    def __init__(self, size: int = DEFAULT_PARALLELISM) -> None:
        if size < 1:
            raise ValueError(f"parallelism must be at least 1, not {size}")
        self.size = size
        self._tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(size):
            self._tokens.put(None)

    def __enter__(self) -> None:
        self._tokens.get()  # blocks while every token is taken

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._tokens.put(None)

    def __repr__(self) -> str:
        return f"Limiter(size={self.size})"


__all__ = ["Limiter"]
