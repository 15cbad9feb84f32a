"""Refresh at scale: N real objects on a moto server, at several parallelisms, then under throttling.

Creates one S3 bucket and N objects in it (default 2,000) with ``ctl apply`` through the native aws
adapter, then times a no-change ``ctl plan`` (which refreshes every object: one HeadObject and one
GetObject each) at ``-parallelism`` 1, 10 and 32. Then a fault-injecting proxy answers a burst of
the refresh's requests with 503 SlowDown, as S3 does under load, and the same plan runs with the
aws provider's ``standard`` retry mode (botocore's retries with backoff) and, with ``--adaptive``,
``adaptive`` (the same plus a client-side rate limiter shared by every thread). Each plan must
still find no changes. Needs moto (the test extra: ``make venv``).

Only GetObject is throttled: an S3 error to a HEAD has no body, so botocore cannot tell it is
throttling and charges its retry quota almost three times as much for it.

    python bench/refresh_scale.py              # N = 2000, 100 throttled, standard mode
    python bench/refresh_scale.py --n 500 --throttled 100 --adaptive
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CONFIG = """
provider "aws" {{
  region                      = "us-east-1"
  skip_credentials_validation = true
  s3_use_path_style           = true
  retry_mode                  = var.retry_mode
  max_retries                 = 8
  endpoints {{
    s3 = var.endpoint
  }}
}}

variable "endpoint" {{
  type = string
}}

variable "retry_mode" {{
  type    = string
  default = "standard"
}}

resource "aws_s3_bucket" "b" {{
  bucket = "ctl-refresh-scale"
}}

resource "aws_s3_object" "o" {{
  count   = {n}
  bucket  = aws_s3_bucket.b.bucket
  key     = "objects/${{count.index}}"
  content = "object ${{count.index}}"
}}
"""


def _ctl() -> str:
    beside = Path(sys.executable).parent / "ctl"
    return str(beside) if beside.exists() else "ctl"


def _timed(work: Path, env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([_ctl(), *args, "--no-builtin-policies", "-no-color"], cwd=work, env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or (args[0] == "plan" and "No changes." not in done.stdout):
        raise SystemExit(f"ctl {' '.join(args)} failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="objects to create and refresh")
    parser.add_argument("--throttled", type=int, default=100, help="refresh requests answered 503 SlowDown")
    parser.add_argument("--adaptive", action="store_true",
                        help="also run the throttled refresh in adaptive mode (slow: see bench/README.md)")
    options = parser.parse_args()
    from tests.fault_proxy import FaultProxy
    from tests.servers import MotoServer

    n = options.n
    with MotoServer() as server, FaultProxy(server.url) as proxy, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "main.tf").write_text(CONFIG.format(n=n))
        env = {**os.environ, **server.env, "CI": "true", "TF_VAR_endpoint": server.url}
        print(f"{n} S3 objects on moto                            seconds   ms/object")
        created = _timed(work, env, "apply", "--auto-approve")
        print(f"create (apply, parallelism 10)                  {created:8.2f}   {created / n * 1000:8.2f}")
        for parallelism in (1, 10, 32):
            took = _timed(work, env, "plan", f"-parallelism={parallelism}")
            print(f"refresh, no changes, parallelism {parallelism:<2}             {took:8.2f}   {took / n * 1000:8.2f}")
        throttled = {**env, "TF_VAR_endpoint": proxy.url}
        for mode in ("standard", "adaptive") if options.adaptive else ("standard",):
            proxy.arm("status", times=options.throttled, method="GET", path=r"/objects/", status=503,
                      retry_after=None)
            before = len(proxy.faulted("status"))
            took = _timed(work, throttled, "plan", "-parallelism=32", "-var", f"retry_mode={mode}")
            hit = len(proxy.faulted("status")) - before
            print(f"refresh, {hit} requests throttled, {mode:<8}, par. 32 {took:8.2f}   {took / n * 1000:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
