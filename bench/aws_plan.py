"""``plan`` alone over HashiCorp's aws provider against moto: ctl's own peak memory and CPU against Terraform 1.0.3.

The configuration and the measuring are ``aws_moto.py``'s (its generated configuration of ``--count``
resources, 100 by default; the tool's own process polled for ``VmHWM`` and CPU, Terraform's copy of
itself counted as its own), without the apply, re-plan and destroy that take that benchmark minutes:
each tool is initialized once in a directory of its own (ctl with the aws plugin, its schema then
cached: the entry's size and the cost of decoding it are printed), then plans the configuration on an empty state, ``--runs`` times, the tools taking turns so
that a drift of the shared machine's speed hits both alike. Two plans per turn: ``plan`` (printed
only) and ``plan -out`` (also saved, which keeps more of the configuration for the plan file).

``--tree DIR`` runs ctl from another checkout of the code (``PYTHONPATH``); given more than once,
each checkout's ctl is a tool of its own (its own directory and init), all taking turns with
Terraform, which is how a change is measured before and after in one run. ``--where`` profiles one
``ctl plan`` of the last checkout in process with ``tracemalloc`` and prints the allocation sites alive at its highest traced total, with
the project's frames of each (an aid to finding the next thing to cut, not a figure to compare:
tracing makes the run several times slower and counts only Python's allocations).

Run: ``python bench/aws_plan.py [--count 100] [--runs 3] [--tree DIR ...] [--no-terraform] [--where]``.
Plain text on stdout; exit status 0 whatever the numbers, 2 when the mirror, a tool or moto is
missing, 1 when a step fails (its output is printed).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aws_moto import Run, configuration, real_executable, run_command
from versus_terraform import clean_env, parse_tool_arguments

from tests.servers import MotoServer, ServerError

VARIANTS = ("plan", "plan -out")

# Run by ``--where`` in a fresh interpreter under ``-X tracemalloc=FRAMES``, in the ctl directory:
# one ``ctl plan`` in process while a thread snapshots the traced allocations each time their total
# has grown by a twentieth (and at least 8 MB) since the last snapshot, so the last snapshot is within
# that of the peak (a snapshot of a million blocks takes seconds: more of them would be the run).
PROFILE = r'''
import sys, threading, time, tracemalloc
from cli.main import run

PACKAGES = ("engine/", "adapters/", "backends/", "policies/", "vocab/", "cli/")
best = [0, None]
done = threading.Event()


def watch():
    while not done.wait(0.05):
        current, _ = tracemalloc.get_traced_memory()
        if current > best[0] + max(best[0] / 20, 8 << 20):
            best[0], best[1] = current, tracemalloc.take_snapshot()


watcher = threading.Thread(target=watch, daemon=True)
watcher.start()
try:
    run(["plan"])
except SystemExit:
    pass
done.set()
watcher.join()
_, peak = tracemalloc.get_traced_memory()
snapshot = best[1].filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
stats = snapshot.statistics("traceback")
total = sum(s.size for s in stats)
print(f"traced at the last snapshot: {total / 2**20:.1f} MB in {sum(s.count for s in stats):,} blocks; "
      f"the traced peak: {peak / 2**20:.1f} MB")


def where(tb):
    """The innermost frame, then the project's frames outward (at most five)."""
    frames = list(tb)[::-1]
    inner = frames[0]
    own = [f for f in frames if any(p in f.filename for p in PACKAGES)][:5]
    shown = [f"{inner.filename.rsplit('/', 2)[-1]}:{inner.lineno}"]
    shown += [f"{f.filename.split('/wt-')[-1].split('/', 1)[-1]}:{f.lineno}" for f in own if f is not inner]
    return " <- ".join(shown)


for s in stats[:int(sys.argv[1])]:
    print(f"{s.size / 2**20:8.1f} MB {s.count:>9,}  {where(s.traceback)}")
'''


def _tree_env(env: dict[str, str], tree: Path | None) -> dict[str, str]:
    if tree is None:
        return env
    return {**env, "PYTHONPATH": str(tree.resolve())}


def _is_ctl(tool: str) -> bool:
    return tool.startswith("ctl")


def _run(argv: list[str], workdir: Path, env: dict[str, str], *, reexecs: bool) -> Run:
    run = run_command(argv, workdir, env, reexecs=reexecs)
    if run.code != 0:
        sys.stdout.write(f"{' '.join(argv)} failed ({run.code}) in {workdir}:\n{run.output}\n")
        raise SystemExit(1)
    return run


def commands(tool: str, path: Path, mirror: Path) -> tuple[list[str], dict[str, list[str]]]:
    p = str(path)
    if _is_ctl(tool):
        return [p, "init", "-plugin-dir", str(mirror)], {"plan": [p, "plan"],
                                                         "plan -out": [p, "plan", "--out", "tfplan"]}
    common = ["-input=false", "-no-color"]
    return ([p, "init", *common, f"-plugin-dir={mirror}"],
            {"plan": [p, "plan", *common], "plan -out": [p, "plan", *common, "-out=tfplan"]})


def report(results: dict[str, dict[str, list[Run]]]) -> None:
    sys.stdout.write(f"\n  {'tool':<10} {'command':<10} {'wall s':>7} {'own cpu s':>9} {'min cpu s':>9} "
                     f"{'own peak MB':>11} {'max peak MB':>11}\n")
    for tool, variants in results.items():
        for variant, runs in variants.items():
            sys.stdout.write(
                f"  {tool:<10} {variant:<10} {statistics.median(r.wall for r in runs):7.2f} "
                f"{statistics.median(r.own_cpu for r in runs):9.2f} {min(r.own_cpu for r in runs):9.2f} "
                f"{statistics.median(r.peak_mb for r in runs):11.0f} {max(r.peak_mb for r in runs):11.0f}\n")
    if "terraform" not in results:
        return
    sys.stdout.write("\n")
    for tool in (t for t in results if _is_ctl(t)):
        for variant in VARIANTS:
            ours, theirs = results[tool][variant], results["terraform"][variant]
            peak = statistics.median(r.peak_mb for r in ours) / statistics.median(r.peak_mb for r in theirs)
            cpu = statistics.median(r.own_cpu for r in ours) / statistics.median(r.own_cpu for r in theirs)
            sys.stdout.write(f"  {tool} / terraform, {variant:<10}: own peak {peak:5.2f} "
                             f"({'no larger' if peak <= 1 else 'LARGER'}), own cpu {cpu:5.2f}\n")


def entry_figures(workdir: Path) -> None:
    """The schema cache entry ctl's init left: its size, and what decoding it costs (CPU, objects held)."""
    for entry in sorted((workdir / ".ctl" / "plugins" / "schemas").glob("*.json")):
        text = entry.read_text()
        tracemalloc.start()
        gc.disable()  # as ctl decodes it: its commands pause the collector while they build
        started = time.process_time()
        doc = json.loads(text)
        cpu = time.process_time() - started
        gc.enable()
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sys.stdout.write(f"  schema cache entry {entry.name[:12]}…: format {doc.get('format')}, "
                         f"{len(text) / 2**20:.1f} MB; decoding it: {cpu:.3f} s CPU, {held / 2**20:.1f} MB held\n")
        del doc


def profile(workdir: Path, env: dict[str, str], frames: int, top: int) -> None:
    sys.stdout.write(f"\nwhere one `ctl plan` holds its memory (tracemalloc, {frames} frames):\n")
    done = subprocess.run([sys.executable, "-X", f"tracemalloc={frames}", "-c", PROFILE, str(top)], cwd=workdir,
                          env={**env, "NO_COLOR": "1"}, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    start = next((i for i, text in enumerate(lines) if text.startswith("traced at the last snapshot")), None)
    if done.returncode != 0 or start is None:
        sys.stdout.write(f"the profile failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n")
        return
    sys.stdout.write("\n".join(lines[start:]) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="run ctl from this checkout (PYTHONPATH); more than once: one ctl per checkout")
    parser.add_argument("--no-terraform", action="store_true")
    parser.add_argument("--where", action="store_true", help="profile one ctl plan with tracemalloc")
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--top", type=int, default=25)
    args = parse_tool_arguments(parser, provider="hashicorp/aws")
    if args is None:
        return 2
    mirror = args.mirror.resolve()
    text, managed = configuration(args.count)
    trees: list[Path] = list(args.tree)
    labels: dict[str, Path | None] = {"ctl": None} if not trees else {
        ("ctl" if len(trees) == 1 else f"ctl@{tree.resolve().name}"): tree for tree in trees}
    tools: dict[str, Path] = dict.fromkeys(labels, args.ctl)
    if not args.no_terraform:
        tools["terraform"] = real_executable(args.terraform)
    load = os.getloadavg()[0]
    sys.stdout.write(f"plan of {managed} aws resources (empty state), the real aws provider against moto, "
                     f"{args.runs} run(s) each, ctl from {', '.join(str(t) for t in args.tree) or 'its install'}, "
                     f"load average {load:.1f} on {os.cpu_count()} cores\n")
    moto = MotoServer()
    try:
        moto.start()
    except ServerError as exc:
        sys.stdout.write(f"moto could not be started: {exc}\n")
        return 2
    results: dict[str, dict[str, list[Run]]] = {tool: {v: [] for v in VARIANTS} for tool in tools}
    try:
        with tempfile.TemporaryDirectory(prefix="aws-plan-bench-") as scratch:
            home = Path(scratch) / "home"
            home.mkdir()
            env = clean_env(home)
            env["TF_VAR_moto"] = moto.url
            envs = {tool: _tree_env(env, labels[tool]) if _is_ctl(tool) else env for tool in tools}
            dirs: dict[str, Path] = {}
            plans: dict[str, dict[str, list[str]]] = {}
            for tool, path in tools.items():
                dirs[tool] = Path(scratch) / tool.replace("@", "-")
                dirs[tool].mkdir()
                (dirs[tool] / "main.tf").write_text(text)
                init, plans[tool] = commands(tool, path, mirror)
                done = _run(init, dirs[tool], envs[tool], reexecs=tool == "terraform")
                sys.stdout.write(f"  {tool} init: {done.wall:.1f} s\n")
                if _is_ctl(tool):
                    entry_figures(dirs[tool])
            for _ in range(args.runs):
                for tool in tools:
                    for variant in VARIANTS:
                        results[tool][variant].append(
                            _run(plans[tool][variant], dirs[tool], envs[tool], reexecs=tool == "terraform"))
            if args.runs > 0:  # --runs 0 --where: only the profile
                report(results)
            if args.where:
                last = list(labels)[-1]
                profile(dirs[last], envs[last], args.frames, args.top)
    finally:
        moto.stop()
    if load > (os.cpu_count() or 1):
        sys.stdout.write("\nthe load average exceeded the number of cores: wall times are inflated, "
                         "compare the CPU and memory columns\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
