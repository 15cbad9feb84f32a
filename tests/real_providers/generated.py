"""Configurations generated from the real providers' own schemas, planned by ctl and by Terraform 1.0.3.

The generator reads the schemas the six small providers report (``terraform providers schema -json``)
and, from a seeded random generator, writes one configuration per seed: every resource type and data
source of those providers once, each argument a literal of its type (or of a type Terraform converts
to it: a number or a bool for a string, a string for a number, an object for a map), ``null``,
omitted, or a value not known until apply taken from another resource — whole, as an element of a
list, set or map, as a map key, inside a nested block, or as the ``for_each`` of a ``dynamic`` block.
Some seeds carry one deliberately invalid argument (a missing or unsupported argument, a value that
does not convert, a value the provider refuses, two arguments that exclude each other), so the error
paths are compared as well: both tools must agree on whether a configuration plans.

Values are kept valid enough for the providers to plan them (lengths in realistic ranges, real
timestamps and durations, exactly one source for a file or an archive). Nothing leaves the working
directory: files and archives are named under ``path.module``, ``data "external"`` and
``data "local_command"`` run fixed harmless commands, and nothing is applied.

``python -m tests.real_providers.generated N [FIRST]`` (``make generated N=300``) runs seeds FIRST to
FIRST+N-1 and prints each disagreement with the seed that reproduces it, then a summary.
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROVIDERS = ("random", "null", "local", "time", "archive", "external")

PREAMBLE = "terraform {\n  required_providers {\n" + "".join(
    f'    {name} = {{ source = "hashicorp/{name}" }}\n' for name in PROVIDERS) + "  }\n}\n"

# Resources and data sources every configuration has, whose attributes the generated ones take:
# strings, numbers and lists only known after apply, and a data source's result known at plan.
SOURCES = r'''
resource "random_id" "src" {
  byte_length = 4
}

resource "random_integer" "src" {
  min = 1
  max = 3
}

resource "random_shuffle" "src" {
  input = ["a", "b", "c"]
}

data "external" "src" {
  program = ["sh", "-c", "echo '{\"cidr\": \"10.0.0.0/8\"}'"]
}
'''

# Files the configurations read (``source_file``, ``source_dir``, ``data "local_file"``); written with a
# fixed modification time so an archive of them is the same bytes in both tools' directories.
INPUT_FILES = {"input.txt": "input\n", "indir/a.txt": "a\n", "indir/sub/b.txt": "b\n"}
INPUT_MTIME = 1_600_000_000

# A value not known until apply, per type, at the top of an argument.
UNKNOWN: dict[str, tuple[str, ...]] = {
    "string": ("random_id.src.hex", '"${random_id.src.hex}-x"', "random_shuffle.src.result[0]",
               'jsonencode({ a = [1, { b = random_id.src.hex }] })'),
    "number": ("length(random_id.src.hex)", "random_integer.src.result"),
    "bool": ('random_id.src.hex == ""', "random_integer.src.result > 1"),
    "list": ("random_shuffle.src.result",),
    "set": ("toset(random_shuffle.src.result)",),
    "map": ("{ for k in random_shuffle.src.result : k => k }",),
}
# Known at plan, but read from another block.
KNOWN_REF: dict[str, tuple[str, ...]] = {
    "string": ("data.external.src.result.cidr", "random_shuffle.src.input[1]"),
    "number": ("random_id.src.byte_length", "length(random_shuffle.src.input)"),
    "bool": ("random_id.src.byte_length > 2",),
    "list": ("random_shuffle.src.input",),
    "set": ("toset(random_shuffle.src.input)",),
    "map": ("data.external.src.result",),
}

STRINGS = ("", "a", "hello world", 'with "quotes"', "tab\there", "line\nbreak", "ünïcødé",
           "${not_interpolated}", "%{not_a_directive}", "back\\slash", "10.0.0.0/8", "0", "true")


def hcl_string(text: str) -> str:
    """A quoted HCL string whose value is exactly ``text`` (escapes, and no interpolation)."""
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
               .replace("${", "$${").replace("%{", "%%{"))
    return f'"{escaped}"'


@dataclass
class Case:
    """One generated configuration and what was done to it on purpose."""

    seed: int
    config: str
    invalid: str | None = None


def _kind(type_: Any) -> str:
    """``string``/``number``/``bool`` or the collection kind (``list``/``set``/``map``) of a schema type."""
    if isinstance(type_, str):
        return type_
    return str(type_[0])


class _Gen:
    """The random choices for one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: tuple[str, ...] | list[str]) -> str:
        return options[self.rng.randrange(len(options))]

    # -- literals ---------------------------------------------------------------------------------

    def string_literal(self) -> str:
        roll = self.rng.random()
        if roll < 0.7:
            return hcl_string(self.pick(STRINGS))
        if roll < 0.8:
            return str(self.rng.randint(-5, 500))  # a number converts to a string
        if roll < 0.9:
            return self.pick(("true", "false"))  # so does a bool
        if roll < 0.95:
            return 'jsonencode({ a = [1, true, { b = "c", d = null }] })'
        return '"${upper("mixed")}-${1 + 2}"'

    def element(self, unknown_ok: bool) -> str:
        """One string element of a collection: a literal, a known reference, null, or (where allowed)
        unknown."""
        roll = self.rng.random()
        if roll > 0.95:
            return "null"
        if unknown_ok and roll < 0.2:
            return self.pick(UNKNOWN["string"])
        if roll < 0.3:
            return self.pick(KNOWN_REF["string"])
        return self.string_literal()

    def collection(self, kind: str, unknown_ok: bool) -> str:
        size = self.rng.randint(0, 3)
        if kind == "map":
            keys = self.rng.sample(["a", "b-c", "key_3", "Ünï", "x y"], size)
            items = []
            for key in keys:
                key_text = key if key.isidentifier() else hcl_string(key)
                items.append(f"{key_text} = {self.element(unknown_ok)}")
            if unknown_ok and self.chance(0.1):
                items.append("(random_id.src.hex) = \"unknown key\"")
            body = "{ " + ", ".join(items) + " }" if items else "{}"
            return self.pick((body, body, f"tomap({body})", f"merge({body}, {{ extra = \"e\" }})"))
        elements = [self.element(unknown_ok) for _ in range(size)]
        if kind == "set":
            # Two equal elements make one: both tools must agree on that as on anything else.
            body = "[" + ", ".join(elements) + "]"
            return self.pick((body, f"toset({body})"))
        body = "[" + ", ".join(elements) + "]"
        return self.pick((body, body, f"concat({body}, [\"tail\"])", f"tolist({body})"))

    def literal(self, type_: Any) -> str:
        kind = _kind(type_)
        if kind == "string":
            return self.string_literal()
        if kind == "number":
            return self.pick((str(self.rng.randint(0, 9)), f'"{self.rng.randint(0, 9)}"'))
        if kind == "bool":
            return self.pick(("true", "false", '"true"', '"false"'))
        return self.collection(kind, unknown_ok=False)

    # -- one argument -------------------------------------------------------------------------------

    def argument(self, type_: Any, valid: Callable[[_Gen], str] | None, unknown_ok: bool,
                 required: bool) -> str | None:
        """The expression for an argument, or None to leave it out."""
        kind = _kind(type_)
        roll = self.rng.random()
        if not required and roll < 0.3:
            return None  # omitted
        if not required and roll < 0.4:
            return "null"
        if unknown_ok and roll < 0.55:
            return self.pick(UNKNOWN[kind])
        if unknown_ok and kind in ("list", "set", "map") and roll < 0.7:
            return self.collection(kind, unknown_ok=True)  # unknown elements in a known collection
        if valid is not None:
            return valid(self)
        if roll < 0.75:
            return self.pick(KNOWN_REF[kind])
        return self.literal(type_)


# -- what each argument may be, where the schema alone would let the provider refuse the configuration

Valid = Callable[[_Gen], str]


def _int(low: int, high: int) -> Valid:
    return lambda g: g.pick((str(g.rng.randint(low, high)), f'"{g.rng.randint(low, high)}"'))


def _fixed(*texts: str) -> Valid:
    return lambda g: g.pick(texts)


def _path(suffix: str) -> Valid:
    return lambda g: f'"${{path.module}}/out/{g.pick(("f", "g", "h"))}{g.rng.randint(0, 99)}{suffix}"'


RFC3339 = _fixed('"2024-01-02T03:04:05Z"', '"2030-12-31T23:59:59+02:00"', '"1999-06-01T00:00:00Z"')
PERMISSION = _fixed('"0644"', '"0755"', '"0600"', '"0777"')
INPUT_FILE = _fixed('"${path.module}/input.txt"', '"input.txt"')
INPUT_DIR = _fixed('"${path.module}/indir"', '"indir"')

# (type, argument) -> a generator of valid literals, for arguments whose value the provider checks.
VALID: dict[tuple[str, str], Valid] = {
    ("random_bytes", "length"): _int(1, 64),
    ("random_id", "byte_length"): _int(1, 32),
    ("random_integer", "min"): _int(0, 10),
    ("random_integer", "max"): _int(10, 100),
    ("random_password", "length"): _int(12, 40),
    ("random_string", "length"): _int(12, 40),
    ("random_pet", "length"): _int(1, 4),
    ("random_shuffle", "result_count"): _int(1, 3),
    ("random_password", "override_special"): _fixed('"!@#"', '"_-"', '""'),
    ("random_string", "override_special"): _fixed('"!@#"', '"_-"', '""'),
    ("time_offset", "base_rfc3339"): RFC3339,
    ("time_rotating", "rfc3339"): RFC3339,
    ("time_rotating", "rotation_rfc3339"): _fixed('"2031-01-01T00:00:00Z"'),
    ("time_static", "rfc3339"): RFC3339,
    ("time_sleep", "create_duration"): _fixed('"0s"', '"1ms"', '"2m"', '"1h"'),
    ("time_sleep", "destroy_duration"): _fixed('"0s"', '"1ms"', '"2m"'),
    ("local_file", "filename"): _path(".txt"),
    ("local_sensitive_file", "filename"): _path(".txt"),
    ("local_file", "content_base64"): lambda g: g.pick(
        (hcl_string(base64.b64encode(b"bytes").decode()), 'base64encode("text")')),
    ("local_sensitive_file", "content_base64"): lambda g: g.pick(
        (hcl_string(base64.b64encode(b"bytes").decode()), 'base64encode("text")')),
    ("local_file", "source"): INPUT_FILE,
    ("local_sensitive_file", "source"): INPUT_FILE,
    ("archive_file", "type"): _fixed('"zip"'),
    ("archive_file", "output_path"): _path(".zip"),
    ("archive_file", "source_file"): INPUT_FILE,
    ("archive_file", "source_dir"): INPUT_DIR,
    ("archive_file", "output_file_mode"): _fixed('"0644"', '"0666"'),
    ("external", "program"): _fixed('["sh", "-c", "echo {}"]', '["sh", "-c", "echo \'{\\"k\\": \\"v\\"}\'"]'),
    ("external", "working_dir"): _fixed('"${path.module}"', '"."'),
    ("local_command", "command"): _fixed('"echo"', '"true"'),
    ("local_command", "working_directory"): _fixed('"${path.module}"', '"."'),
    ("local_file", "data:filename"): INPUT_FILE,
    ("local_sensitive_file", "data:filename"): INPUT_FILE,
}
for _name in ("lower", "upper", "numeric", "number", "special"):
    VALID[("random_password", f"min_{_name}")] = _int(0, 2)
    VALID[("random_string", f"min_{_name}")] = _int(0, 2)
for _unit in ("years", "months", "days", "hours", "minutes", "seconds"):
    VALID[("time_offset", f"offset_{_unit}")] = _int(-10, 10)
    VALID[("time_rotating", f"rotation_{_unit}")] = _int(1, 10)
for _perm in ("file_permission", "directory_permission"):
    VALID[("local_file", _perm)] = PERMISSION
    VALID[("local_sensitive_file", _perm)] = PERMISSION

# Arguments whose value must be known at plan for the configuration to be safe or to plan at all:
# the program a data source runs, and what a data source reads or writes during plan.
NO_UNKNOWN = {("external", "program"), ("local_command", "command"), ("archive_file", "type")}

# Groups of which exactly one argument (or argument set) is given, else the provider refuses.
ONE_OF: dict[str, list[tuple[str, ...]]] = {
    "local_file": [("content",), ("content_base64",), ("source",), ("sensitive_content",)],
    "local_sensitive_file": [("content",), ("content_base64",), ("source",)],
    "archive_file": [("source_content", "source_content_filename"), ("source_file",), ("source_dir",),
                     ("@source",)],
}
# Pairs never given together (the provider refuses two different values for one setting).
APART: dict[str, list[tuple[str, str]]] = {
    "random_password": [("number", "numeric")],
    "random_string": [("number", "numeric")],
}
# Arguments the provider takes only beside another.
ONLY_WITH = {("archive_file", "excludes"): "source_dir"}
# Groups of which at least one argument is given.
AT_LEAST_ONE: dict[str, tuple[str, ...]] = {
    "time_sleep": ("create_duration", "destroy_duration"),
    "time_rotating": tuple(f"rotation_{u}" for u in ("years", "months", "days", "hours", "minutes")),
    "time_offset": tuple(f"offset_{u}" for u in ("years", "months", "days", "hours", "minutes", "seconds")),
}

# Deliberate mistakes: a description and the replacement for one argument, per (type, argument) or
# for any argument of a kind. Each is refused by Terraform 1.0.3 or by the provider at plan.
PROVIDER_REFUSES: dict[tuple[str, str], tuple[str, ...]] = {
    ("random_id", "byte_length"): ("0",),
    ("random_string", "length"): ("0", "-1"),
    ("random_password", "length"): ("0",),
    ("random_pet", "length"): ("0",),
    ("time_static", "rfc3339"): ('"yesterday"', '"2024-13-01T00:00:00Z"'),
    ("time_offset", "base_rfc3339"): ('"not a time"',),
    ("time_sleep", "create_duration"): ('"soon"', '"10"'),
    ("local_file", "file_permission"): ('"999"', '"rw-r--r--"'),
    ("archive_file", "type"): ('"rar"',),
    ("random_shuffle", "result_count"): ("-1",),
    ("random_bytes", "length"): ("0",),
}
DOES_NOT_CONVERT: dict[str, tuple[str, ...]] = {
    "string": ('["a"]', "{ a = 1 }"),
    "number": ('"abc"', "true", '["1"]'),
    "bool": ('"maybe"', "1"),
    "list": ('"a"', "{ a = 1 }"),
    "set": ('"a"', "5"),
    "map": ('"a"', '["a"]', "{ a = { b = 1 } }", "{ a = [1] }"),
}


def _schemas(doc: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(mode, type, block) for every managed and data resource type of the six providers, sorted."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for provider, schemas in sorted(doc["provider_schemas"].items()):
        if provider.rsplit("/", 1)[-1] not in PROVIDERS:
            continue
        for mode, key in (("resource", "resource_schemas"), ("data", "data_source_schemas")):
            for type_name, schema in sorted((schemas.get(key) or {}).items()):
                out.append((mode, type_name, schema["block"]))
    return out


def _groups(type_name: str, block: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The ONE_OF groups of a type whose members this block has (a data source has fewer arguments)."""
    names = {name for name, _ in _settable(block)} | {f"@{name}" for name in block.get("block_types", {})}
    return [group for group in ONE_OF.get(type_name, []) if all(member in names for member in group)]


def _settable(block: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, attr) for name, attr in sorted(block.get("attributes", {}).items())
            if attr.get("required") or attr.get("optional")]


class _Writer:
    """Builds one resource or data block's text, and records where a mistake could go."""

    def __init__(self, gen: _Gen, mode: str, type_name: str, block: Mapping[str, Any]) -> None:
        self.gen = gen
        self.mode = mode
        self.type_name = type_name
        self.block = block
        self.lines: list[str] = []

    def valid_for(self, name: str) -> Valid | None:
        if self.mode == "data" and (self.type_name, f"data:{name}") in VALID:
            return VALID[(self.type_name, f"data:{name}")]
        return VALID.get((self.type_name, name))

    def chosen(self) -> tuple[set[str], set[str]]:
        """Arguments that must be given, and arguments that must be left out, for the provider."""
        must: set[str] = set()
        must_not: set[str] = set()
        groups = _groups(self.type_name, self.block)
        if groups:
            picked = groups[self.gen.rng.randrange(len(groups))]
            must.update(picked)
            for other in groups:
                if other != picked:
                    must_not.update(other)
        if self.type_name in AT_LEAST_ONE:
            must.add(self.gen.pick(list(AT_LEAST_ONE[self.type_name])))
        return must, must_not

    def render(self) -> tuple[dict[str, str], list[str]]:
        """The block's arguments (name -> expression text) and its nested blocks' text."""
        must, must_not = self.chosen()
        args: dict[str, str] = {}
        for arg, attr in _settable(self.block):
            peer = ONLY_WITH.get((self.type_name, arg))
            if arg in must_not or (peer is not None and peer not in must):
                continue
            unknown_ok = (self.type_name, arg) not in NO_UNKNOWN
            required = bool(attr.get("required")) or arg in must
            valid = self.valid_for(arg)
            expr = self.gen.argument(attr["type"], valid, unknown_ok, required)
            if expr is not None:
                args[arg] = expr
        for pair in APART.get(self.type_name, []):
            if all(args.get(arg, "null") != "null" for arg in pair):
                del args[self.gen.pick(pair)]
        nested = self.nested("@source" in must, "@source" in must_not)
        return args, nested

    def nested(self, must: bool, must_not: bool) -> list[str]:
        """Nested blocks of the schema (archive_file's ``source``): literal, unknown or dynamic."""
        out: list[str] = []
        for block_name, block_type in sorted(self.block.get("block_types", {}).items()):
            if must_not or (not must and self.gen.chance(0.6)):
                continue
            inner = block_type["block"]
            roll = self.gen.rng.random()
            if roll < 0.3:
                # dynamic over a known list, or over one not known until apply
                over = self.gen.pick(('["one", "two"]', "random_shuffle.src.result", "[]" if not must else '["x"]'))
                body = []
                for arg, attr in _settable(inner):
                    if arg == "filename":
                        body.append(f'      {arg} = "${{{block_name}.value}}.txt"')
                    else:
                        expr = self.gen.argument(attr["type"], None, True, True)
                        body.append(f"      {arg} = {expr}")
                out.append(f'  dynamic "{block_name}" {{\n    for_each = {over}\n    content {{\n'
                           + "\n".join(body) + "\n    }\n  }")
                continue
            for index in range(self.gen.rng.randint(1, 3)):
                body = []
                for arg, attr in _settable(inner):
                    if arg == "filename" and self.gen.chance(0.8):
                        body.append(f'    {arg} = "n{index}.txt"')
                    else:
                        expr = self.gen.argument(attr["type"], None, True, True)
                        body.append(f"    {arg} = {expr}")
                out.append(f"  {block_name} {{\n" + "\n".join(body) + "\n  }")
        return out


def generate(seed: int, schema_doc: Mapping[str, Any], invalid_share: float = 0.3) -> Case:
    """The configuration for ``seed``: every resource type and data source once, after the sources."""
    gen = _Gen(seed)
    blocks: list[tuple[str, str, dict[str, str], list[str]]] = []
    for mode, type_name, block in _schemas(schema_doc):
        args, nested = _Writer(gen, mode, type_name, block).render()
        blocks.append((mode, type_name, args, nested))
    case = Case(seed=seed, config="")
    if gen.chance(invalid_share):
        case.invalid = _spoil(gen, blocks, schema_doc)
    parts = [PREAMBLE, SOURCES]
    for mode, type_name, args, nested in blocks:
        meta = [args.pop("@meta")] if "@meta" in args else []
        if not meta and gen.chance(0.15):
            meta = [gen.pick(("count = 2", "count = 0", 'for_each = toset(["p", "q"])',
                              'for_each = { one = "1", two = data.external.src.result.cidr }'))]
        lines = [f"  {arg} = {expr}" for arg, expr in [*(m.split(" = ", 1) for m in meta), *args.items()]]
        parts.append(f'{mode} "{type_name}" "g" {{\n' + "".join(f"{line}\n" for line in lines + nested) + "}\n")
    case.config = "\n".join(parts)
    return case


def _spoil(gen: _Gen, blocks: list[tuple[str, str, dict[str, str], list[str]]],
           schema_doc: Mapping[str, Any]) -> str:
    """Put one mistake into one block; returns what it was."""
    index = gen.rng.randrange(len(blocks))
    mode, type_name, args, _ = blocks[index]
    block = {t: b for m, t, b in _schemas(schema_doc) if m == mode}[type_name]
    attributes = dict(_settable(block))
    where = f"{mode} {type_name}.g"
    choices = ["unsupported", "convert", "unknown_count"]
    required = [a for a, attr in attributes.items() if attr.get("required")]
    if required:
        choices += ["missing", "null_required"]
    refused = [arg for (t, arg) in PROVIDER_REFUSES if t == type_name and arg in attributes]
    if refused:
        choices += ["refused", "refused"]
    if len([g for g in _groups(type_name, block) if not g[0].startswith("@")]) >= 2:
        choices.append("both")
    choice = gen.pick(choices)
    if choice == "unknown_count":
        # How many instances there are must be known at plan.
        args["@meta"] = gen.pick(("count = random_integer.src.result",
                                  "for_each = toset(random_shuffle.src.result)"))
        return f"{where}: {args['@meta']}, not known until apply"
    if choice == "unsupported":
        args["not_an_argument"] = '"x"'
        return f"{where}: an argument the schema does not have"
    if choice == "missing":
        arg = gen.pick(required)
        args.pop(arg, None)
        return f"{where}: required {arg} left out"
    if choice == "null_required":
        arg = gen.pick(required)
        args[arg] = "null"
        return f"{where}: required {arg} is null"
    if choice == "refused":
        arg = gen.pick(refused)
        args[arg] = gen.pick(PROVIDER_REFUSES[(type_name, arg)])
        return f"{where}: {arg} = {args[arg]}, which the provider refuses"
    if choice == "both":
        groups = _groups(type_name, block)
        first, second = gen.rng.sample([g for g in groups if not g[0].startswith("@")], 2)
        for arg in first + second:
            valid = VALID.get((type_name, arg))
            args[arg] = valid(gen) if valid else hcl_string("v")
        return f"{where}: {first[0]} and {second[0]} together"
    arg = gen.pick(list(attributes))
    args[arg] = gen.pick(DOES_NOT_CONVERT[_kind(attributes[arg]["type"])])
    return f"{where}: {arg} = {args[arg]}, which does not convert to {json.dumps(attributes[arg]['type'])}"


# -- running both tools ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What comparing one seed's plans found."""

    seed: int
    invalid: str | None
    terraform_code: int
    ctl_code: int
    differences: list[str]

    @property
    def agree(self) -> bool:
        return not self.differences


def _errors(output: str) -> str:
    """The error part of a tool's output (from its first ``Error``), or its end."""
    at = output.find("Error")
    return (output[at:] if at >= 0 else output)[-2500:]


class Planner:
    """Two initialised directories, one per tool, where one configuration after another is planned."""

    def __init__(self, root: Path, mirror: Path) -> None:
        from tests.e2e.helpers import Project
        from tests.plugin.terraform_cli import TerraformDir

        self.dirs = {tool: root / tool for tool in ("terraform", "ctl")}
        for work in self.dirs.values():
            work.mkdir(parents=True, exist_ok=True)
            (work / "main.tf").write_text(PREAMBLE)
        self.terraform = TerraformDir(self.dirs["terraform"], mirror)
        self.ctl = Project(self.dirs["ctl"])
        init = self.terraform.run("init", "-input=false", "-no-color", f"-plugin-dir={mirror}", expect=None)
        if init.returncode != 0:
            raise RuntimeError(f"terraform init failed:\n{init.output}")
        result = self.ctl.ctl("init", "-plugin-dir", str(mirror))
        if result.code != 0:
            raise RuntimeError(f"ctl init failed:\n{result}")
        schema_file = root / "schemas.json"
        if not schema_file.exists():
            schemas = self.terraform.run("providers", "schema", "-json", expect=None)
            if schemas.returncode != 0:
                raise RuntimeError(f"terraform providers schema failed:\n{schemas.output}")
            schema_file.write_text(schemas.stdout)
        self.schemas: dict[str, Any] = json.loads(schema_file.read_text())

    def _prepare(self, work: Path, config: str) -> None:
        shutil.rmtree(work / "out", ignore_errors=True)
        for plan in ("tfplan", "ctlplan"):
            (work / plan).unlink(missing_ok=True)
        for relative, text in INPUT_FILES.items():
            path = work / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for path in [*(work / "indir").rglob("*"), work / "indir", work / "input.txt"]:
            os.utime(path, (INPUT_MTIME, INPUT_MTIME))
        (work / "main.tf").write_text(config)

    def _terraform_plan(self) -> tuple[Any, dict[str, Any] | None]:
        result = self.terraform.run("plan", "-input=false", "-no-color", "-out=tfplan", expect=None)
        if result.returncode != 0:
            return result, None
        return result, json.loads(self.terraform.run("show", "-json", "tfplan").stdout)

    def _ctl_plan(self) -> tuple[Any, dict[str, Any] | str | None]:
        result = self.ctl.ctl("plan", "--out", "ctlplan", timeout=120)
        if result.code != 0:
            return result, None
        shown = self.ctl.ctl("show", "--json", "ctlplan")
        if shown.code != 0:
            return result, f"ctl show --json failed:\n{shown}"
        return result, json.loads(shown.stdout)

    def run(self, case: Case) -> Outcome:
        """Plan ``case`` with both tools and compare what they planned."""
        for work in self.dirs.values():
            self._prepare(work, case.config)
        # The two tools plan at once, each in its own directory (one core each).
        with ThreadPoolExecutor(max_workers=2) as pool:
            their_job = pool.submit(self._terraform_plan)
            our_job = pool.submit(self._ctl_plan)
            (theirs, their_doc), (ours, our_doc) = their_job.result(), our_job.result()
        differences: list[str] = []
        if "Traceback" in ours.stderr or "internal error" in ours.output:
            differences.append(f"ctl crashed:\n{ours.output[-3000:]}")
        if (theirs.returncode == 0) != (ours.code == 0):
            differences.append(
                f"terraform plan exited {theirs.returncode}, ctl plan {ours.code}\n"
                f"--- terraform ---\n{_errors(theirs.output)}\n--- ctl ---\n{_errors(ours.output)}")
        elif their_doc is not None and isinstance(our_doc, str):
            differences.append(our_doc)
        elif their_doc is not None and isinstance(our_doc, dict):
            differences += compare_plans(their_doc, our_doc, self.schemas)
        return Outcome(case.seed, case.invalid, theirs.returncode, ours.code, differences)


# Attributes whose values are drawn at random during plan, compared by type only.
RANDOM_AT_PLAN = {("null_data_source", "random")}
MASK = "(sensitive value)"


def _resources(module: Mapping[str, Any] | None) -> Iterator[Mapping[str, Any]]:
    """Every resource of a ``planned_values``/``prior_state`` module, child modules included."""
    if not module:
        return
    yield from module.get("resources", [])
    for child in module.get("child_modules", []):
        yield from _resources(child)


def _flags(shape: Any) -> Any:
    """An ``after_unknown``/``after_sensitive`` shape reduced to where it says ``true``.

    Terraform 1.0.3 writes ``{}`` or ``[false, …]`` for every known collection inside a value, ctl
    only where something inside is flagged; both say the same, so a part with no ``true`` becomes
    ``false`` (and is left out of an object).
    """
    if shape is True:
        return True
    if isinstance(shape, dict):
        kept = {key: flag for key, value in shape.items() if (flag := _flags(value)) is not False}
        return kept or False
    if isinstance(shape, list):
        items = [_flags(item) for item in shape]
        return items if any(item is not False for item in items) else False
    return False


def _masked(value: Any, sensitive: Any) -> Any:
    """``value`` as ctl shows it: every secret that is not null replaced by ``(sensitive value)``.

    Masking secrets in ``show --json`` is ctl's choice (the ``*_sensitive`` shapes still say where
    they were); Terraform prints them. The comparison masks Terraform's the same way.
    """
    if value is None:
        return None
    if sensitive is True:
        return MASK
    if isinstance(value, dict) and isinstance(sensitive, dict):
        return {key: _masked(item, sensitive.get(key)) for key, item in value.items()}
    if isinstance(value, list) and isinstance(sensitive, list):
        return [_masked(item, sensitive[index] if index < len(sensitive) else None)
                for index, item in enumerate(value)]
    return value


def _normalised(type_name: str, values: Any, sensitive: Any) -> Any:
    values = _masked(values, sensitive)
    if not isinstance(values, dict):
        return values
    return {name: (type(value).__name__ if (type_name, name) in RANDOM_AT_PLAN else value)
            for name, value in values.items()}


@dataclass
class _TypeFacts:
    """What the comparison needs of one type's schema."""

    sensitive: dict[str, bool]  # a sensitivity shape marking the attributes the schema calls sensitive
    sets: set[str]  # attributes and nested blocks that are sets


def _facts(schema_doc: Mapping[str, Any]) -> dict[tuple[str, str], _TypeFacts]:
    """(JSON mode, type) -> its facts."""
    out: dict[tuple[str, str], _TypeFacts] = {}
    for mode, type_name, block in _schemas(schema_doc):
        attributes = block.get("attributes", {})
        sets = {name for name, attr in attributes.items() if _kind(attr["type"]) == "set"}
        sets |= {name for name, nested in block.get("block_types", {}).items() if nested["nesting_mode"] == "set"}
        out[("managed" if mode == "resource" else "data", type_name)] = _TypeFacts(
            {name: True for name, attr in attributes.items() if attr.get("sensitive")}, sets)
    return out


def _with_schema_marks(shape: Any, facts: _TypeFacts | None) -> Any:
    """A top-level sensitivity shape with the schema's sensitive attributes marked as well.

    Terraform 1.0.3 marks every attribute its schema calls sensitive, null, unknown or known, in a
    plan's ``after_sensitive`` and none in ``sensitive_values``; ctl marks what holds a secret, in
    both. Whether a known secret is shown is compared on the values themselves, which are masked
    by these marks.
    """
    if facts is None or not facts.sensitive:
        return shape
    merged = dict(shape) if isinstance(shape, dict) else {}
    merged.update(facts.sensitive)
    return merged


def _sort_sets(facts: _TypeFacts | None, after: Any, unknown: Any, sensitive: Any) -> tuple[Any, Any, Any]:
    """The elements of every set attribute in one order on both sides, each with its flags.

    A set has no order; the order Terraform prints one holding unknown values in is its hashing's.
    """
    if facts is None or not isinstance(after, dict):
        return after, unknown, sensitive
    after = dict(after)
    unknown = dict(unknown) if isinstance(unknown, dict) else unknown
    sensitive = dict(sensitive) if isinstance(sensitive, dict) else sensitive
    for name in facts.sets:
        elements = after.get(name)
        if not isinstance(elements, list):
            continue
        flags_u = unknown.get(name) if isinstance(unknown, dict) else None
        flags_s = sensitive.get(name) if isinstance(sensitive, dict) else None
        if isinstance(flags_u, list):
            # Terraform 1.0.3 leaves a set's elements not known yet out of ``after`` (ctl writes null
            # there, as for a list); both flag them in ``after_unknown``. Compared: the known
            # elements, each with its flags, and how many are not known.
            wholly = [flag is True for flag in flags_u]
            if len(elements) == len(flags_u):
                elements = [e for e, gone in zip(elements, wholly, strict=True) if not gone]
            flags_u = [flag for flag in flags_u if flag is not True]
            if isinstance(flags_s, list) and len(flags_s) == len(wholly):
                flags_s = [flag for flag, gone in zip(flags_s, wholly, strict=True) if not gone]
            if any(wholly):
                after[f"{name} (elements not known)"] = sum(wholly)
        elif unknown is None:
            # ``planned_values`` has no flags: an element not known is null in ctl's, absent in Terraform's.
            elements = [element for element in elements if element is not None]
        triples = [(element,
                    _flags(flags_u[i]) if isinstance(flags_u, list) and i < len(flags_u) else False,
                    _flags(flags_s[i]) if isinstance(flags_s, list) and i < len(flags_s) else False)
                   for i, element in enumerate(elements)]
        triples.sort(key=lambda triple: json.dumps(triple, sort_keys=True))
        after[name] = [t[0] for t in triples]
        if isinstance(unknown, dict) and name in unknown:
            unknown[name] = [t[1] for t in triples]
        if isinstance(sensitive, dict) and name in sensitive:
            sensitive[name] = [t[2] for t in triples]
    return after, unknown, sensitive


def _tables(doc: Mapping[str, Any], facts: Mapping[tuple[str, str], _TypeFacts]) -> dict[str, dict[str, Any]]:
    """What is compared, as table -> address -> value."""
    tables: dict[str, dict[str, Any]] = {"actions": {}, "after": {}, "after_unknown": {},
                                         "after_sensitive": {}, "planned_values": {}, "read_at_plan": {}}
    for change in doc.get("resource_changes", []):
        address, detail = change["address"], change["change"]
        type_facts = facts.get((change["mode"], change["type"]))
        sensitive = _with_schema_marks(detail.get("after_sensitive"), type_facts)
        after, unknown, sensitive = _sort_sets(type_facts, detail.get("after"), detail.get("after_unknown"),
                                               sensitive)
        tables["actions"][address] = detail["actions"]
        tables["after"][address] = _normalised(change["type"], after, sensitive)
        tables["after_unknown"][address] = _flags(unknown)
        tables["after_sensitive"][address] = _flags(sensitive)
    # A resource's planned values and a data source read during plan: masked by the schema as well,
    # and with ``values`` left out (Terraform, when nothing is known yet) the same as ``{}``.
    prior = doc.get("prior_state", {}).get("values", {}).get("root_module")
    for table, module in (("planned_values", doc.get("planned_values", {}).get("root_module")),
                          ("read_at_plan", prior)):
        for resource in _resources(module):
            type_facts = facts.get((resource["mode"], resource["type"]))
            sensitive = _with_schema_marks(resource.get("sensitive_values"), type_facts)
            values, _, _ = _sort_sets(type_facts, resource.get("values", {}), None, None)
            tables[table][resource["address"]] = _normalised(resource["type"], values, sensitive)
    return tables


def _diff(path: str, theirs: Any, ours: Any, out: list[str]) -> None:
    if isinstance(theirs, dict) and isinstance(ours, dict):
        for key in sorted(set(theirs) | set(ours)):
            if key not in ours:
                out.append(f"{path}.{key}: terraform {json.dumps(theirs[key])}, ctl has none")
            elif key not in theirs:
                out.append(f"{path}.{key}: ctl {json.dumps(ours[key])}, terraform has none")
            else:
                _diff(f"{path}.{key}", theirs[key], ours[key], out)
    elif theirs != ours or type(theirs) is not type(ours):
        out.append(f"{path}: terraform {json.dumps(theirs)}, ctl {json.dumps(ours)}")


def compare_plans(theirs: Mapping[str, Any], ours: Mapping[str, Any], schema_doc: Mapping[str, Any]) -> list[str]:
    """Every difference between two ``show -json`` documents of saved plans, after normalising."""
    out: list[str] = []
    facts = _facts(schema_doc)
    their_tables, our_tables = _tables(theirs, facts), _tables(ours, facts)
    for table in their_tables:
        _diff(table, their_tables[table], our_tables[table], out)
    return out


def run_seeds(seeds: range, root: Path, mirror: Path, report: Callable[[Outcome], None] | None = None
              ) -> list[Outcome]:
    """Plan the configuration of every seed with both tools, in two directories initialised once."""
    planner = Planner(root, mirror)
    outcomes = []
    for seed in seeds:
        outcome = planner.run(generate(seed, planner.schemas))
        outcomes.append(outcome)
        if report is not None:
            report(outcome)
    return outcomes


def main(argv: list[str]) -> int:
    """``make generated N=300 [FIRST=0]``: every disagreement with its seed, then a summary."""
    count = int(argv[0]) if argv else 100
    first = int(argv[1]) if len(argv) > 1 else 0
    from tests.e2e.helpers import REPO

    mirror = REPO.parent / "shared" / "providers"
    if not mirror.is_dir():
        print(f"the real providers mirror {mirror} is missing", file=sys.stderr)
        return 1

    def report(outcome: Outcome) -> None:
        invalid = f" (invalid on purpose: {outcome.invalid})" if outcome.invalid else ""
        if outcome.agree:
            print(f"seed {outcome.seed}: agree, exit {outcome.terraform_code}{invalid}", flush=True)
            return
        print(f"seed {outcome.seed}: DISAGREE{invalid}", flush=True)
        for difference in outcome.differences:
            print("  " + difference.replace("\n", "\n    "), flush=True)

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ctl-generated-") as root:
        outcomes = run_seeds(range(first, first + count), Path(root), mirror, report)
    agreed = [o for o in outcomes if o.agree]
    failing = [o for o in outcomes if o.terraform_code != 0]
    print(f"\n{len(outcomes)} configurations in {time.monotonic() - started:.0f}s: {len(agreed)} agree, "
          f"{len(outcomes) - len(agreed)} disagree; Terraform refused {len(failing)} "
          f"({sum(1 for o in failing if o.invalid)} invalid on purpose)")
    disagreeing = [o.seed for o in outcomes if not o.agree]
    if disagreeing:
        print("reproduce one with: .venv/bin/python -m tests.real_providers.generated 1 SEED; seeds: "
              + " ".join(map(str, disagreeing)))
    return 0 if not disagreeing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
