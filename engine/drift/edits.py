"""What adopting a drifted value does to a file, shared by the HCL editor (``adopt``) and the JSON
one (``adopt_json``): the edits and notes they make, and the wording both use for where a value
comes from."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config.model import Module
from engine.drift.detect import MASK, AttributeDrift, PathPart, literal
from engine.schema import read_only
from vocab.values import Marked


@dataclass
class Edit:
    """Characters ``[start:end)`` of ``file`` become ``text``: one drifted value adopted."""

    file: Path
    start: int
    end: int
    text: str
    address: str
    name: str
    line: int
    shown: str  # the new value as the report shows it (masked when sensitive)
    sensitive: bool = False
    masked_text: str = ""  # ``text`` with the value masked, for a sensitive edit's patch on screen


@dataclass
class Note:
    """A drifted value not written, and why; ``remains`` when the next plan will still show it."""

    address: str
    name: str
    message: str
    remains: bool = True


def variable_sources(module: Module, root_dir: Path, name: str) -> str:
    """Everywhere a root variable's value may be set: its default, tfvars lines, the environment."""
    found: list[str] = []
    var = module.variables.get(name)
    if var is not None and var.default is not None:
        found.append(f"default at {display(Path(var.default.rng.filename), root_dir, module.dir)}:"
                     f"{var.default.rng.start.line}")
    elif var is not None:
        found.append(f"declared at {display(Path(var.rng.filename), root_dir, module.dir)}:{var.rng.start.line}")
    if module.dir.resolve() == root_dir.resolve():
        pattern = re.compile(rf"^\s*{re.escape(name)}\s*=")
        files = [root_dir / "terraform.tfvars", *sorted(root_dir.glob("*.auto.tfvars"))]
        for f in files:
            if not f.is_file():
                continue
            for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if pattern.match(line):
                    found.append(f"set at {f.name}:{n}")
        for env in (f"CTL_VAR_{name}", f"TF_VAR_{name}"):
            if env in os.environ:
                found.append(f"set by ${env}")
    else:
        found.append("set by the module call's argument")
    return "; ".join(found) or "no default"


def computed_only(rt: Any, name: str) -> bool:
    """Whether ``name`` is an attribute only the provider sets (no configuration can adopt it)."""
    return rt is not None and read_only(rt, name)


def raw(value: Any, path: tuple[PathPart, ...] | list[PathPart]) -> Any:
    """The unmarked value at ``path`` (None where it is absent)."""
    for part in path:
        if isinstance(value, Marked):
            value = value.value
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return None
    return value.value if isinstance(value, Marked) else value


def shown(a: AttributeDrift) -> str:
    return MASK if a.sensitive else literal(a.after)


def display(file: Path, root_dir: Path, module_dir: Path | None = None) -> str:
    if not file.is_absolute():
        file = (module_dir or root_dir) / file if not (root_dir / file).exists() else root_dir / file
    try:
        return os.path.relpath(file.resolve(), Path.cwd())
    except ValueError:
        return str(file)
