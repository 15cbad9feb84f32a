"""The aws provider's connection race, counted under ctl and under Terraform 1.0.3 at the same time.

HashiCorp's aws provider 5.45.0 now and then fails one call with ``read tcp …: use of closed network
connection``: its AWS SDK (aws-sdk-go-v2 1.26.1) does not retry a call whose connection was closed
while the answer's body was read (aws/aws-sdk-go-v2#2737, fixed in 1.33). ``aws_moto.py`` met it more
often under ctl than under Terraform, but it runs every step of one tool and then every step of the
other, minutes apart on a shared machine whose load swings from 2 to 30: the two tools did not meet the
same conditions. This benchmark does nothing but count the race, with both tools running at once:

* the configuration is small and busy: ``--roles`` IAM roles, each with a managed policy and their
  attachment, and ``--buckets`` S3 buckets (the provider reads a bucket back with a dozen calls);
* each tool has a directory of its own and a moto server of its own (``tests/servers.py``
  ``MotoServer``), reached either directly (``--front direct``: moto's server answers every request
  with ``Connection: close``, as the tests meet it) or through ``aws_moto.py``'s timing proxy
  (``--front proxy``: connections kept alive between the provider and the proxy, as that benchmark
  meets it);
* ``--rounds`` times: ``apply -auto-approve`` then ``destroy -auto-approve``, in both tools at once
  (a thread each), so each step of one tool runs beside the same step of the other;
* a step that fails with the race is run again, as a user would (at most twice more), and counted.
  A create whose answer was lost leaves an object the next apply cannot create again (IAM answers
  409 ``EntityAlreadyExists``): that is counted apart, and the round stops there for that tool.

Printed: per tool, the steps run, the steps the race hit, the calls it hit (the SDK's operation
names), lost creates, and the wall seconds per step (median). Run::

    python bench/aws_race.py [--rounds 4] [--roles 20] [--buckets 15] [--front direct|proxy]

Exit status 0 whatever the counts, 2 when the mirror, a tool or moto is missing, 1 when a step fails
for another reason (its output is printed).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aws_moto import HEADER, PROVIDER_CONNECTION_RACE, TimingProxy, real_executable
from versus_terraform import clean_env, parse_tool_arguments

from tests.servers import MotoServer, ServerError

GROUP = r'''
resource "aws_iam_role" "r" {{
  count = {roles}
  name  = "race-role-${{count.index}}"
  assume_role_policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Principal = {{ Service = "ec2.amazonaws.com" }}, Action = "sts:AssumeRole" }}]
  }})
  tags = local.tags
}}

resource "aws_iam_policy" "p" {{
  count  = {roles}
  name   = "race-policy-${{count.index}}"
  policy = jsonencode({{ Version = "2012-10-17", Statement = [{{ Effect = "Allow", Action = ["s3:GetObject"], Resource = "*" }}] }})
}}

resource "aws_iam_role_policy_attachment" "a" {{
  count      = {roles}
  role       = aws_iam_role.r[count.index].name
  policy_arn = aws_iam_policy.p[count.index].arn
}}

resource "aws_s3_bucket" "b" {{
  count  = {buckets}
  bucket = "race-bucket-${{count.index}}"
  tags   = local.tags
}}
'''

ALREADY_EXISTS = ("EntityAlreadyExists", "already exists")
_OPERATION = re.compile(r"operation error ([\w ]+): (\w+), [^\n]*" + re.escape(PROVIDER_CONNECTION_RACE))


def configuration(roles: int, buckets: int) -> str:
    return HEADER + GROUP.format(roles=roles, buckets=buckets)


def commands(tool: str, path: Path, mirror: Path) -> dict[str, list[str]]:
    p = str(path)
    if tool == "ctl":
        return {"init": [p, "init", "-plugin-dir", str(mirror)], "apply": [p, "apply", "--auto-approve"],
                "destroy": [p, "destroy", "--auto-approve"]}
    common = ["-input=false", "-no-color"]
    return {"init": [p, "init", *common, f"-plugin-dir={mirror}"], "apply": [p, "apply", *common, "-auto-approve"],
            "destroy": [p, "destroy", *common, "-auto-approve"]}


@dataclass
class Tally:
    """One tool's counts."""

    steps: int = 0  # steps run (a step run again after the race counts once)
    hit: int = 0  # steps the race hit at least once
    attempts: int = 0  # commands run, every attempt counted
    calls: Counter[str] = field(default_factory=Counter)  # "IAM GetRole": times the race hit it
    lost_creates: int = 0
    walls: list[float] = field(default_factory=list)
    failure: str = ""


def run(argv: list[str], workdir: Path, env: dict[str, str]) -> tuple[int, str, float]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - started


def one_tool(tool: str, argv: dict[str, list[str]], workdir: Path, env: dict[str, str], rounds: int,
             tally: Tally, barrier: threading.Barrier) -> None:
    """Every round's apply and destroy, each step begun together with the other tool's."""
    code, output, _ = run(argv["init"], workdir, env)
    if code != 0:
        tally.failure = f"{tool} init failed ({code}):\n{output}"
    for _ in range(rounds):
        for name in ("apply", "destroy"):
            barrier.wait()
            if tally.failure:
                continue
            tally.steps += 1
            hit = False
            for _attempt in range(3):
                code, output, wall = run(argv[name], workdir, env)
                tally.attempts += 1
                tally.walls.append(wall)
                races = _OPERATION.findall(output)
                tally.calls.update(f"{service} {operation}" for service, operation in races)
                if races or PROVIDER_CONNECTION_RACE in output:
                    hit = True
                if code == 0:
                    break
                if any(marker in output for marker in ALREADY_EXISTS):
                    tally.lost_creates += 1
                    tally.failure = f"{tool} {name}: a create whose answer the race lost:\n{output}"
                    break
                if PROVIDER_CONNECTION_RACE not in output:
                    tally.failure = f"{tool} {name} failed ({code}):\n{output}"
                    break
            tally.hit += hit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--roles", type=int, default=20)
    parser.add_argument("--buckets", type=int, default=15)
    parser.add_argument("--front", choices=("direct", "proxy"), default="direct")
    args = parse_tool_arguments(parser, provider="hashicorp/aws")
    if args is None:
        return 2
    mirror = args.mirror.resolve()
    load = os.getloadavg()[0]
    sys.stdout.write(f"{args.roles} IAM roles, policies and attachments and {args.buckets} buckets, "
                     f"{args.rounds} rounds of apply and destroy, both tools at once, moto {args.front}, "
                     f"load average {load:.1f} on {os.cpu_count()} cores\n")
    tools = {"ctl": args.ctl, "terraform": real_executable(args.terraform)}
    tallies = {tool: Tally() for tool in tools}
    servers: list[MotoServer] = []
    proxies: list[TimingProxy] = []
    try:
        with tempfile.TemporaryDirectory(prefix="aws-race-bench-") as scratch:
            barrier = threading.Barrier(len(tools))
            threads = []
            for tool, path in tools.items():
                moto = MotoServer()
                moto.start()
                servers.append(moto)
                url = moto.url
                if args.front == "proxy":
                    proxies.append(TimingProxy(moto))
                    url = proxies[-1].url
                workdir = Path(scratch) / tool
                (workdir / "home").mkdir(parents=True)
                (workdir / "main.tf").write_text(configuration(args.roles, args.buckets))
                env = clean_env(workdir / "home")
                env["TF_VAR_moto"] = url
                threads.append(threading.Thread(target=one_tool, args=(
                    tool, commands(tool, path, mirror), workdir, env, args.rounds, tallies[tool], barrier)))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    except ServerError as exc:
        sys.stdout.write(f"moto could not be started: {exc}\n")
        return 2
    finally:
        for proxy in proxies:
            proxy.close()
        for moto in servers:
            moto.stop()
    for tool, tally in tallies.items():
        calls = ", ".join(f"{name} {n}" for name, n in tally.calls.most_common()) or "-"
        wall = statistics.median(tally.walls) if tally.walls else 0.0
        sys.stdout.write(f"  {tool:<9} steps {tally.steps:3d}  hit by the race {tally.hit:3d}  "
                         f"commands {tally.attempts:3d}  lost creates {tally.lost_creates}  "
                         f"median wall {wall:6.1f} s  calls: {calls}\n")
    failed = [t.failure for t in tallies.values() if t.failure and not t.lost_creates]
    for failure in failed:
        sys.stdout.write(failure + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
