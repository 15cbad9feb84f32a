"""``ctl init`` against ``terraform init`` from a local provider mirror, in one run.

Both tools install the same real providers from the packed mirror in ``../shared/providers`` (see its
README) into a configuration that requires them, once from nothing (a fresh checkout: no lock file,
nothing installed) and once again on top of that (a re-init: everything in place, the lock file
written), then the first ``plan`` on what they left (the first command that needs a provider's
schema: the two cases' sum is what a new checkout pays before its first plan). Each case runs
``--runs`` times in fresh processes; the median and the minimum wall
seconds are printed, the median CPU seconds (the tool and the providers it started: on a busy
machine the steadier figure), and ctl's median wall time over Terraform's.

Configurations (``--providers``):

* ``small``: random, null, local, time, archive and external, one resource or data source of each;
* ``aws``: the aws provider (a 110 MB zip, 490 MB unpacked), one S3 bucket (the provider configured
  to check no credentials and call no API, so ``plan`` needs no network);
* ``both``: the two above, one after the other (the default).

Run: ``python bench/init_mirror.py [--runs 5] [--providers small|aws|both] [--mirror DIR]
[--terraform PATH] [--ctl PATH]``. Plain text on stdout; exit status 0 whatever the numbers, 2 when
the mirror or a tool is missing. A run that fails prints its output and stops the benchmark, since
its time would mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import versus_terraform as vt

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
  region                      = "us-east-1"
  access_key                  = "bench"
  secret_key                  = "bench"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

resource "aws_s3_bucket" "logs" {
  bucket = "init-bench-logs"
}
"""

CONFIGS = {"small": SMALL, "aws": AWS}
CASES = ("fresh", "again", "first plan")


def _tools(ctl: Path, terraform: Path, mirror: Path) -> list[tuple[vt.Tool, vt.Tool]]:
    """Each tool's init, and its plan to run after it."""
    ctl_leaves = (".ctl", ".terraform.lock.hcl", "ctl.tfstate")
    tf_leaves = (".terraform", ".terraform.lock.hcl")
    return [
        (vt.Tool("ctl", [str(ctl), "init", "-plugin-dir", str(mirror)], ctl_leaves),
         vt.Tool("ctl", [str(ctl), "plan"], ctl_leaves)),
        (vt.Tool("terraform", [str(terraform), "init", "-input=false", "-no-color", f"-plugin-dir={mirror}"],
                 tf_leaves),
         vt.Tool("terraform", [str(terraform), "plan", "-input=false", "-no-color"], tf_leaves)),
    ]


def _measure(init: vt.Tool, plan: vt.Tool, workdir: Path, env: dict[str, str],
             runs: int) -> dict[str, vt.Times]:
    """(wall, CPU) seconds of each case: init from nothing, init once more on what it left, and the
    first plan after them (the first command that needs the providers' schemas)."""
    times: dict[str, vt.Times] = {case: [] for case in CASES}
    for _ in range(runs):
        init.clean(workdir)
        times["fresh"].append(init.run(workdir, env))
        times["again"].append(init.run(workdir, env))
        times["first plan"].append(plan.run(workdir, env))
    init.clean(workdir)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--providers", choices=("small", "aws", "both"), default="both")
    args = vt.parse_tool_arguments(parser)
    if args is None:
        return 2
    names = ["small", "aws"] if args.providers == "both" else [args.providers]
    tools = _tools(args.ctl, args.terraform, args.mirror.resolve())
    load = vt.load_average()
    sys.stdout.write(f"init from {args.mirror.resolve()}, {args.runs} runs each, {vt.machine(load)}\n")
    with vt.scratch("init-bench-") as (root, env):
        for name in names:
            medians: dict[tuple[str, str], float] = {}
            sys.stdout.write(f"\n{name}:\n")
            for init, plan in tools:
                workdir = root / f"{name}-{init.name}"
                workdir.mkdir()
                (workdir / "main.tf").write_text(CONFIGS[name])
                times = _measure(init, plan, workdir, env, args.runs)
                for case in CASES:
                    sys.stdout.write(vt.line(f"{init.name} {case}", times[case], 22) + "\n")
                    medians[(init.name, case)] = statistics.median(w for w, _ in times[case])
                both = [(fw + pw, fc + pc) for (fw, fc), (pw, pc) in zip(times["fresh"], times["first plan"],
                                                                         strict=True)]
                sys.stdout.write(vt.line(f"{init.name} fresh + plan", both, 22) + "\n")
                medians[(init.name, "fresh + plan")] = statistics.median(w for w, _ in both)
            for case in (*CASES, "fresh + plan"):
                sys.stdout.write(vt.ratio(case, medians[("ctl", case)], medians[("terraform", case)]))
    sys.stdout.write(vt.loaded(load))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
