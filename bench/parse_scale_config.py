"""The configuration ``bench/parse_scale.py`` measures: N resource instances of the local adapter
types over files of about 250, with reference chains, fan-ins, ``count``, ``for_each`` over maps,
locals, variables with defaults, outputs, and a local module called with ``for_each`` whose
instances count toward N.

Kept apart from the measuring script so each reads on its own: this one says what is measured,
that one how.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MODULE_SHARE = 0.25  # about this share of N comes from the module's instances
ZONES = ("a", "b", "c")  # root groups fan out over these with for_each
PORTS = {"http": 80, "https": 443, "metrics": 9100}  # module instances fan out over these
REPLICAS = 2  # count of random_string per group / module instance
CHAIN = 5  # terraform_data steps chained in each root group
GROUP_SIZE = 1 + REPLICAS + CHAIN + len(ZONES) + 1 + 1  # instances per root group
MODULE_BASE = 1 + REPLICAS + 1 + 1 + 1  # instances per module instance, besides its ports
GROUPS_PER_FILE = 19  # 19 groups of 13 plus a summary: 248 instances per file

_VARIABLES = f"""\
variable "env" {{
  type        = string
  default     = "bench"
  description = "Deployment environment."
}}

variable "project" {{
  type    = string
  default = "scale"
}}

variable "replicas" {{
  type    = number
  default = {REPLICAS}
}}

variable "zones" {{
  type    = map(string)
  default = {{ {", ".join(f'{z} = "zone-{z}"' for z in ZONES)} }}
}}

variable "ports" {{
  type    = map(number)
  default = {{ {", ".join(f"{k} = {v}" for k, v in PORTS.items())} }}
}}

variable "tags" {{
  type = object({{
    owner = string
    team  = optional(string, "platform")
  }})
  default = {{ owner = "bench" }}
}}
"""

_MODULE = """\
variable "name" {
  type = string
}

variable "env" {
  type = string
}

variable "replicas" {
  type    = number
  default = 1
}

variable "ports" {
  type    = map(number)
  default = {}
}

variable "labels" {
  type    = map(string)
  default = {}
}

locals {
  full_name = "${var.env}-${var.name}"
  labels    = merge(var.labels, { service = var.name })
}

resource "random_id" "suffix" {
  byte_length = 4
  keepers     = { name = local.full_name }
}

resource "random_string" "token" {
  count   = var.replicas
  length  = 16
  special = false
  keepers = { index = count.index, suffix = random_id.suffix.hex }
}

resource "terraform_data" "config" {
  input = {
    name   = local.full_name
    suffix = random_id.suffix.hex
    tokens = random_string.token[*].result
    labels = local.labels
  }
}

resource "terraform_data" "port" {
  for_each = var.ports
  input = {
    port    = each.value
    name    = "${local.full_name}-${each.key}"
    service = terraform_data.config.id
  }
}

resource "time_sleep" "settle" {
  create_duration = "${var.replicas}s"
  triggers        = { config = terraform_data.config.id }
}

resource "local_file" "manifest" {
  filename = "${path.module}/out/${var.name}.json"
  content = jsonencode({
    service = local.full_name
    ports   = { for k, p in terraform_data.port : k => p.output.port }
    ready   = time_sleep.settle.id
  })
  file_permission = "0644"
}

output "id" {
  value = terraform_data.config.id
}

output "manifest" {
  value = local_file.manifest.filename
}
"""


def _group(f: int, g: int, prev_tail: str | None) -> str:
    """One root group: 13 instances with a chain, a for_each fan-out and a fan-in."""
    p = f"f{f:03}g{g:02}"
    first_prev = f"{prev_tail}.output" if prev_tail else "random_id." + p + "_seed.hex"
    steps = []
    for s in range(CHAIN):
        prev = first_prev if s == 0 else f"terraform_data.{p}_step{s - 1}.output"
        steps.append(f"""\
resource "terraform_data" "{p}_step{s}" {{
  input = {{
    previous = {prev}
    name     = "${{local.f{f:03}_prefix}}-{g}-{s}"
    token    = random_string.{p}_name[{s % REPLICAS}].result
  }}
}}
""")
    steps_text = "\n".join(steps)
    return f"""\
resource "random_id" "{p}_seed" {{
  byte_length = 8
  keepers = {{
    env   = var.env
    group = "{p}"
  }}
}}

resource "random_string" "{p}_name" {{
  count   = var.replicas
  length  = 12 + count.index
  special = false
  upper   = var.f{f:03}_enabled
  keepers = {{ seed = random_id.{p}_seed.b64_url }}
}}

{steps_text}
resource "terraform_data" "{p}_zone" {{
  for_each = var.zones
  input = {{
    zone  = each.value
    key   = each.key
    after = terraform_data.{p}_step{CHAIN - 1}.output
    tags  = local.f{f:03}_tags
  }}
}}

resource "time_sleep" "{p}_wait" {{
  create_duration = var.f{f:03}_enabled ? "1s" : "0s"
  triggers        = {{ for k, z in terraform_data.{p}_zone : k => z.id }}
  depends_on      = [terraform_data.{p}_step{CHAIN - 1}]
}}

resource "local_file" "{p}_out" {{
  filename = "${{path.module}}/out/{p}.txt"
  content  = join("\\n", [for z in values(terraform_data.{p}_zone) : "${{z.output.key}}=${{z.output.zone}}"])
}}
"""


def _root_file(f: int, groups: int) -> str:
    parts = [
        f"""\
variable "f{f:03}_enabled" {{
  type    = bool
  default = true
}}

locals {{
  f{f:03}_prefix = "${{var.project}}-${{var.env}}-f{f:03}"
  f{f:03}_tags   = merge(local.common_tags, {{ file = "f{f:03}" }})
}}
"""
    ]
    prev: str | None = None
    tails = []
    for g in range(groups):
        parts.append(_group(f, g, prev))
        prev = f"terraform_data.f{f:03}g{g:02}_step{CHAIN - 1}"
        tails.append(prev)
    fan_in = "\n".join(f"    {t}.output," for t in tails)
    parts.append(f"""\
resource "terraform_data" "f{f:03}_summary" {{
  input = [
{fan_in}
  ]
  triggers_replace = [for f in local_file.f{f:03}g00_out[*] : f.filename]
}}

output "f{f:03}_summary" {{
  value = terraform_data.f{f:03}_summary.id
}}
""")
    return "\n".join(parts)


def generate(directory: Path, n: int) -> dict[str, Any]:
    """Write a configuration of exactly ``n`` resource instances; returns what it holds."""
    directory.mkdir(parents=True, exist_ok=True)
    services = max(1, round(n * MODULE_SHARE / (MODULE_BASE + (len(PORTS) + 3) / 4)))
    files: dict[str, str] = {"variables.tf": _VARIABLES}
    files["main.tf"] = f"""\
locals {{
  common_tags = {{ env = var.env, project = var.project, owner = var.tags.owner, team = var.tags.team }}
  services = {{
    for i in range({services}) : format("svc%05d", i) => {{
      replicas = var.replicas
      ports    = i % 4 == 0 ? var.ports : {{ http = var.ports.http }}
    }}
  }}
}}

module "svc" {{
  for_each = local.services
  source   = "./modules/service"
  name     = each.key
  env      = var.env
  replicas = each.value.replicas
  ports    = each.value.ports
  labels   = {{ project = var.project }}
}}

output "service_ids" {{
  value = {{ for k, m in module.svc : k => m.id }}
}}
"""
    # Every fourth module instance gets all the ports, the others one (see local.services).
    module_instances = sum(MODULE_BASE + (len(PORTS) if i % 4 == 0 else 1) for i in range(services))
    remaining = n - module_instances
    if remaining < 0:
        raise ValueError(f"N={n} is too small: the module alone has {module_instances} instances")
    f = 0
    while remaining >= GROUP_SIZE + 1:
        groups = min(GROUPS_PER_FILE, (remaining - 1) // GROUP_SIZE)
        files[f"r{f:03}.tf"] = _root_file(f, groups)
        remaining -= groups * GROUP_SIZE + 1
        f += 1
    if remaining > 0:
        files["fill.tf"] = f"""\
resource "terraform_data" "fill" {{
  count = {remaining}
  input = {{ index = count.index, prefix = local.common_tags.project }}
}}
"""
    mod_dir = directory / "modules" / "service"
    mod_dir.mkdir(parents=True, exist_ok=True)
    (mod_dir / "main.tf").write_text(_MODULE)
    for name, text in files.items():
        (directory / name).write_text(text)
    size = len(_MODULE.encode()) + sum(len(t.encode()) for t in files.values())
    lines = _MODULE.count("\n") + sum(t.count("\n") for t in files.values())
    return {"files": len(files) + 1, "bytes": size, "lines": lines, "services": services}
