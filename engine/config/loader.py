"""Loading a configuration directory (and its local child modules) into the model.

All ``*.tf``, ``*.tf.json``, ``*.yaml`` and ``*.yml`` files of a directory form one module, read
in name order so diagnostics come out in a stable order. Each file is parsed on its own: a syntax
error in one file is reported together with the problems of the others.
"""

from __future__ import annotations

from pathlib import Path

from engine.config.decode import FILE_SCHEMA, ModuleDecoder
from engine.config.model import Module
from engine.config.structured import parse_json_file, parse_yaml_file
from engine.config.syntax import Body
from engine.errors import CtlError, Diagnostics
from engine.lang.hcl import parse_hcl_file

_SUFFIXES = (".tf", ".tf.json", ".yaml", ".yml")


def config_files(directory: Path) -> list[Path]:
    """The files that make up the module in ``directory`` (never ``*.tfvars*``)."""
    out = []
    for p in sorted(directory.iterdir()):
        name = p.name
        if not p.is_file() or name.startswith("."):
            continue
        if ".tfvars" in name:
            continue
        if name.endswith(_SUFFIXES):
            out.append(p)
    return out


def parse_file(path: Path, display: str) -> Body:
    """Parse one file by its suffix; syntax errors raise ``DiagnosticsError`` with positions."""
    src = path.read_bytes()
    name = path.name
    if name.endswith(".tf.json"):
        return parse_json_file(src, display, FILE_SCHEMA)
    if name.endswith((".yaml", ".yml")):
        return parse_yaml_file(src, display, FILE_SCHEMA)
    return parse_hcl_file(src, display)


def load_module(directory: Path, root: Path, diags: Diagnostics) -> Module:
    """Load the module in ``directory``; file names in diagnostics are relative to ``root``."""
    module = Module(dir=directory)
    decoder = ModuleDecoder(module, diags)
    for path in config_files(directory):
        display = _display(path, root)
        module.files.append(display)
        try:
            body = parse_file(path, display)
        except CtlError as err:
            diags.add(err)
            continue
        decoder.add_file(body)
    return module


def load_config(root: Path, diags: Diagnostics | None = None) -> tuple[Module, Diagnostics]:
    """Load the root module in ``root`` and every local module it calls, recursively."""
    diags = diags if diags is not None else Diagnostics()
    root = root.resolve()
    if not root.is_dir():
        raise CtlError(f"Configuration directory {root} does not exist", hint="Check --chdir.")
    module = load_module(root, root, diags)
    if not module.files:
        diags.error(
            f"No configuration files in {root}",
            hint="Write *.tf, *.tf.json or *.yaml files there, or point --chdir at them.",
        )
    _load_children(module, root, diags, (root,))
    return module, diags


def _load_children(module: Module, root: Path, diags: Diagnostics, stack: tuple[Path, ...]) -> None:
    for name, call in module.module_calls.items():
        source = call.source
        if not source.startswith(("./", "../")):
            diags.error(
                f'Module source "{source}" is not supported yet',
                detail="Only local module sources (./path or ../path) can be used today.",
                range=call.source_rng,
            )
            continue
        child_dir = (module.dir / source).resolve()
        if not child_dir.is_dir():
            diags.error(f'Module directory "{source}" does not exist', range=call.source_rng)
            continue
        if child_dir in stack:
            diags.error(f'Module "{name}" calls itself through "{source}"', range=call.source_rng)
            continue
        child = load_module(child_dir, root, diags)
        if not child.files:
            diags.error(f'Module directory "{source}" has no configuration files', range=call.source_rng)
        module.children[name] = child
        _load_children(child, root, diags, (*stack, child_dir))


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
