"""What a ``ctl reconcile`` round costs against ``ctl plan`` and ``ctl apply``, and whether a loop's
memory stays flat over many rounds.

Generates N ``local_file`` resources (default 200 and 2,000) in a temporary directory and applies
them. Then, each command in a fresh process through the real ``ctl`` executable:

| column | what |
| --- | --- |
| plan s | ``ctl plan`` with nothing to change (refresh N objects, diff) |
| quiet round s | ``ctl reconcile --once`` with nothing to change: the read only |
| report round s | 1% of the files deleted, no ``unattended`` rule: the read, the changes reported |
| apply s | the same drift reverted by ``ctl apply --auto-approve`` |
| apply round s | the same drift reverted by ``ctl reconcile --once`` under a rule allowing it: the read, then the locked, targeted plan and apply |

Then one loop (``--every 0.2s``) runs ``--rounds`` rounds (default 30) on the smaller size, with
nothing to change, and its resident memory is read from ``/proc`` after the first, the middle and
the last round: a loop must not grow by a round's worth each time.

    python bench/reconcile_round.py
    python bench/reconcile_round.py --sizes 500 --rounds 50
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CTL = str(Path(sys.executable).with_name("ctl"))

RESOURCE = """resource "local_file" "f{i}" {{
  filename = "${{path.module}}/files/f{i}.txt"
  content  = "file {i}"
}}
"""
ALLOW = "unattended:\n  - name: files\n    addresses: ['local_file.*']\n    actions: [create]\n"


def _env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update({"NO_COLOR": "1", "CI": "true"})
    return env


def _timed(root: Path, *args: str, expect: tuple[int, ...] = (0,)) -> float:
    started = time.perf_counter()
    proc = subprocess.run([CTL, *args], cwd=root, env=_env(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode not in expect:
        raise SystemExit(f"ctl {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return seconds


def _drift(root: Path, n: int) -> None:
    for i in range(0, n, 100):  # 1% of the files, spread out
        (root / "files" / f"f{i}.txt").unlink()


def measure(n: int, base: Path) -> dict[str, float]:
    root = base / f"n{n}"
    root.mkdir()
    (root / "main.tf").write_text("".join(RESOURCE.format(i=i) for i in range(n)))
    _timed(root, "init")
    _timed(root, "apply", "--auto-approve")
    out = {"plan": _timed(root, "plan", "--detailed-exitcode"),
           "quiet round": _timed(root, "reconcile", "--once")}
    _drift(root, n)
    out["report round"] = _timed(root, "reconcile", "--once", expect=(2,))
    out["apply"] = _timed(root, "apply", "--auto-approve")
    _drift(root, n)
    (root / "policies").mkdir()
    (root / "policies" / "policy-set.yaml").write_text(ALLOW)
    out["apply round"] = _timed(root, "reconcile", "--once")
    return out


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def loop_memory(root: Path, rounds: int) -> list[tuple[int, float]]:
    proc = subprocess.Popen([CTL, "reconcile", "--every", "0.2s"], cwd=root, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    marks = {1, rounds // 2, rounds}
    seen: list[tuple[int, float]] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            number = json.loads(line)["round"]
            if number in marks:
                seen.append((number, _rss_mb(proc.pid)))
            if number >= rounds:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200,2000")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cols = ["plan", "quiet round", "report round", "apply", "apply round"]
    print(f"{'N':>6} " + " ".join(f"{c + ' s':>15}" for c in cols))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for n in sizes:
            row = measure(n, base)
            print(f"{n:>6} " + " ".join(f"{row[c]:>15.2f}" for c in cols), flush=True)
        small = base / f"n{sizes[0]}"
        (small / "policies" / "policy-set.yaml").unlink()
        print(f"\nloop of {args.rounds} rounds on N={sizes[0]}, nothing to change: resident memory")
        for number, mb in loop_memory(small, args.rounds):
            print(f"  after round {number:>4}: {mb:7.1f} MB")
    print(f"\nload average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
