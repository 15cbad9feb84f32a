"""Init, plan, apply and a no-change re-plan of many resources over the six small real providers,
ctl against Terraform 1.0.3, in one run.

The configuration (``--count`` resources, 300 by default) spreads over random, null, local and
time, with an ``external`` and an ``archive_file`` data source, and wires them together the way real
configurations do: keepers and triggers from other resources' attributes, ``for_each`` over a set
variable, files written from generated names. Both tools take it from the packed mirror in
``../shared/providers`` through the same steps, each in a directory of its own, ``--runs`` times
from nothing; the median and minimum wall seconds of each step are printed with the median CPU
seconds (the tool and the provider processes it waited for: on a busy machine the steadier figure),
and ctl's median wall time over Terraform's.

Run: ``python bench/real_providers.py [--count 300] [--runs 3] [--mirror DIR] [--terraform PATH]
[--ctl PATH]``. Plain text on stdout; exit status 0 whatever the numbers, 2 when the mirror or a
tool is missing, 1 when a step fails (its output is printed: its time would mean nothing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import versus_terraform as vt

HEADER = """\
terraform {
  required_providers {
    random   = { source = "hashicorp/random" }
    null     = { source = "hashicorp/null" }
    local    = { source = "hashicorp/local" }
    time     = { source = "hashicorp/time" }
    archive  = { source = "hashicorp/archive" }
    external = { source = "hashicorp/external" }
  }
}

data "external" "net" {
  program = ["sh", "-c", "echo '{\\"cidr\\": \\"10.0.0.0/8\\"}'"]
}
"""

# One group of six resources; ``count`` resources are ``count // 6`` groups (for_each over a set).
GROUP = """
variable "names_{g}" {{
  type    = set(string)
  default = [{names}]
}}

resource "random_id" "g{g}" {{
  for_each    = var.names_{g}
  byte_length = 4
  keepers     = {{ name = each.key }}
}}

resource "random_pet" "g{g}" {{
  for_each = random_id.g{g}
  keepers  = {{ id = each.value.hex }}
}}

resource "null_resource" "g{g}" {{
  for_each = random_pet.g{g}
  triggers = {{ pet = each.value.id, cidr = data.external.net.result.cidr }}
}}

resource "local_file" "g{g}" {{
  for_each = random_pet.g{g}
  filename = "${{path.module}}/out/{g}-${{each.key}}.txt"
  content  = each.value.id
}}

resource "time_static" "g{g}" {{
  for_each = random_id.g{g}
  triggers = {{ id = each.value.hex }}
}}

resource "random_string" "g{g}" {{
  for_each = var.names_{g}
  length   = 12
  special  = false
}}
"""

PER_NAME = 6  # resources per name of a group


def configuration(count: int, per_group: int = 10) -> str:
    """``count`` managed resources (rounded down to whole groups of ``per_group`` names)."""
    groups = max(1, count // (PER_NAME * per_group))
    parts = [HEADER]
    for g in range(groups):
        names = ", ".join(f'"n{i}"' for i in range(per_group))
        parts.append(GROUP.format(g=g, names=names))
    parts.append('\ndata "archive_file" "out" {\n  type        = "zip"\n  source_dir  = "${path.module}/out"\n'
                 '  output_path = "${path.module}/out.zip"\n  depends_on  = [' +
                 ", ".join(f"local_file.g{g}" for g in range(groups)) + "]\n}\n")
    return "".join(parts)


STEPS = ("init", "plan", "apply", "re-plan")


def _tools(ctl: Path, terraform: Path, mirror: Path) -> dict[str, dict[str, vt.Tool]]:
    leaves = (".ctl", ".terraform", ".terraform.lock.hcl", "ctl.tfstate", "ctl.tfstate.backup",
              "ctl.tfstate.history", "terraform.tfstate", "terraform.tfstate.backup", "tfplan", "out",
              "out.zip")
    c, t = str(ctl), str(terraform)
    return {
        "ctl": {
            "init": vt.Tool("ctl", [c, "init", "-plugin-dir", str(mirror)], leaves),
            "plan": vt.Tool("ctl", [c, "plan", "--out", "tfplan"], leaves),
            "apply": vt.Tool("ctl", [c, "apply", "tfplan"], leaves),
            "re-plan": vt.Tool("ctl", [c, "plan", "--detailed-exitcode"], leaves),
        },
        "terraform": {
            "init": vt.Tool("terraform", [t, "init", "-input=false", "-no-color", f"-plugin-dir={mirror}"], leaves),
            "plan": vt.Tool("terraform", [t, "plan", "-input=false", "-no-color", "-out=tfplan"], leaves),
            "apply": vt.Tool("terraform", [t, "apply", "-input=false", "-no-color", "tfplan"], leaves),
            "re-plan": vt.Tool("terraform", [t, "plan", "-input=false", "-no-color", "-detailed-exitcode"], leaves),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = vt.parse_tool_arguments(parser)
    if args is None:
        return 2
    text = configuration(args.count)
    managed = text.count('\nresource "') * 10
    tools = _tools(args.ctl, args.terraform, args.mirror.resolve())
    load = vt.load_average()
    sys.stdout.write(f"{managed} resources over six real providers, {args.runs} runs each, {vt.machine(load)}\n")
    medians: dict[tuple[str, str], float] = {}
    with vt.scratch("real-providers-bench-") as (root, env):
        for name, steps in tools.items():
            workdir = root / name
            workdir.mkdir()
            (workdir / "main.tf").write_text(text)
            times: dict[str, vt.Times] = {step: [] for step in STEPS}
            for _ in range(args.runs):
                steps["init"].clean(workdir)
                (workdir / "out").mkdir()
                for step in STEPS:
                    times[step].append(steps[step].run(workdir, env))
            steps["init"].clean(workdir)
            sys.stdout.write(f"\n{name}:\n")
            for step in STEPS:
                sys.stdout.write(vt.line(f"{name} {step}", times[step], width=20) + "\n")
                medians[(name, step)] = statistics.median(w for w, _ in times[step])
    sys.stdout.write("\n")
    for step in STEPS:
        sys.stdout.write(vt.ratio(step, medians[("ctl", step)], medians[("terraform", step)]))
    sys.stdout.write(vt.loaded(load))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
