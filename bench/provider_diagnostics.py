"""``ctl plan`` against a provider that answers one call with N warnings (or errors), each shown.

The misbehaving test provider (tests/providers/misbehave, built with Go on first use) answers
ValidateResourceConfig of one resource with ``--count`` warnings; ``ctl plan`` shows every one, with its
source line, on stderr, written to a file as a CI log would be. Measured per count, over ``--runs``
fresh processes: wall seconds (minimum and median) and CPU seconds (user + system) of ctl and the
provider process it starts and reaps, and how many were shown.

Run: ``python bench/provider_diagnostics.py [--counts 10000,100000] [--kind warnings|diagnostics]
[--runs 3] [--ctl PATH]``. Plain text on stdout.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="10000,100000")
    parser.add_argument("--kind", choices=("warnings", "diagnostics"), default="warnings")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ctl", default=shutil.which("ctl") or "ctl")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from tests.plugin.misbehave import HEADER, misbehave_dir

    plugins = misbehave_dir()
    env = {**os.environ, "CTL_NO_COLOR": "1", "CHECKPOINT_DISABLE": "1"}
    with tempfile.TemporaryDirectory(prefix="ctl-bench-diagnostics-") as tmp:
        work = Path(tmp)
        main_tf = work / "main.tf"
        main_tf.write_text(HEADER)
        subprocess.run([args.ctl, "init", "-plugin-dir", str(plugins)], cwd=work, env=env, check=True,
                       capture_output=True)
        print(f"ctl plan, one resource whose provider answers with N {args.kind}; {args.runs} runs each")
        print(f"{'N':>8} {'wall min s':>11} {'wall median s':>14} {'CPU median s':>13} {'shown':>8}")
        for count in (int(c) for c in args.counts.split(",")):
            main_tf.write_text(HEADER + f'resource "misbehave_thing" "a" {{\n  name  = "a"\n'
                                        f'  trick = "{args.kind}:{count}"\n}}\n')
            walls, cpus, shown = [], [], 0
            for _ in range(args.runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                began = time.perf_counter()
                with (work / "stderr.log").open("w") as log:
                    subprocess.run([args.ctl, "plan"], cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=log)
                walls.append(time.perf_counter() - began)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                label = "Warning:" if args.kind == "warnings" else "Error:"
                shown = sum(1 for line in (work / "stderr.log").open() if line.startswith(label))
            print(f"{count:>8,} {min(walls):>11.1f} {statistics.median(walls):>14.1f} "
                  f"{statistics.median(cpus):>13.1f} {shown:>8,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
