"""How close the apply walker gets to the best possible wall time on typical graph shapes.

For each shape every node sleeps a fixed time (a stand-in for a cloud call), and the wall time is
compared with the ideal: no schedule can beat the longest dependency chain (the critical path), nor
the total work divided by the parallelism. A ratio near 1.0 means the walker starts work the moment
it can and adds little overhead; the target is at most 1.15. A second table measures the pure
scheduling cost on 10,000 nodes that do nothing.

Run: ``python bench/walker_parallel.py`` (exit status 0; plain text on stdout).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout, not installed

from engine.apply.walker import walk

Deps = dict[str, list[str]]


@dataclass(frozen=True)
class _Shape:
    name: str
    deps: Deps
    seconds_per_node: float
    parallelism: int


def _independent(count: int) -> Deps:
    return {f"n{i:03}": [] for i in range(count)}


def _chains(chains: int, length: int) -> Deps:
    return {
        f"c{c:02}.{step:02}": [f"c{c:02}.{step - 1:02}"] if step else []
        for c in range(chains)
        for step in range(length)
    }


def _diamonds(count: int, width: int) -> Deps:
    """``count`` separate diamonds: a top, ``width`` middles that need it, a bottom needing them all."""
    deps: Deps = {}
    for d in range(count):
        top, bottom = f"d{d:02}.a_top", f"d{d:02}.z_bottom"
        middles = [f"d{d:02}.m{m:02}" for m in range(width)]
        deps[top] = []
        deps.update({middle: [top] for middle in middles})
        deps[bottom] = middles
    return deps


def _stacked_diamonds(count: int, width: int) -> Deps:
    """Diamonds in series: each diamond's bottom is the next one's top (layers of a platform)."""
    deps: Deps = {"layer00": []}
    for d in range(count):
        middles = [f"layer{d:02}.m{m:02}" for m in range(width)]
        deps.update({middle: [f"layer{d:02}"] for middle in middles})
        deps[f"layer{d + 1:02}"] = middles
    return deps


def _fan_out_fan_in(width: int) -> Deps:
    deps: Deps = {"a_root": []}
    leaves = [f"leaf{i:03}" for i in range(width)]
    deps.update({leaf: ["a_root"] for leaf in leaves})
    deps["z_sink"] = leaves
    return deps


def _critical_path(deps: Deps) -> int:
    """The number of nodes on the longest dependency chain."""
    depth: dict[str, int] = {}

    def visit(node: str) -> int:
        if node not in depth:
            depth[node] = 1 + max((visit(dep) for dep in deps[node]), default=0)
        return depth[node]

    return max((visit(node) for node in deps), default=0)


def _sleeper(seconds: float) -> Callable[[str], None]:
    return lambda node: time.sleep(seconds)


def _nothing(node: str) -> None:
    return None


def _timed_walk(deps: Deps, run: Callable[[str], None], parallelism: int) -> float:
    started = time.perf_counter()
    result = walk(deps, run, parallelism=parallelism)
    elapsed = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"walk failed: {result.failed}")
    return elapsed


def _sleep_table() -> None:
    shapes = [
        _Shape("independent", _independent(100), 0.2, 10),
        _Shape("10 chains of 10", _chains(10, 10), 0.05, 10),
        _Shape("10 diamonds (1+8+1)", _diamonds(10, 8), 0.05, 10),
        _Shape("5 stacked diamonds", _stacked_diamonds(5, 10), 0.05, 10),
        _Shape("fan-out/fan-in 300", _fan_out_fan_in(300), 0.02, 10),
    ]
    header = f"{'shape':<22} {'nodes':>6} {'par':>4} {'wall s':>8} {'ideal s':>8} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for shape in shapes:
        nodes = len(shape.deps)
        ideal = max(
            _critical_path(shape.deps) * shape.seconds_per_node,
            nodes * shape.seconds_per_node / shape.parallelism,
        )
        wall = _timed_walk(shape.deps, _sleeper(shape.seconds_per_node), shape.parallelism)
        print(
            f"{shape.name:<22} {nodes:>6} {shape.parallelism:>4} {wall:>8.3f} {ideal:>8.3f} {wall / ideal:>6.2f}"
        )


def _overhead_table() -> None:
    shapes = {
        "10,000 independent": _independent(10_000),
        "100 chains of 100": _chains(100, 100),
        "100 diamonds (1+98+1)": _diamonds(100, 98),
        "fan-out/fan-in 9,998": _fan_out_fan_in(9_998),
    }
    header = f"{'trivial nodes':<22} {'nodes':>6} {'par':>4} {'wall s':>8} {'us/node':>8}"
    print(header)
    print("-" * len(header))
    for name, deps in shapes.items():
        wall = _timed_walk(deps, _nothing, 10)
        print(f"{name:<22} {len(deps):>6} {10:>4} {wall:>8.3f} {wall / len(deps) * 1e6:>8.1f}")


def main() -> int:
    _sleep_table()
    print()
    _overhead_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
