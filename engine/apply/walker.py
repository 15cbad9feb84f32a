"""A concurrent executor for a dependency graph, knowing nothing about resources.

Apply time is dominated by slow cloud calls, so an operation must start the moment everything it
waits for has succeeded — not when a whole "wave" is done — with at most ``parallelism`` running.
The engine also needs to record every result in the state, and state must have exactly one writer:
so worker threads only *run* operations and hand results back through a queue, and the calling
("owner") thread does all the bookkeeping and calls ``on_start`` / ``on_done``. Those callbacks
therefore never run concurrently and may touch state without locks, and ``on_done`` for a node
always happens before ``on_start`` of anything that depends on it.

A failure only stops what depends on the failed node; independent work carries on, as Terraform
users expect. Interruption has two strengths: ``stop`` (the first Ctrl-C: start nothing new and let
running operations finish so their results are recorded) and ``abandon`` (give up waiting; the
workers are daemon threads, so they cannot keep the process alive, and results they produce later
are ignored).

Ready nodes start in the order of ``str(node)``, so two runs of the same graph with the same timing
start operations in the same order, which makes logs and tests reproducible.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from vocab.limits import DEFAULT_PARALLELISM

K = TypeVar("K", bound=Hashable)

# How often the owner looks at the stop/abandon events while it waits for a result. Completions
# wake it immediately; only an event set from a signal handler or another thread (which cannot
# wake a blocked queue read) is noticed at this pace.
_EVENT_CHECK_SECONDS = 0.02

_worker_names = itertools.count(1)


@dataclass(frozen=True)
class WalkResult(Generic[K]):
    """What happened to every node of a walk; each node is in exactly one of the collections."""

    succeeded: dict[K, object]
    """Node -> the value ``run`` returned, in completion order."""
    failed: dict[K, BaseException]
    """Node -> the exception ``run`` raised."""
    skipped: dict[K, K]
    """Node -> the failed or cancelled dependency (direct or transitive) that blocked it."""
    cancelled: set[K]
    """Nodes never started because the walk was stopped or abandoned."""
    abandoned: set[K] = field(default_factory=set)
    """Nodes still running when the walk was abandoned: their outcome is unknown."""

    @property
    def ok(self) -> bool:
        """True when every node ran and succeeded."""
        return not (self.failed or self.skipped or self.cancelled or self.abandoned)


class CycleError(ValueError):
    """The dependency graph has a cycle, so no order can satisfy it; nothing has been run."""

    def __init__(self, cycle: list[Hashable]) -> None:
        self.cycle = cycle
        path = " -> ".join(str(node) for node in [*cycle, cycle[0]])
        super().__init__(f"dependency cycle: {path}")


def walk(
    deps: Mapping[K, Collection[K]],
    run: Callable[[K], object],
    *,
    parallelism: int = DEFAULT_PARALLELISM,
    on_start: Callable[[K], None] | None = None,
    on_done: Callable[[K, object | None, BaseException | None], None] | None = None,
    stop: threading.Event | None = None,
    abandon: threading.Event | None = None,
    on_batch: Callable[[], None] | None = None,
) -> WalkResult[K]:
    """Run ``run(node)`` for every node of ``deps`` (node -> the nodes it waits for), concurrently.

    ``run`` executes in worker threads; ``on_start`` and ``on_done(node, result, exception)`` execute
    in the calling thread, one at a time. ``on_batch`` runs in the calling thread after each batch of
    ``on_done`` calls (every result that was waiting at once), before anything else starts: the
    place to make the batch's bookkeeping durable with one fsync instead of one per result
    (``engine.state.journal.Journal.grouped``). An exception raised by a callback ends the walk at once
    (like ``abandon``) and propagates. Raises ``ValueError`` before running anything when
    ``parallelism`` is below 1 or a dependency is not a node, and ``CycleError`` (a ``ValueError``)
    naming the nodes of one cycle when the graph has one.
    """
    if parallelism < 1:
        raise ValueError(f"parallelism must be at least 1, not {parallelism}")
    graph = _Graph(deps)
    return _Walk(graph, run, parallelism, on_start, on_done, stop, abandon, on_batch).execute()


class _Graph(Generic[K]):
    """The validated graph as integer indices, numbered in ``str(node)`` order (the start order)."""

    def __init__(self, deps: Mapping[K, Collection[K]]) -> None:
        self.nodes: list[K] = sorted(deps, key=str)
        index = {node: i for i, node in enumerate(self.nodes)}
        self.deps: list[list[int]] = []
        self.dependents: list[list[int]] = [[] for _ in self.nodes]
        for i, node in enumerate(self.nodes):
            own: list[int] = []
            for dep in set(deps[node]):
                if dep not in index:
                    raise ValueError(f"{node} depends on {dep}, which is not a node of the graph")
                own.append(index[dep])
            own.sort()
            self.deps.append(own)
            for d in own:
                self.dependents[d].append(i)
        self.topo_order = self._topological_order()

    def _topological_order(self) -> list[int]:
        """Kahn's algorithm; a node left over sits on or behind a cycle, which is then reported."""
        waiting = [len(d) for d in self.deps]
        order = [i for i, w in enumerate(waiting) if w == 0]
        for i in order:  # the list grows while we iterate: a breadth-first sweep
            for dependent in self.dependents[i]:
                waiting[dependent] -= 1
                if waiting[dependent] == 0:
                    order.append(dependent)
        if len(order) < len(self.nodes):
            raise CycleError([self.nodes[i] for i in self._find_cycle(waiting)])
        return order

    def _find_cycle(self, waiting: list[int]) -> list[int]:
        """Follow unfinished dependencies from a leftover node until one repeats: that loop is a cycle.

        Every leftover node has at least one leftover dependency, so the walk never dead-ends.
        """
        start = next(i for i, w in enumerate(waiting) if w > 0)
        seen: dict[int, int] = {}
        path: list[int] = []
        node = start
        while node not in seen:
            seen[node] = len(path)
            path.append(node)
            node = next(d for d in self.deps[node] if waiting[d] > 0)
        return path[seen[node] :]


class _Walk(Generic[K]):
    """One execution of a graph: the owner-side bookkeeping plus the worker threads it feeds."""

    def __init__(
        self,
        graph: _Graph[K],
        run: Callable[[K], object],
        parallelism: int,
        on_start: Callable[[K], None] | None,
        on_done: Callable[[K, object | None, BaseException | None], None] | None,
        stop: threading.Event | None,
        abandon: threading.Event | None,
        on_batch: Callable[[], None] | None = None,
    ) -> None:
        self._graph = graph
        self._on_batch = on_batch
        self._run = run
        self._parallelism = parallelism
        self._on_start = on_start
        self._on_done = on_done
        self._stop = stop
        self._abandon = abandon
        self._tasks: queue.SimpleQueue[int | None] = queue.SimpleQueue()  # None: exit
        self._results: queue.SimpleQueue[tuple[int, object, BaseException | None]] = queue.SimpleQueue()
        self._workers = 0
        self._running: set[int] = set()
        self._waiting = [len(d) for d in graph.deps]
        self._ready = [i for i, w in enumerate(self._waiting) if w == 0]
        heapq.heapify(self._ready)
        self._succeeded: dict[K, object] = {}
        self._failed: dict[K, BaseException] = {}
        self._skipped: dict[int, int] = {}
        self._cancelled: set[int] = set()

    def execute(self) -> WalkResult[K]:
        try:
            return self._loop()
        finally:
            for _ in range(self._workers):  # busy workers exit once their current node is done
                self._tasks.put(None)

    def _loop(self) -> WalkResult[K]:
        stopping = False
        while True:
            if self._abandon is not None and self._abandon.is_set():
                return self._finish(abandoned=True)
            stopping = stopping or (self._stop is not None and self._stop.is_set())
            while not stopping and self._ready and len(self._running) < self._parallelism:
                self._start(heapq.heappop(self._ready))
            if not self._running:
                return self._finish(abandoned=False)
            self._receive(watch_stop=not stopping)

    def _start(self, i: int) -> None:
        node = self._graph.nodes[i]
        if self._on_start is not None:
            self._on_start(node)
        self._running.add(i)
        if len(self._running) > self._workers:  # every worker is busy: add one, up to parallelism
            self._workers += 1
            threading.Thread(
                target=_work,
                args=(self._tasks, self._results, self._run, self._graph.nodes),
                name=f"ctl-walker-{next(_worker_names)}",
                daemon=True,
            ).start()
        self._tasks.put(i)

    def _receive(self, *, watch_stop: bool) -> None:
        """Wait for one result, then take every other result already waiting, in arrival order."""
        watching = self._abandon is not None or (watch_stop and self._stop is not None)
        try:
            message = self._results.get(timeout=_EVENT_CHECK_SECONDS if watching else None)
        except queue.Empty:
            return
        while True:
            self._record(*message)
            try:
                message = self._results.get_nowait()
            except queue.Empty:
                break
        if self._on_batch is not None:
            self._on_batch()

    def _record(self, i: int, value: object, error: BaseException | None) -> None:
        self._running.discard(i)
        node = self._graph.nodes[i]
        if error is None:
            self._succeeded[node] = value
            for dependent in self._graph.dependents[i]:
                self._waiting[dependent] -= 1
                if self._waiting[dependent] == 0 and dependent not in self._skipped:
                    heapq.heappush(self._ready, dependent)
        else:
            self._failed[node] = error
            self._skip_dependents_of(i, cause=i)
        if self._on_done is not None:
            self._on_done(node, None if error is not None else value, error)

    def _skip_dependents_of(self, i: int, *, cause: int) -> None:
        """Mark every transitive dependent of ``i`` skipped because of ``cause``, first cause wins."""
        pending = [i]
        while pending:
            for dependent in self._graph.dependents[pending.pop()]:
                if dependent not in self._skipped:
                    self._skipped[dependent] = cause
                    pending.append(dependent)

    def _finish(self, *, abandoned: bool) -> WalkResult[K]:
        """Classify never-started nodes: cancelled if nothing blocked them, else skipped."""
        done = {*self._succeeded, *self._failed}
        nodes = self._graph.nodes
        for i in self._graph.topo_order:
            if i in self._running or i in self._skipped or nodes[i] in done:
                continue
            self._cancelled.add(i)
            self._skip_dependents_of(i, cause=i)
        return WalkResult(
            succeeded=self._succeeded,
            failed=self._failed,
            skipped={nodes[i]: nodes[cause] for i, cause in self._skipped.items()},
            cancelled={nodes[i] for i in self._cancelled},
            abandoned={nodes[i] for i in self._running} if abandoned else set(),
        )


def _work(
    tasks: queue.SimpleQueue[int | None],
    results: queue.SimpleQueue[tuple[int, object, BaseException | None]],
    run: Callable[[K], object],
    nodes: list[K],
) -> None:
    """A worker thread: run nodes until told to exit. Any exception is a result, not a crash."""
    while True:
        i = tasks.get()
        if i is None:
            return
        try:
            value = run(nodes[i])
        except BaseException as error:
            results.put((i, None, error))
        else:
            results.put((i, value, None))
