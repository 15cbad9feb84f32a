"""``ctl plan`` (a refresh of every object) with the native aws adapters against moto, one checkout
against another: what reading back the attributes the provider records costs.

The native adapters record what hashicorp/aws records, and read back on refresh what the provider
reads back (a bucket's ACL, versioning and policy; a role's inline and managed policies …): more
requests per object than when they recorded less. This measures that: ``--count`` groups of a bucket,
an object, a queue, a topic, a DynamoDB table and an IAM role with an inline policy are applied,
natively, by each checkout (``--tree DIR``, run with ``PYTHONPATH=DIR``) under names of its own on one
moto server; then each plans its own state ``--runs`` times (no change), the checkouts taking turns.

Run: ``python bench/aws_native_refresh.py --tree BEFORE --tree AFTER [--count 20] [--runs 5]``.
Plain text on stdout; exit status 0 whatever the numbers, 1 when a step fails (its output printed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.real_providers.aws_on_moto import AWS_ON_MOTO
from tests.servers import MotoServer

GROUP = r'''
resource "aws_s3_bucket" "b{i}" {{
  bucket = "bench-{p}-{i}"
  tags   = {{ n = "{i}" }}
}}

resource "aws_s3_object" "o{i}" {{
  bucket  = aws_s3_bucket.b{i}.id
  key     = "k{i}.txt"
  content = "object {i}\n"
}}

resource "aws_sqs_queue" "q{i}" {{
  name = "bench-{p}-{i}"
}}

resource "aws_sns_topic" "t{i}" {{
  name = "bench-{p}-{i}"
}}

resource "aws_dynamodb_table" "d{i}" {{
  name         = "bench-{p}-{i}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {{
    name = "id"
    type = "S"
  }}
}}

resource "aws_iam_role" "r{i}" {{
  name               = "bench-{p}-{i}"
  assume_role_policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow",
    Principal = {{ Service = "ec2.amazonaws.com" }}, Action = "sts:AssumeRole" }}] }})
}}

resource "aws_iam_role_policy" "p{i}" {{
  name   = "read"
  role   = aws_iam_role.r{i}.id
  policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow",
    Action = ["s3:GetObject"], Resource = "*" }}] }})
}}
'''


def ctl(tree: Path, workdir: Path, *args: str) -> float:
    """Run ctl from ``tree``; its wall seconds."""
    env = {**os.environ, "PYTHONPATH": str(tree), "NO_COLOR": "1"}
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "ctl"), *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - started
    if done.returncode not in (0, 2):
        print(f"ctl {' '.join(args)} from {tree} exited {done.returncode}:\n{done.stdout}{done.stderr}")
        raise SystemExit(1)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path, required=True)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    moto = MotoServer()
    moto.start()
    root = Path(tempfile.mkdtemp(prefix="aws-native-refresh-"))
    try:
        dirs = []
        for n, tree in enumerate(args.tree):
            work = root / f"tree{n}"
            work.mkdir()
            (work / "main.tf").write_text(AWS_ON_MOTO + "".join(GROUP.format(p=n, i=i) for i in range(args.count)))
            (work / "terraform.tfvars").write_text(f'moto = "{moto.url}"\n')
            ctl(tree, work, "init", "-native=true")
            ctl(tree, work, "apply", "--auto-approve")
            dirs.append(work)
        times: dict[int, list[float]] = {n: [] for n in range(len(dirs))}
        for run in range(args.runs):
            order = range(len(dirs)) if run % 2 == 0 else reversed(range(len(dirs)))
            for n in order:
                times[n].append(ctl(args.tree[n], dirs[n], "plan", "--detailed-exitcode"))
        print(f"{args.count * 7} resources ({args.count} groups), {args.runs} plans each, one moto server")
        for n, tree in enumerate(args.tree):
            print(f"  {tree!s:40} plan median {statistics.median(times[n]):6.2f} s  "
                  f"(min {min(times[n]):.2f}, max {max(times[n]):.2f})")
    finally:
        moto.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
