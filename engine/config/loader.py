"""Loading a configuration directory (and its local child modules) into the model.

All ``*.tf``, ``*.tf.json``, ``*.tf.yaml`` and ``*.tf.yml`` files of a directory form one module,
read in name order so diagnostics come out in a stable order. Each file is parsed on its own: a
syntax error in one file is reported together with the problems of the others.

YAML specs carry the ``.tf`` infix, as JSON ones do, because module directories are full of other
YAML (Kubernetes manifests, CI files, Helm values) that Terraform ignores and so must ctl. A plain
``*.yaml`` that looks like a spec (only configuration blocks at its top level) is named in a warning
with the new name to give it, so a configuration written before the rule does not silently lose
resources.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from engine.config.decode import ModuleDecoder
from engine.config.json_syntax import parse_json_file
from engine.config.language import FILE_SCHEMA
from engine.config.model import Module
from engine.config.parse_ahead import ParseAhead, Unit
from engine.config.parse_cache import ParseCache
from engine.config.structured import parse_yaml_file
from engine.lang.hcl import (
    Part,
    check_hcl_size,
    hcl_parts,
    join_parts,
    parse_hcl_file,
    parse_hcl_part,
    parts_failed,
)
from engine.lang.syntax import Body
from vocab.errors import CtlError, Diagnostic, Diagnostics, DiagnosticsError
from vocab.limits import MAX_NESTING
from vocab.positions import Pos, SourceRange
from vocab.regular_file import is_regular, read_regular

_SUFFIXES = (".tf", ".tf.json", ".tf.yaml", ".tf.yml")
_OTHER_YAML = (".yaml", ".yml")
_PLAIN_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SPEC_SIZE_LIMIT = 1 << 20  # a larger plain YAML file is not looked into for the warning


def config_files(directory: Path) -> list[Path]:
    """The files that make up the module in ``directory`` (never ``*.tfvars*``)."""
    out = []
    for p in sorted(directory.iterdir()):
        name = p.name
        if name.startswith(".") or not is_regular(p):  # a FIFO named x.tf would block the read
            continue
        if ".tfvars" in name:
            continue
        if name.endswith(_SUFFIXES):
            out.append(p)
    return out


def _spec_lookalikes(directory: Path) -> list[Path]:
    """Plain ``*.yaml``/``*.yml`` files whose top level is made only of configuration block names."""
    found = []
    for p in sorted(directory.iterdir()):
        if not p.name.endswith(_OTHER_YAML) or p.name.endswith(_SUFFIXES) or p.name.startswith("."):
            continue
        try:
            document = yaml.load(read_regular(p, _SPEC_SIZE_LIMIT), Loader=_PLAIN_LOADER)
        except (OSError, yaml.YAMLError, ValueError, RecursionError):
            continue  # not readable as one document: certainly not a spec
        if isinstance(document, dict) and document and set(document) <= FILE_SCHEMA.blocks.keys():
            found.append(p)
    return found


def parse_file(path: Path, display: str, src: bytes, cache: ParseCache | None = None, part: Part | None = None) -> Body:
    """Parse one file's bytes by its suffix; syntax errors raise ``DiagnosticsError`` with positions.

    Every file goes through ``cache`` when one is given: parsing is most of what a command does
    with a large configuration, and generated ones (``main.tf.json``, ``main.tf.yaml``) are often
    one large file, kept in pieces (``ParseCache.parse_in_pieces``). ``part``, for a large HCL
    file, is the part of it to parse (``hcl_parts``); the whole file when None.
    """
    name = path.name
    if part is not None:
        parse = partial(parse_hcl_part, part=part)
        return cache.parse(src, display, parse, part) if cache is not None else parse(src, display)
    if name.endswith(".tf.json"):
        try:
            return cache.parse_in_pieces(src, display, _parse_json) if cache is not None else _parse_json(src, display)
        except RecursionError:
            raise _too_deep(src, display) from None
    if name.endswith((".tf.yaml", ".tf.yml")):
        return cache.parse_in_pieces(src, display, _parse_yaml) if cache is not None else _parse_yaml(src, display)
    if cache is not None:
        return cache.parse(src, display, parse_hcl_file)
    return parse_hcl_file(src, display)


def _parse_json(src: bytes, display: str) -> Body:
    return parse_json_file(src, display, FILE_SCHEMA)


def _parse_yaml(src: bytes, display: str) -> Body:
    return parse_yaml_file(src, display, FILE_SCHEMA)


def _too_deep(src: bytes, display: str) -> DiagnosticsError:
    """The error for JSON nested deeper than the reader can follow, at the bracket that goes too deep.

    The configuration reader refuses values nested over ``MAX_NESTING`` levels anyway, so the
    position named is the first bracket past that depth (strings skipped).
    """
    depth, line, column, in_string, escaped, at = 0, 1, 0, False, False, 0
    for offset, byte in enumerate(src):
        at = offset
        column += 1
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_NESTING + 1:  # the top-level object is not a value
                break
        elif byte in (0x5D, 0x7D):
            depth -= 1
        if byte == 0x0A:
            line, column = line + 1, 0
        elif 0x80 <= byte < 0xC0:
            column -= 1  # a UTF-8 continuation byte is part of the character before it
    pos = Pos(line, max(column, 1), at)
    return DiagnosticsError([Diagnostic(
        "error", "Value nested too deeply",
        detail=f"Lists and objects may be nested at most {MAX_NESTING} levels deep (MAX_NESTING); this one "
               "goes deeper here.",
        range=SourceRange(display, pos, pos),
    )])


def load_module(directory: Path, root: Path, diags: Diagnostics, cache: ParseCache | None = None) -> Module:
    """Load the module in ``directory``; file names in diagnostics are relative to ``root``."""
    module = Module(dir=directory)
    decoder = ModuleDecoder(module, diags)
    for path in _spec_lookalikes(directory):
        display = _display(path, root)
        renamed = path.name[: -len(path.suffix)] + ".tf" + path.suffix
        diags.warning(
            f"{display} is not read: YAML specs are named *.tf.yaml or *.tf.yml",
            detail="Other YAML files (Kubernetes manifests, CI files) are ignored, as Terraform ignores "
                   "them; this one holds configuration blocks only, so it looks like a spec.",
            hint=f"Rename it to {renamed} if it is one.",
        )
    # Each file read once: a large directory's bytes are hashed to see what is cached before parsing.
    files: list[tuple[Path, str, bytes]] = []
    for path in config_files(directory):
        display = _display(path, root)
        try:
            files.append((path, display, read_regular(path)))
        except OSError as exc:  # replaced by a pipe or device since listed, grown past the limit, unreadable
            diags.error(f"Cannot read {display}: {exc.strerror or exc}",
                        hint="Configuration files must be regular files.")
    units, owners, refused = _units(files)
    ahead = None
    if cache is not None:
        ahead = ParseAhead.start(cache, units)  # a second core for a large directory, or a large file
        if ahead is not None:
            cache.hold_writes()  # written while the command goes on (``load_config``)
    try:
        parsed = _parse_all(units, cache, ahead)
    finally:
        if ahead is not None:
            ahead.finish()
    by_file: list[list[Body | CtlError]] = [[] for _ in files]
    for owner, result in zip(owners, parsed, strict=True):
        by_file[owner].append(result)
    for index, (path, display, src) in enumerate(files):  # in name order, whoever parsed it
        module.files.append(display)
        result = refused.get(index) or _joined(path, display, src, by_file[index])
        if isinstance(result, CtlError):
            diags.add(result)
        else:
            decoder.add_file(result)
    return module


def _units(files: list[tuple[Path, str, bytes]]) -> tuple[list[Unit], list[int], dict[int, CtlError]]:
    """What to parse: each file, or each part of a large HCL file (``hcl_parts``); the index of
    the file each unit is of; and the files refused before parsing (over an opt-in ceiling)."""
    units: list[Unit] = []
    owners: list[int] = []
    refused: dict[int, CtlError] = {}
    for index, (path, display, src) in enumerate(files):
        parts: list[Part | None] = [None]
        if path.name.endswith(".tf"):
            try:
                check_hcl_size(src, display)
            except CtlError as err:
                refused[index] = err
                continue
            found = hcl_parts(src)
            if found is not None:
                parts = [*found]
        for part in parts:
            units.append((path, display, src, part))
            owners.append(index)
    return units, owners, refused


def _joined(path: Path, display: str, src: bytes, results: list[Body | CtlError]) -> Body | CtlError:
    """A file's body from its parts' results (one result: the file's own)."""
    if len(results) == 1:
        return results[0]
    problems = [d for r in results if isinstance(r, CtlError) for d in r.diagnostics()]
    if problems:
        return parts_failed(src, display, problems)
    return join_parts([r for r in results if isinstance(r, Body)], src, display)


def _parse_all(units: list[Unit], cache: ParseCache | None, ahead: ParseAhead | None) -> list[Body | CtlError]:
    """Each unit's tree, or the error that stopped it. This process takes the units from the first
    up; with a helper taking them from the last down, it reads each unit the helper has finished
    back from the cache between its own, and stops where the two meet."""
    out: list[Body | CtlError | None] = [None] * len(units)

    def parse(index: int) -> None:
        path, display, src, part = units[index]
        try:
            out[index] = parse_file(path, display, src, cache, part)
        except CtlError as err:
            out[index] = err

    for index in range(len(units)):
        if out[index] is None:
            if ahead is not None:
                ahead.claim(index)
            parse(index)
        if ahead is not None:
            for finished in ahead.finished():
                if out[finished] is None:  # both sides may have started the same unit
                    parse(finished)
    return [result for result in out if result is not None]  # every one is set by now


@dataclass(frozen=True)
class ModuleLoaded:
    """One module's directory read and parsed: which, how many files, when (``perf_counter()``).

    Kept for the trace of a run (one span per module), so a slow load shows which module it was.
    """

    address: str  # "" for the root module, module.NAME[.module.NAME …] for a called one
    directory: str  # relative to the root module's directory ("." for the root itself)
    files: int
    start: float
    end: float


def load_config(root: Path, diags: Diagnostics | None = None,
                loads: list[ModuleLoaded] | None = None) -> tuple[Module, Diagnostics]:
    """Load the root module in ``root`` and every local module it calls, recursively.

    Parsed files are kept in the root's parse cache (``engine.config.parse_cache``). Given
    ``loads``, each module's loading is appended to it as it ends.
    """
    diags = diags if diags is not None else Diagnostics()
    root = root.resolve()
    if not root.is_dir():
        raise CtlError(f"Configuration directory {root} does not exist", hint="Check --chdir.")
    cache = ParseCache(root) if ParseCache.enabled() else None
    started = time.perf_counter()
    module = load_module(root, root, diags, cache)
    if loads is not None:
        loads.append(ModuleLoaded("", ".", len(module.files), started, time.perf_counter()))
    if not module.files:
        diags.error(
            f"No configuration files in {root}",
            hint="Write *.tf, *.tf.json or *.tf.yaml files there, or point --chdir at them.",
        )
    _load_children(module, root, diags, (root,), cache, loads, "")
    if cache is not None:
        cache.prune()
        cache.write_held()
    return module, diags


def _load_children(
    module: Module, root: Path, diags: Diagnostics, stack: tuple[Path, ...], cache: ParseCache | None,
    loads: list[ModuleLoaded] | None = None, address: str = "",
) -> None:
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
        started = time.perf_counter()
        child = load_module(child_dir, root, diags, cache)
        child_address = f"{address}.module.{name}" if address else f"module.{name}"
        if loads is not None:
            loads.append(ModuleLoaded(child_address, _display(child_dir, root), len(child.files), started,
                                      time.perf_counter()))
        if not child.files:
            diags.error(f'Module directory "{source}" has no configuration files', range=call.source_rng)
        module.children[name] = child
        _load_children(child, root, diags, (*stack, child_dir), cache, loads, child_address)


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
