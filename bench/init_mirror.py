"""``ctl init`` against ``terraform init`` from a local provider mirror, in one run.

Both tools install the same real providers from the packed mirror in ``../shared/providers`` (see its
README) into a configuration that requires them, once from nothing (a fresh checkout: no lock file,
nothing installed) and once again on top of that (a re-init: everything in place, the lock file
written). Each case runs ``--runs`` times in fresh processes; the median and the minimum wall
seconds are printed, the median CPU seconds (the tool and the providers it started: on a busy
machine the steadier figure), and ctl's median wall time over Terraform's.

Configurations (``--providers``):

* ``small``: random, null, local, time, archive and external, one resource or data source of each;
* ``aws``: the aws provider (a 110 MB zip, 490 MB unpacked), one S3 bucket;
* ``both``: the two above, one after the other (the default).

Run: ``python bench/init_mirror.py [--runs 5] [--providers small|aws|both] [--mirror DIR]
[--terraform PATH] [--ctl PATH]``. Plain text on stdout; exit status 0 whatever the numbers, 2 when
the mirror or a tool is missing. A run that fails prints its output and stops the benchmark, since
its time would mean nothing.
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MIRROR = ROOT.parent / "shared" / "providers"

SMALL = """\
terraform {
  required_providers {
    random   = { source = "hashicorp/random", version = "~> 3.0" }
    null     = { source = "hashicorp/null", version = ">= 3.0" }
    local    = { source = "hashicorp/local", version = "~> 2.9" }
    time     = { source = "hashicorp/time" }
    archive  = { source = "hashicorp/archive", version = ">= 2.0, < 3.0" }
    external = { source = "hashicorp/external", version = "~> 2" }
  }
}

resource "random_id" "server" {
  byte_length = 8
}

resource "null_resource" "hook" {
  triggers = { id = random_id.server.hex }
}

resource "local_file" "note" {
  filename = "${path.module}/note.txt"
  content  = random_id.server.hex
}

resource "time_static" "created" {}

data "archive_file" "bundle" {
  type        = "zip"
  source_file = local_file.note.filename
  output_path = "${path.module}/bundle.zip"
}

data "external" "facts" {
  program = ["sh", "-c", "echo '{}'"]
}
"""

AWS = """\
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.0" }
  }
}

provider "aws" {
  region = "us-east-1"
}

resource "aws_s3_bucket" "logs" {
  bucket = "init-bench-logs"
}
"""

CONFIGS = {"small": SMALL, "aws": AWS}


@dataclass(frozen=True)
class Tool:
    """How to run one tool's init in a configuration directory, and what it leaves behind there."""

    name: str
    args: list[str]
    leaves: tuple[str, ...]  # what a fresh checkout does not have

    def run(self, workdir: Path, env: dict[str, str]) -> tuple[float, float]:
        """(wall, CPU) seconds of one init; CPU counts the processes it waited for (providers)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(self.args, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.stdout.write(f"{self.name} init failed ({done.returncode}):\n{done.stdout}{done.stderr}\n")
            raise SystemExit(1)
        return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def clean(self, workdir: Path) -> None:
        for name in self.leaves:
            path = workdir / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()


def _tools(ctl: Path, terraform: Path, mirror: Path) -> list[Tool]:
    return [
        Tool("ctl", [str(ctl), "init", "-plugin-dir", str(mirror)],
             (".ctl", ".terraform.lock.hcl", "ctl.tfstate")),
        Tool("terraform", [str(terraform), "init", "-input=false", "-no-color", f"-plugin-dir={mirror}"],
             (".terraform", ".terraform.lock.hcl")),
    ]


def clean_env(home: Path) -> dict[str, str]:
    """No user configuration, no plugin cache, no update check, no data dir outside the configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "CTL_"))}
    env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    return env


Times = list[tuple[float, float]]


def _measure(tool: Tool, workdir: Path, env: dict[str, str], runs: int) -> tuple[Times, Times]:
    """(fresh, again) (wall, CPU) seconds: init from nothing, then init once more on what it left."""
    fresh: Times = []
    again: Times = []
    for _ in range(runs):
        tool.clean(workdir)
        fresh.append(tool.run(workdir, env))
        again.append(tool.run(workdir, env))
    tool.clean(workdir)
    return fresh, again


def line(label: str, times: Times, width: int = 18) -> str:
    """One case's medians and minimum, as every benchmark against Terraform prints them."""
    wall = [w for w, _ in times]
    cpu = statistics.median(c for _, c in times)
    return (f"  {label:<{width}} wall median {statistics.median(wall):6.2f} s  min {min(wall):6.2f} s"
            f"   cpu median {cpu:6.2f} s")


def add_tool_arguments(parser: argparse.ArgumentParser) -> None:
    """``--mirror``, ``--terraform`` and ``--ctl``, defaulting to the mirror beside the checkout and
    the tools beside the running Python."""
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--terraform", type=Path, default=Path(sys.executable).parent / "terraform")
    parser.add_argument("--ctl", type=Path, default=Path(sys.executable).parent / "ctl")


def missing_tool(args: argparse.Namespace) -> str | None:
    """What is missing of the mirror and the two tools, said as the benchmark prints it; None if nothing."""
    for what, path in (("provider mirror", args.mirror), ("terraform", args.terraform), ("ctl", args.ctl)):
        if not path.exists():
            return f"no {what} at {path}\n"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--providers", choices=("small", "aws", "both"), default="both")
    add_tool_arguments(parser)
    args = parser.parse_args()
    problem = missing_tool(args)
    if problem is not None:
        sys.stdout.write(problem)
        return 2
    names = ["small", "aws"] if args.providers == "both" else [args.providers]
    tools = _tools(args.ctl, args.terraform, args.mirror.resolve())
    load = os.getloadavg()[0]
    sys.stdout.write(f"init from {args.mirror.resolve()}, {args.runs} runs each, load average {load:.1f} "
                     f"on {os.cpu_count()} cores\n")
    with tempfile.TemporaryDirectory(prefix="init-bench-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        env = clean_env(home)
        for name in names:
            medians: dict[tuple[str, str], float] = {}
            sys.stdout.write(f"\n{name}:\n")
            for tool in tools:
                workdir = Path(scratch) / f"{name}-{tool.name}"
                workdir.mkdir()
                (workdir / "main.tf").write_text(CONFIGS[name])
                fresh, again = _measure(tool, workdir, env, args.runs)
                sys.stdout.write(line(f"{tool.name} fresh", fresh) + "\n")
                sys.stdout.write(line(f"{tool.name} again", again) + "\n")
                medians[(tool.name, "fresh")] = statistics.median(w for w, _ in fresh)
                medians[(tool.name, "again")] = statistics.median(w for w, _ in again)
            for case in ("fresh", "again"):
                ratio = medians[("ctl", case)] / medians[("terraform", case)]
                sys.stdout.write(f"  ctl / terraform, {case}, median wall: {ratio:.2f}\n")
    if load > (os.cpu_count() or 1):
        sys.stdout.write("\nthe load average exceeded the number of cores: wall times are inflated\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
