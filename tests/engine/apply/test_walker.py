"""The apply walker: dependency order, the parallelism bound, failures, interruption, the owner thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

import pytest

from engine.apply.walker import CycleError, WalkResult, walk

pytestmark = pytest.mark.timeout(20)


class Recorder:
    """Collects what a walk did, in order, so tests can check when things happened."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, Hashable]] = []
        self.running = 0
        self.max_running = 0

    def run_with(self, body: Callable[[Hashable], object]) -> Callable[[Hashable], object]:
        def run(node: Hashable) -> object:
            with self.lock:
                self.events.append(("run-start", node))
                self.running += 1
                self.max_running = max(self.max_running, self.running)
            try:
                return body(node)
            finally:
                with self.lock:
                    self.running -= 1
                    self.events.append(("run-end", node))

        return run

    def index(self, kind: str, node: Hashable) -> int:
        return self.events.index((kind, node))

    def started(self) -> list[Hashable]:
        return [node for kind, node in self.events if kind == "run-start"]


def _noop(node: Hashable) -> object:
    return f"result of {node}"


def _sleep(seconds: float) -> Callable[[Hashable], None]:
    return lambda node: time.sleep(seconds)


def _assert_deps_finished_first(deps: dict, rec: Recorder) -> None:
    for node, node_deps in deps.items():
        for dep in node_deps:
            assert rec.index("run-end", dep) < rec.index("run-start", node), (
                f"{node} started before {dep} ended"
            )


# --- order -------------------------------------------------------------------------------------


def test_chain_runs_strictly_in_dependency_order() -> None:
    deps = {"c": ["b"], "b": ["a"], "a": []}
    rec = Recorder()
    result = walk(deps, rec.run_with(_noop), parallelism=5)
    assert rec.started() == ["a", "b", "c"]
    _assert_deps_finished_first(deps, rec)
    assert result.succeeded == {"a": "result of a", "b": "result of b", "c": "result of c"}
    assert result.ok


def test_diamond_runs_both_middles_concurrently_and_joins_after_both() -> None:
    deps = {"top": [], "left": ["top"], "right": ["top"], "bottom": ["left", "right"]}
    both_middles = threading.Barrier(2, timeout=5)  # breaks unless left and right overlap in time
    rec = Recorder()

    def body(node: Hashable) -> None:
        if node in ("left", "right"):
            both_middles.wait()
            time.sleep(0.02)

    result = walk(deps, rec.run_with(body), parallelism=4)
    assert result.ok, result.failed
    _assert_deps_finished_first(deps, rec)


def test_a_node_starts_as_soon_as_its_own_deps_succeed_not_wave_by_wave() -> None:
    # `slow` and `fast` are both in the first wave; `after_fast` only waits for `fast`. `slow` can
    # only finish once `after_fast` has run, so a wave-by-wave walker would never get there.
    deps = {"slow": [], "fast": [], "after_fast": ["fast"]}
    after_fast_ran = threading.Event()

    def run(node: Hashable) -> None:
        if node == "slow" and not after_fast_ran.wait(timeout=5):
            raise TimeoutError("after_fast did not start while slow was running")
        if node == "after_fast":
            after_fast_ran.set()

    result = walk(deps, run, parallelism=3)
    assert result.ok, result.failed


def test_ready_nodes_start_in_order_of_their_names() -> None:
    deps: dict[Hashable, list[Hashable]] = {name: [] for name in ["delta", "alpha", "charlie", "bravo"]}
    deps.update({2: [], 10: [], 1: []})
    rec = Recorder()
    walk(deps, rec.run_with(_noop), parallelism=1)
    assert rec.started() == [1, 10, 2, "alpha", "bravo", "charlie", "delta"]  # by str(node)


def test_repeated_walks_start_nodes_in_the_same_order() -> None:
    deps = {f"n{i:02}": [f"n{i // 3:02}"] if i else [] for i in range(30)}
    orders = []
    for _ in range(3):
        rec = Recorder()
        walk(deps, rec.run_with(_noop), parallelism=1)
        orders.append(rec.started())
    assert orders[0] == orders[1] == orders[2]


def test_nodes_can_be_any_hashable_value() -> None:
    deps = {("aws_s3_bucket", "logs"): [], ("aws_s3_bucket_versioning", "logs"): [("aws_s3_bucket", "logs")]}
    result = walk(deps, lambda node: node[1].upper())
    assert result.succeeded == {
        ("aws_s3_bucket", "logs"): "LOGS",
        ("aws_s3_bucket_versioning", "logs"): "LOGS",
    }


def test_an_empty_graph_does_nothing() -> None:
    result = walk({}, _noop)
    assert result == WalkResult(succeeded={}, failed={}, skipped={}, cancelled=set())


# --- parallelism -------------------------------------------------------------------------------


@pytest.mark.parametrize("parallelism", [1, 3, 8])
def test_never_more_than_parallelism_nodes_run_at_once(parallelism: int) -> None:
    deps = {f"n{i}": [] for i in range(16)}
    deps.update({f"m{i}": [f"n{i}", f"n{i + 1}"] for i in range(15)})
    rec = Recorder()
    result = walk(deps, rec.run_with(_sleep(0.02)), parallelism=parallelism)
    assert result.ok
    assert rec.max_running == parallelism  # the bound is reached, never exceeded


def test_parallelism_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="parallelism"):
        walk({"a": []}, _noop, parallelism=0)


def test_independent_sleeps_overlap_up_to_the_parallelism() -> None:
    deps = {i: [] for i in range(20)}
    started = time.perf_counter()
    walk(deps, _sleep(0.1), parallelism=10)
    assert time.perf_counter() - started < 0.6  # two rounds of 0.1 s, not twenty


def test_ten_thousand_trivial_nodes_walk_quickly() -> None:
    deps: dict[str, list[str]] = {}
    for chain in range(50):  # 50 chains of 100
        for step in range(100):
            deps[f"c{chain}.{step}"] = [f"c{chain}.{step - 1}"] if step else []
    deps["root"] = []
    deps.update({f"fan{i}": ["root"] for i in range(4998)})
    deps["sink"] = [f"fan{i}" for i in range(4998)]
    started = time.perf_counter()
    result = walk(deps, _noop, stop=threading.Event())
    elapsed = time.perf_counter() - started
    assert len(result.succeeded) == 10_000
    assert elapsed < 3.0, f"{elapsed:.2f} s"


# --- failures ----------------------------------------------------------------------------------


def test_a_failure_skips_its_dependents_and_nothing_else() -> None:
    deps = {
        "db": [],
        "schema": ["db"],
        "app": ["schema", "bucket"],
        "bucket": [],
        "cdn": ["bucket"],
        "queue": [],
    }
    rec = Recorder()

    def body(node: Hashable) -> str:
        if node == "db":
            raise RuntimeError("quota exceeded")
        return "ok"

    result = walk(deps, rec.run_with(body), parallelism=2)
    assert set(result.failed) == {"db"}
    assert str(result.failed["db"]) == "quota exceeded"
    assert result.skipped == {"schema": "db", "app": "db"}  # transitive dependents name the failed node
    assert set(result.succeeded) == {"bucket", "cdn", "queue"}
    assert not result.cancelled
    assert "schema" not in rec.started() and "app" not in rec.started()
    assert not result.ok


def test_on_done_receives_the_exception_of_a_failed_node() -> None:
    seen: list[tuple[Hashable, object, BaseException | None]] = []

    def run(node: Hashable) -> str:
        if node == "bad":
            raise ValueError("boom")
        return "fine"

    walk({"bad": [], "good": []}, run, on_done=lambda n, r, e: seen.append((n, r, e)))
    by_node = {node: (value, error) for node, value, error in seen}
    assert by_node["good"] == ("fine", None)
    value, error = by_node["bad"]
    assert value is None and isinstance(error, ValueError)


def test_even_exit_exceptions_from_run_are_recorded_as_failures() -> None:
    def run(node: Hashable) -> None:
        raise SystemExit(3)

    result = walk({"a": [], "b": ["a"]}, run)
    assert isinstance(result.failed["a"], SystemExit)
    assert result.skipped == {"b": "a"}


def test_an_exception_in_a_callback_propagates_from_walk() -> None:
    def on_done(node: Hashable, value: object, error: BaseException | None) -> None:
        raise OSError("state file not writable")

    with pytest.raises(OSError, match="not writable"):
        walk({"a": [], "b": ["a"]}, _noop, on_done=on_done)


# --- invalid graphs ----------------------------------------------------------------------------


def test_a_cycle_is_reported_with_its_nodes_before_anything_runs() -> None:
    deps = {"entry": ["a"], "a": ["b"], "b": ["c"], "c": ["a"], "lonely": []}
    rec = Recorder()
    with pytest.raises(ValueError, match="cycle") as caught:
        walk(deps, rec.run_with(_noop))
    assert isinstance(caught.value, CycleError)
    assert sorted(caught.value.cycle) == ["a", "b", "c"]  # not "entry", which only depends on it
    for name in ("a", "b", "c"):
        assert name in str(caught.value)
    assert rec.started() == []


def test_a_node_depending_on_itself_is_a_cycle() -> None:
    with pytest.raises(CycleError) as caught:
        walk({"a": [], "self": ["self"]}, _noop)
    assert caught.value.cycle == ["self"]


def test_a_dependency_that_is_not_a_node_is_refused() -> None:
    with pytest.raises(ValueError, match="missing"):
        walk({"a": ["missing"]}, _noop)


# --- stop and abandon --------------------------------------------------------------------------


def test_stop_lets_running_nodes_finish_and_starts_nothing_new() -> None:
    # `a_first` asks to stop while `b_slow` is still running; `b_slow` must still complete and be
    # recorded. Names are chosen so that exactly these two start first.
    deps = {
        "a_first": [],
        "b_slow": [],
        "c_later": [],
        "d_after_first": ["a_first"],
        "e_after_later": ["c_later"],
    }
    stop = threading.Event()
    done: list[Hashable] = []

    def run(node: Hashable) -> str:
        if node == "a_first":
            stop.set()
        if node == "b_slow":
            time.sleep(0.2)
        return "ok"

    result = walk(deps, run, parallelism=2, stop=stop, on_done=lambda n, r, e: done.append(n))
    assert set(result.succeeded) == {"a_first", "b_slow"}
    assert set(done) == {"a_first", "b_slow"}  # the running node's result reached on_done
    assert result.cancelled == {"c_later", "d_after_first"}  # could have started, were not
    assert result.skipped == {"e_after_later": "c_later"}  # blocked by a cancelled dependency
    assert not result.failed and not result.abandoned


def test_stop_set_before_the_walk_runs_nothing() -> None:
    stop = threading.Event()
    stop.set()
    rec = Recorder()
    result = walk({"a": [], "b": ["a"], "c": []}, rec.run_with(_noop), stop=stop)
    assert rec.started() == []
    assert result.cancelled == {"a", "c"}
    assert result.skipped == {"b": "a"}


def test_stop_set_from_another_thread_is_noticed_while_waiting() -> None:
    stop = threading.Event()
    release = threading.Event()
    deps = {"blocking": [], "next": ["blocking"]}

    def run(node: Hashable) -> None:
        if node == "blocking":
            release.wait(timeout=5)

    def interrupt() -> None:
        stop.set()
        release.set()

    threading.Timer(0.1, interrupt).start()
    result = walk(deps, run, stop=stop)
    assert set(result.succeeded) == {"blocking"}
    assert result.cancelled == {"next"}


def test_abandon_returns_without_waiting_for_running_nodes() -> None:
    abandon = threading.Event()
    release = threading.Event()
    finished = threading.Event()
    done: list[Hashable] = []
    deps = {"hung": [], "after_hung": ["hung"], "quick": []}

    def run(node: Hashable) -> str:
        if node == "hung":
            release.wait(timeout=10)
            finished.set()
        return "ok"

    threading.Timer(0.1, abandon.set).start()
    started = time.perf_counter()
    result = walk(deps, run, abandon=abandon, on_done=lambda n, r, e: done.append(n))
    assert time.perf_counter() - started < 2
    assert result.abandoned == {"hung"}
    assert result.cancelled == {"after_hung"}
    assert set(result.succeeded) == {"quick"}

    release.set()  # the abandoned node finishes later; its result goes nowhere
    assert finished.wait(timeout=5)
    time.sleep(0.05)
    assert done == ["quick"]


# --- the owner thread --------------------------------------------------------------------------


def test_callbacks_run_on_the_calling_thread_and_run_on_workers() -> None:
    owner = threading.get_ident()
    callback_threads: set[int] = set()
    run_threads: set[int] = set()
    lock = threading.Lock()
    deps = {f"n{i}": [f"n{i - 1}"] if i % 4 else [] for i in range(24)}

    def run(node: Hashable) -> None:
        with lock:
            run_threads.add(threading.get_ident())
        time.sleep(0.002)

    walk(
        deps,
        run,
        parallelism=4,
        on_start=lambda node: callback_threads.add(threading.get_ident()),
        on_done=lambda node, value, error: callback_threads.add(threading.get_ident()),
    )
    assert callback_threads == {owner}
    assert owner not in run_threads


def test_callbacks_never_overlap_and_a_dependency_is_reported_done_before_dependents_start() -> None:
    log: list[tuple[str, Hashable]] = []
    in_callback = threading.Lock()
    deps = {"net": [], "subnet_a": ["net"], "subnet_b": ["net"], "vm": ["subnet_a", "subnet_b"]}

    def record(kind: str, node: Hashable) -> None:
        assert in_callback.acquire(blocking=False), "callbacks overlapped"
        try:
            log.append((kind, node))
            time.sleep(0.005)
        finally:
            in_callback.release()

    walk(
        deps,
        _sleep(0.01),
        parallelism=4,
        on_start=lambda node: record("start", node),
        on_done=lambda node, value, error: record("done", node),
    )
    for node, node_deps in deps.items():
        for dep in node_deps:
            assert log.index(("done", dep)) < log.index(("start", node))
    for node in deps:
        assert log.index(("start", node)) < log.index(("done", node))


def test_on_batch_follows_each_batch_of_results_before_anything_else_starts() -> None:
    """``on_batch`` (the journal's group commit) runs after the ``on_done`` of every result that was
    waiting, and before the ``on_start`` of anything those results let start."""
    log: list[tuple[str, Hashable]] = []
    release = threading.Event()

    def run(node: Hashable) -> None:
        if node in ("a", "b"):
            release.wait(5)

    deps: dict[Hashable, set[Hashable]] = {"a": set(), "b": set(), "c": {"a", "b"}}
    timer = threading.Timer(0.2, release.set)  # a and b finish together: one batch of two results
    timer.start()
    try:
        walk(deps, run, parallelism=4, on_start=lambda n: log.append(("start", n)),
             on_done=lambda n, _r, _e: log.append(("done", n)), on_batch=lambda: log.append(("batch", "")))
    finally:
        timer.cancel()
    assert log[-1] == ("batch", "")  # the last results are settled too
    c_start = log.index(("start", "c"))
    assert ("batch", "") in log[:c_start]
    last_done = max(log.index(("done", "a")), log.index(("done", "b")))
    assert log[last_done + 1] == ("batch", "")
    assert log.count(("batch", "")) <= 3  # once per batch, not per result
