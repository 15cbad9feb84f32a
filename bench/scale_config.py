"""Configuration generators for ``bench/scale.py``.

Two shapes, both written as plain HCL so the same files can go through ``ctl`` and, for the
language-only one, through Terraform 1.0.3:

* ``generate_resources``: N ``terraform_data`` resources (served natively by ctl, so planning and
  applying them needs no provider process and no network), ~250 per file. Every resource has small
  nested inputs (a template string, a map of tags, a list of ports) because flat scalars would
  understate the cost of values, diffs and state documents. One resource in ten is chained: it
  references the previous chained resource's ``output.name``. A scalar is referenced, not the whole
  ``output``, because each output would otherwise contain all the earlier ones and the state would
  grow with the square of the chain's length, which measures the configuration, not the tool.
* ``generate_language``: variables, locals, local module instances (``count`` and ``for_each``
  over a child module with locals and outputs) and outputs, and no resources at all. Terraform 1.0.3
  has no ``terraform_data``, and any other resource would need a provider download; without
  resources the two tools do the same work: parse, build the graph, evaluate every expression.
"""

from __future__ import annotations

import json
from pathlib import Path

RESOURCES_PER_FILE = 250
CHAIN_EVERY = 10  # every 10th resource is chained to the previous chained one
LOCALS_PER_FILE = 500
MODULES_PER_BLOCK = 50  # instances per module block; blocks alternate count / for_each

_RESOURCE_HEADER = """\
variable "team" {
  type        = string
  default     = "a"
  description = "Team tag on every resource."
}

variable "ports" {
  type    = list(number)
  default = [80, 443]
}

locals {
  prefix      = "r"
  common_tags = { team = var.team, managed_by = "ctl" }
}
"""


def _resource(i: int) -> str:
    """One resource block; chained ones also carry the previous chained resource's name."""
    name = f"r{i:06}"
    prev = ""
    if i % CHAIN_EVERY == 0 and i >= CHAIN_EVERY:
        prev = f"\n    previous = terraform_data.r{i - CHAIN_EVERY:06}.output.name"
    return f"""\
resource "terraform_data" "{name}" {{
  input = {{
    name  = "${{local.prefix}}-{i}"
    tags  = {{ team = var.team, idx = "{i}" }}
    ports = [80, 443]{prev}
  }}
}}
"""


def _resource_json(i: int) -> dict[str, object]:
    """The same resource as ``_resource``, as a ``.tf.json`` block body."""
    value: dict[str, object] = {
        "name": f"${{local.prefix}}-{i}",
        "tags": {"team": "${var.team}", "idx": f"{i}"},
        "ports": [80, 443],
    }
    if i % CHAIN_EVERY == 0 and i >= CHAIN_EVERY:
        value["previous"] = f"${{terraform_data.r{i - CHAIN_EVERY:06}.output.name}}"
    return {"input": value}


def _resource_yaml(i: int) -> str:
    """The same resource as ``_resource``, as the lines of a ``.tf.yaml`` entry under ``terraform_data``."""
    value = _resource_json(i)["input"]
    assert isinstance(value, dict)
    lines = [f"    r{i:06}:", "      input:"]
    for key, item in value.items():
        if isinstance(item, dict):
            lines.append(f"        {key}:")
            lines += [f"          {k}: {json.dumps(v)}" for k, v in item.items()]
        else:
            lines.append(f"        {key}: {json.dumps(item)}")
    return "\n".join(lines) + "\n"


LAYOUTS = ("split", "single", "json", "yaml")


def generate_resources(directory: Path, n: int, layout: str = "split") -> dict[str, int]:
    """Write ``n`` resources to ``directory``; returns the file count and total bytes.

    ``layout`` is how a code generator might lay them out: ``split`` in files of 250 resources,
    ``single`` in one ``main.tf``, ``json`` in one ``main.tf.json`` (as cdktf writes), ``yaml`` in one
    ``main.tf.yaml``. The variables, locals and outputs are the same in each.

    Each file is written as it is built: the benchmark's own peak RSS must stay small, because a
    child started with ``vfork`` inherits it as the floor of its ``ru_maxrss``.
    """
    if n < 1:
        raise ValueError("the configuration needs at least one resource")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")
    directory.mkdir(parents=True)
    files, size = 0, 0

    def write(name: str, text: str) -> None:
        nonlocal files, size
        data = text.encode()
        (directory / name).write_bytes(data)
        files, size = files + 1, size + len(data)

    last_chained = (n - 1) // CHAIN_EVERY * CHAIN_EVERY
    outputs = f"""\
output "first" {{
  value = terraform_data.r000000.output
}}

output "last_chained" {{
  value = terraform_data.r{last_chained:06}.output.name
}}

output "last_tags" {{
  value = terraform_data.r{n - 1:06}.output.tags
}}
"""
    if layout == "json":
        write("header.tf", _RESOURCE_HEADER)
        write("outputs.tf", outputs)
        with (directory / "main.tf.json").open("w") as out:  # written a resource at a time
            out.write('{\n  "resource": {\n    "terraform_data": {\n')
            for i in range(n):
                entry = json.dumps({f"r{i:06}": _resource_json(i)}, indent=2)[2:-2]
                out.write(entry + (",\n" if i < n - 1 else "\n"))
            out.write("    }\n  }\n}\n")
        files, size = files + 1, size + (directory / "main.tf.json").stat().st_size
        return {"files": files, "bytes": size}
    if layout == "yaml":
        write("header.tf", _RESOURCE_HEADER)
        write("outputs.tf", outputs)
        with (directory / "main.tf.yaml").open("w") as out:  # written a resource at a time
            out.write("resource:\n  terraform_data:\n")
            for i in range(n):
                out.write(_resource_yaml(i))
        files, size = files + 1, size + (directory / "main.tf.yaml").stat().st_size
        return {"files": files, "bytes": size}
    if layout == "single":
        with (directory / "main.tf").open("w") as out:
            out.write(_RESOURCE_HEADER + "\n")
            for i in range(n):
                out.write(_resource(i) + "\n")
            out.write(outputs)
        return {"files": 1, "bytes": (directory / "main.tf").stat().st_size}
    write("main.tf", _RESOURCE_HEADER)
    for start in range(0, n, RESOURCES_PER_FILE):
        stop = min(n, start + RESOURCES_PER_FILE)
        write(f"r{start // RESOURCES_PER_FILE:04}.tf", "\n".join(_resource(i) for i in range(start, stop)))
    write("outputs.tf", outputs)
    return {"files": files, "bytes": size}


def generate_literal(directory: Path, size: int, kind: str) -> int:
    """Write one configuration file that is one local of ``size`` bytes of text, and an output of its
    length; returns the bytes. ``kind``: a ``main.tf`` heredoc (``heredoc``), a ``main.tf`` quoted
    string with an escaped newline on every line (``string``), or the same string in a
    ``main.tf.json`` (``json``)."""
    directory.mkdir(parents=True)
    line = "abcdefghij" * 7
    lines = size // (len(line) + 1)
    name = "main.tf.json" if kind == "json" else "main.tf"
    with (directory / name).open("w") as out:
        if kind == "json":
            out.write('{\n  "locals": {\n    "big": "')
            for _ in range(lines):
                out.write(line + "\\n")
            out.write('"\n  },\n  "output": {\n    "length": {\n      "value": "${length(local.big)}"\n    }\n  }\n}\n')
            return (directory / name).stat().st_size
        if kind == "heredoc":
            out.write("locals {\n  big = <<EOT\n")
            for _ in range(lines):
                out.write(line + "\n")
            out.write("EOT\n}\n")
        else:
            out.write('locals {\n  big = "')
            for _ in range(lines):
                out.write(line + "\\n")
            out.write('"\n}\n')
        out.write('\noutput "length" {\n  value = length(local.big)\n}\n')
    return (directory / name).stat().st_size


_CHILD = """\
variable "name" {
  type = string
}

variable "index" {
  type = number
}

variable "tags" {
  type    = map(string)
  default = {}
}

locals {
  full_name = "${var.name}-${var.index}"
  tags      = merge(var.tags, { module = var.name, index = tostring(var.index) })
  ports     = [for p in [80, 443, 8080] : p + var.index]
  summary   = { name = local.full_name, ports = length(local.ports), first = local.ports[0] }
}

output "full_name" {
  value = local.full_name
}

output "tags" {
  value = local.tags
}

output "summary" {
  value = local.summary
}
"""

_LANG_HEADER = """\
variable "prefix" {
  type    = string
  default = "lang"
}

variable "ports" {
  type    = list(number)
  default = [80, 443]
}

variable "team" {
  type    = string
  default = "a"
}

locals {
  common_tags = { team = var.team, prefix = var.prefix }
}
"""


def _local(i: int) -> str:
    """One local: an object with a template, a merge, a ``for`` and (mostly) a reference."""
    prev = f"local.l{i - 1:06}.id" if i % CHAIN_EVERY else "var.prefix"
    return (
        f'  l{i:06} = {{ id = "${{var.prefix}}-{i}", prev = {prev}, '
        f'tags = merge(local.common_tags, {{ idx = "{i}" }}), ports = [for p in var.ports : p + {i % 7}] }}'
    )


def _module_block(b: int) -> str:
    """Module block ``b``: even blocks use ``count``, odd ones ``for_each`` over a local map."""
    if b % 2 == 0:
        return f"""\
module "c{b:03}" {{
  source = "./modules/child"
  count  = {MODULES_PER_BLOCK}
  name   = "c{b:03}"
  index  = count.index
  tags   = local.common_tags
}}
"""
    return f"""\
locals {{
  keys_{b:03} = {{ for i in range({MODULES_PER_BLOCK}) : format("k%03d", i) => i }}
}}

module "e{b:03}" {{
  source   = "./modules/child"
  for_each = local.keys_{b:03}
  name     = "e{b:03}-${{each.key}}"
  index    = each.value
  tags     = merge(local.common_tags, {{ key = each.key }})
}}
"""


def generate_language(directory: Path, locals_n: int) -> dict[str, int]:
    """Write ``locals_n`` locals and ``locals_n // 20`` module instances (at least two blocks)."""
    directory.mkdir(parents=True)
    (directory / "modules" / "child").mkdir(parents=True)
    (directory / "modules" / "child" / "main.tf").write_text(_CHILD)
    blocks = max(2, locals_n // 20 // MODULES_PER_BLOCK)
    written = {"main.tf": _LANG_HEADER}
    for start in range(0, locals_n, LOCALS_PER_FILE):
        body = "\n".join(_local(i) for i in range(start, min(locals_n, start + LOCALS_PER_FILE)))
        written[f"locals_{start // LOCALS_PER_FILE:03}.tf"] = f"locals {{\n{body}\n}}\n"
    written["modules.tf"] = "\n".join(_module_block(b) for b in range(blocks))
    outputs = [
        f'output "last_local" {{\n  value = local.l{locals_n - 1:06}\n}}\n',
        'output "names" {\n  value = [for m in module.c000 : m.full_name]\n}\n',
        'output "summaries" {\n  value = { for k, m in module.e001 : k => m.summary }\n}\n',
        'output "instances" {\n  value = '
        + " + ".join(f"length(module.{'c' if b % 2 == 0 else 'e'}{b:03})" for b in range(blocks))
        + "\n}\n",
    ]
    written["outputs.tf"] = "\n".join(outputs)
    for name, text in written.items():
        (directory / name).write_text(text)
    return {
        "files": len(written) + 1,
        "locals": locals_n,
        "module_instances": blocks * MODULES_PER_BLOCK,
        "bytes": len(_CHILD.encode()) + sum(len(t.encode()) for t in written.values()),
    }
