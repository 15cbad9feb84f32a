"""How close ``ctl apply`` gets to the best possible wall time on DAGs of ``time_sleep`` resources.

Each shape is a configuration of ``time_sleep`` resources (the sleep stands in for a cloud call),
with dependencies through ``triggers`` references (chains) and ``depends_on`` (diamonds, fans),
applied from an empty state by the real ``ctl apply --auto-approve --parallelism P``. The ideal is
the lower bound no schedule can beat: max(critical path, total work / P).

How the apply phase is isolated: the apply runs with ``PYTHONUNBUFFERED=1`` and its standard output
is read line by line as it is written, each line stamped on arrival. The measured window runs from
the first ``...: Creating...`` line (printed just before the first operation starts) to the last
``...: Creation complete`` line (printed as the last one is recorded), so it excludes process start,
configuration loading and planning, but includes everything the engine does between operations
(journal appends, state bookkeeping, scheduling). As a cross-check, ``apply - plan`` subtracts
the wall time of a ``ctl plan`` run on the same configuration from the whole apply run; it also
contains building the apply graph and writing the final state.

"best" is the makespan of a zero-overhead greedy schedule of the same DAG (start every ready node
at once, in address order, at most P running): where it exceeds the ideal, no scheduler of this
kind could reach the bound, and ``wall / best`` shows the engine's own overhead.

Run: ``python bench/apply_parallel.py [--repeat N] [--json]`` (exit status 0 always).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.15

Deps = dict[str, list[str]]


@dataclass(frozen=True)
class Shape:
    name: str
    deps: Deps  # resource name -> names it depends on
    seconds: float  # create_duration of every resource
    parallelism: int
    via_triggers: bool = False  # dependencies as ``triggers`` references instead of ``depends_on``


def _independent(count: int) -> Deps:
    return {f"n{i:03}": [] for i in range(count)}


def _chains(chains: int, length: int) -> Deps:
    return {
        f"c{c:02}_{s:02}": [f"c{c:02}_{s - 1:02}"] if s else [] for c in range(chains) for s in range(length)
    }


def _diamonds(count: int, width: int) -> Deps:
    deps: Deps = {}
    for d in range(count):
        top, bottom = f"d{d:02}_a_top", f"d{d:02}_z_bottom"
        middles = [f"d{d:02}_m{m:02}" for m in range(width)]
        deps[top] = []
        deps.update({m: [top] for m in middles})
        deps[bottom] = middles
    return deps


def _stacked_diamonds(layers: int, width: int) -> Deps:
    deps: Deps = {"layer00": []}
    for d in range(layers):
        middles = [f"layer{d:02}_m{m:02}" for m in range(width)]
        deps.update({m: [f"layer{d:02}"] for m in middles})
        deps[f"layer{d + 1:02}"] = middles
    return deps


def _fan_out_fan_in(width: int) -> Deps:
    leaves = [f"leaf{i:03}" for i in range(width)]
    return {"a_root": [], **{leaf: ["a_root"] for leaf in leaves}, "z_sink": leaves}


SHAPES = (
    Shape("independent 100x0.2s", _independent(100), 0.2, 10),
    Shape("chains 5x4x0.5s", _chains(5, 4), 0.5, 10, via_triggers=True),
    Shape("diamonds 3x(1+3+1)x0.5s", _diamonds(3, 3), 0.5, 10),
    Shape("stacked diamonds 3x10", _stacked_diamonds(3, 10), 0.2, 10),
    Shape("fan-out/in 1+20+1", _fan_out_fan_in(20), 0.3, 20),
    Shape("fan-out/in 1+40+1 (P10)", _fan_out_fan_in(40), 0.2, 10),
)

# ---- configuration and bounds --------------------------------------------------------------


def generate(directory: Path, shape: Shape) -> None:
    directory.mkdir(parents=True)
    blocks = []
    for name, deps in shape.deps.items():
        lines = [f'resource "time_sleep" "{name}" {{', f'  create_duration = "{shape.seconds:g}s"']
        if deps and shape.via_triggers:
            items = ", ".join(f"{d} = time_sleep.{d}.id" for d in deps)
            lines.append(f"  triggers = {{ {items} }}")
        elif deps:
            lines.append(f"  depends_on = [{', '.join(f'time_sleep.{d}' for d in deps)}]")
        lines.append("}")
        blocks.append("\n".join(lines))
    (directory / "main.tf").write_text("\n\n".join(blocks) + "\n")


def critical_path(deps: Deps) -> int:
    """Nodes on the longest dependency chain."""
    depth: dict[str, int] = {}

    def visit(node: str) -> int:
        if node not in depth:
            depth[node] = 1 + max((visit(d) for d in deps[node]), default=0)
        return depth[node]

    return max(visit(n) for n in deps)


def best_schedule(deps: Deps, seconds: float, parallelism: int) -> float:
    """Makespan of a zero-overhead greedy schedule: ready nodes start at once, in name order."""
    dependents: dict[str, list[str]] = {n: [] for n in deps}
    waiting = {n: len(d) for n, d in deps.items()}
    for n, ds in deps.items():
        for d in ds:
            dependents[d].append(n)
    ready = sorted(n for n, w in waiting.items() if w == 0)
    running: list[tuple[float, str]] = []
    now = 0.0
    while ready or running:
        while ready and len(running) < parallelism:
            heapq.heappush(running, (now + seconds, ready.pop(0)))
        now, done = heapq.heappop(running)
        for n in dependents[done]:
            waiting[n] -= 1
            if waiting[n] == 0:
                ready.append(n)
        ready.sort()
    return now


# ---- measuring -----------------------------------------------------------------------------


def _ctl_command() -> list[str]:
    ctl = Path(sys.executable).parent / "ctl"
    if ctl.exists():
        return [str(ctl)]
    found = shutil.which("ctl")
    return [found] if found else [sys.executable, "-m", "cli.main"]


def _timed_lines(cmd: list[str]) -> tuple[float, int, list[tuple[float, str]]]:
    """Run ``cmd``; its wall time, exit status, and every stdout line with its arrival time."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    lines = [(time.perf_counter() - t0, raw.decode(errors="replace").rstrip("\n")) for raw in proc.stdout]
    code = proc.wait()
    return time.perf_counter() - t0, code, lines


def measure(shape: Shape, base: Path, repeat: int) -> dict[str, Any]:
    nodes = len(shape.deps)
    cp = critical_path(shape.deps) * shape.seconds
    work = nodes * shape.seconds
    ideal = max(cp, work / shape.parallelism)
    best = best_schedule(shape.deps, shape.seconds, shape.parallelism)
    row: dict[str, Any] = {
        "shape": shape.name,
        "nodes": nodes,
        "parallelism": shape.parallelism,
        "critical_path_s": cp,
        "work_s": work,
        "ideal_s": ideal,
        "best_s": best,
    }
    window = apply_minus_plan = float("inf")
    for attempt in range(repeat):
        directory = base / f"{shape.name.split()[0]}-{len(shape.deps)}-{attempt}"
        generate(directory, shape)
        ctl = [*_ctl_command(), "-C", str(directory)]
        plan_wall, plan_code, _ = _timed_lines([*ctl, "plan", "--parallelism", str(shape.parallelism)])
        wall, code, lines = _timed_lines(
            [*ctl, "apply", "--auto-approve", "--parallelism", str(shape.parallelism)]
        )
        starts = [t for t, line in lines if line.endswith(": Creating...")]
        ends = [t for t, line in lines if ": Creation complete" in line]
        row.update(exit=code, plan_exit=plan_code, completed=len(ends))
        if code != 0 or len(ends) != nodes or not starts:
            row["error"] = [line for _, line in lines[-3:]]
            break
        window = min(window, max(ends) - min(starts))
        apply_minus_plan = min(apply_minus_plan, wall - plan_wall)
        shutil.rmtree(directory, ignore_errors=True)
    if window != float("inf"):
        row.update(
            window_s=window,
            apply_minus_plan_s=apply_minus_plan,
            ratio=window / ideal,
            ratio_best=window / best,
            ok=window / ideal <= TARGET_RATIO,
        )
    return row


# ---- report --------------------------------------------------------------------------------


def _table(rows: list[dict[str, Any]]) -> str:
    head = [
        "shape",
        "nodes",
        "P",
        "crit s",
        "work/P s",
        "ideal s",
        "best s",
        "apply s",
        "apply-plan s",
        "ratio",
        "vs best",
        "target",
    ]
    body = []
    for r in rows:
        ok = "window_s" in r
        body.append(
            [
                r["shape"],
                str(r["nodes"]),
                str(r["parallelism"]),
                f"{r['critical_path_s']:.2f}",
                f"{r['work_s'] / r['parallelism']:.2f}",
                f"{r['ideal_s']:.2f}",
                f"{r['best_s']:.2f}",
                f"{r['window_s']:.2f}" if ok else "failed",
                f"{r['apply_minus_plan_s']:.2f}" if ok else "-",
                f"{r['ratio']:.2f}" if ok else "-",
                f"{r['ratio_best']:.2f}" if ok else "-",
                ("ok" if r["ok"] else "MISSED") if ok else "-",
            ]
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = [
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True))
        )
    ]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(b, widths, strict=True))
        )
        for b in body
    ]
    return "\n".join(lines)


def load_note() -> str | None:
    """A warning when other processes compete for the CPUs: wall times are then inflated."""
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if load <= cores:
        return None
    return f"note: load average {load:.1f} on {cores} cores while measuring: wall times are inflated"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="runs per shape; the fastest counts")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="ctl-apply-parallel-"))
    try:
        rows = [measure(shape, base, max(1, args.repeat)) for shape in SHAPES]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(
            json.dumps(
                {"results": rows, "target_ratio": TARGET_RATIO, "load_average": os.getloadavg()[0]}, indent=2
            )
        )
        return 0
    print(_table(rows))
    for r in rows:
        if "error" in r:
            print(
                f"{r['shape']}: apply exited {r['exit']} with {r['completed']}/{r['nodes']} "
                f"operations complete: {r['error']}"
            )
    print(
        "apply s = first 'Creating...' to last 'Creation complete' line (read live from the apply); "
        "apply-plan s = whole apply run minus a plan run;"
    )
    print(
        f"ideal = max(critical path, work / P); best = zero-overhead greedy schedule; "
        f"target: apply s <= {TARGET_RATIO}x ideal"
    )
    note = load_note()
    if note:
        print(note)
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # a benchmark reports, it does not fail the caller
        print(f"apply_parallel: {type(err).__name__}: {err}", file=sys.stderr)
    sys.exit(0)
