"""Tab completion: answering the shell quickly, and the values only the state knows.

The shell runs ``ctl`` on every Tab press, so this module must stay cheap. Addresses come from the
state file read as plain JSON (plus the journal an interrupted apply left behind), never from
loading the configuration or the state engine, and workspace names come from a directory listing.
The few facts this duplicates from the engine (file names, where the selected workspace is
recorded) are checked against the engine by the tests.

``answer`` serves click's completion protocol under ``_CTL_COMPLETE``. It accepts click's spelling
(``bash_source``, ``bash_complete``), which the generated scripts use, and Typer's older one
(``source_bash``), which the Makefile uses; Typer itself only understands the latter, so the
scripts it would generate could never get an answer.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click
from click.shell_completion import BashComplete, CompletionItem, FishComplete, ShellComplete, ZshComplete

COMPLETE_VAR = "_CTL_COMPLETE"

# Mirrors of backends.local and engine.session (importing them would cost a Tab press ~80 ms).
_STATE_FILE = "ctl.tfstate"
_WORKSPACES_DIR = "ctl.tfstate.d"
_ENVIRONMENT_FILE = Path(".ctl") / "environment"
_DEFAULT_WORKSPACE = "default"

_CONFIG_SUFFIXES = (".tf", ".tf.json", ".yaml", ".yml")
_HCL_LOCAL_BACKEND = re.compile(r'backend\s+"local"\s*\{([^}]*)\}', re.S)
_HCL_BACKEND_TYPE = re.compile(r'backend\s+"([^"]+)"')
_HCL_PATH = re.compile(r'\bpath\s*=\s*"([^"$]*)"')
_SAFE_FOR_BASH = re.compile(r"[\w.\-\[\]/:@%+=,]*")
_INDEX = re.compile(r"\[(\d+)\]")


class _BashComplete(BashComplete):
    """Bash, with values quoted when the shell would otherwise mangle them.

    A for_each address such as ``module.net["a"].aws_s3_bucket.b`` loses its quotes if bash
    inserts it bare, so such values are offered single-quoted, ready to run.
    """

    def format_completion(self, item: CompletionItem) -> str:
        value = str(item.value)
        if item.type == "plain" and not _SAFE_FOR_BASH.fullmatch(value):
            value = shlex.quote(value)
        return f"{item.type},{value}"


_SHELLS: dict[str, type[ShellComplete]] = {"bash": _BashComplete, "zsh": ZshComplete, "fish": FishComplete}


def answer(command: click.Command, instruction: str, prog_name: str = "ctl") -> int:
    """Print a shell's completion script or the completions for the words in the environment."""
    first, _, second = instruction.partition("_")
    shell, action = (second, first) if first in ("source", "complete") else (first, second)
    shell_class = _SHELLS.get(shell)
    if shell_class is None or action not in ("source", "complete"):
        click.echo(f"Unsupported completion instruction {instruction!r}: expected bash_source, bash_complete, "
                   "zsh_source, zsh_complete, fish_source or fish_complete.", err=True)
        return 1
    completer = shell_class(command, {}, prog_name, COMPLETE_VAR)
    if action == "source":
        click.echo(completer.source(), nl=False)
    else:
        click.echo(completer.complete())
    return 0


# -- completers (Typer ``autocompletion=`` callbacks) ------------------------------------------------


def complete_instances(ctx: click.Context, incomplete: str) -> list[str]:
    """Resource instance addresses in the state: for ``state show`` and ``--replace``."""
    return _matching(_instances(ctx), incomplete)


def complete_addresses(ctx: click.Context, incomplete: str) -> list[str]:
    """Instances, plus whole resources and modules: for ``state rm/mv/list``, ``--target``, ``--exclude``."""
    return _matching(_with_containers(_instances(ctx)), incomplete)


def complete_workspaces(ctx: click.Context, incomplete: str) -> list[str]:
    """Workspaces one could switch to: every existing one but the selected one."""
    try:
        root = _root(ctx)
        current = _selected_workspace(root)
        return _matching((n for n in _workspaces(root) if n != current), incomplete)
    except Exception:  # a Tab press must never print a traceback into the user's command line
        return []


def complete_deletable_workspaces(ctx: click.Context, incomplete: str) -> list[str]:
    """Workspaces ``workspace delete`` accepts: never ``default`` nor the selected one."""
    return [n for n in complete_workspaces(ctx, incomplete) if n != _DEFAULT_WORKSPACE]


# -- where things are ---------------------------------------------------------------------------------


def _matching(values: Iterable[str], incomplete: str) -> list[str]:
    return [v for v in values if v.startswith(incomplete)]


def _address_order(address: str) -> tuple[bool, str]:
    """Root module first (as ``state list`` prints), then by text with ``[2]`` before ``[10]``."""
    return address.startswith("module."), _INDEX.sub(lambda m: f"[{int(m.group(1)):012d}]", address)


def _root(ctx: click.Context) -> Path:
    """The configuration directory, honouring ``--chdir`` (parsed, but its callback never ran)."""
    chdir = ctx.find_root().params.get("chdir") or "."
    return (Path.cwd() / Path(chdir)).resolve()


def _selected_workspace(root: Path) -> str:
    env = os.environ.get("CTL_WORKSPACE") or os.environ.get("TF_WORKSPACE")
    if env:
        return env
    try:
        return (root / _ENVIRONMENT_FILE).read_text().strip() or _DEFAULT_WORKSPACE
    except OSError:
        return _DEFAULT_WORKSPACE


def _default_state_file(root: Path) -> Path | None:
    """Where the default workspace's state is: ``ctl.tfstate`` or the local backend's ``path``.

    None for a remote backend: asking it would take far longer than a Tab press may.
    """
    for file in sorted(root.iterdir()):
        name = file.name
        if not name.endswith(_CONFIG_SUFFIXES) or ".tfvars" in name or name.startswith("."):
            continue
        try:
            text = file.read_text(errors="replace")
        except OSError:
            continue
        if "backend" not in text:
            continue
        kind, path = _backend_in(name, text)
        if kind is None:
            continue
        if kind != "local":
            return None
        if path:
            configured = Path(path)
            return configured if configured.is_absolute() else root / configured
    return root / _STATE_FILE


def _backend_in(name: str, text: str) -> tuple[str | None, str | None]:
    """(backend type, local path) declared in one configuration file, if it declares one."""
    if name.endswith(".tf"):
        kind = _HCL_BACKEND_TYPE.search(text)
        if kind is None:
            return None, None
        block = _HCL_LOCAL_BACKEND.search(text)
        found = _HCL_PATH.search(block.group(1)) if block else None
        return kind.group(1), found.group(1) if found else None
    try:
        if name.endswith(".json"):
            doc = json.loads(text)
        else:
            import yaml

            doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:
        return None, None
    blocks = doc.get("terraform") if isinstance(doc, dict) else None
    for block in blocks if isinstance(blocks, list) else [blocks]:
        backend = block.get("backend") if isinstance(block, dict) else None
        if isinstance(backend, dict) and backend:
            kind, settings = next(iter(backend.items()))
            path = settings.get("path") if isinstance(settings, dict) else None
            return str(kind), path if isinstance(path, str) else None
    return None, None


def _state_file(root: Path) -> Path | None:
    default = _default_state_file(root)
    workspace = _selected_workspace(root)
    if default is None or workspace == _DEFAULT_WORKSPACE:
        return default
    return default.parent / _WORKSPACES_DIR / workspace / default.name


def _workspaces(root: Path) -> list[str]:
    default = _default_state_file(root)
    if default is None:
        return []
    folder = default.parent / _WORKSPACES_DIR
    names = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return [_DEFAULT_WORKSPACE, *[n for n in names if n != _DEFAULT_WORKSPACE]]


# -- addresses ---------------------------------------------------------------------------------------


def _instances(ctx: click.Context) -> list[str]:
    """Every current instance address of the selected workspace's state; [] on any problem."""
    try:
        path = _state_file(_root(ctx))
        if path is None:
            return []
        return _addresses(path)
    except Exception:  # a Tab press must never print a traceback into the user's command line
        return []


def _addresses(path: Path) -> list[str]:
    try:
        doc: dict[str, Any] = json.loads(path.read_bytes() or b"{}")
    except (OSError, ValueError):
        doc = {}
    found: dict[str, None] = {}
    for res in doc.get("resources") or []:
        prefix = ("data." if res.get("mode") == "data" else "") + f"{res.get('type')}.{res.get('name')}"
        module = res.get("module") or ""
        for inst in res.get("instances") or []:
            if inst.get("deposed"):
                continue
            found[f"{module + '.' if module else ''}{prefix}{_key(inst.get('index_key'))}"] = None
    _overlay_journal(found, path, doc)
    return sorted(found, key=_address_order)


def _overlay_journal(found: dict[str, None], path: Path, doc: dict[str, Any]) -> None:
    """Add what an interrupted apply created and drop what it deleted (its journal is replayed later)."""
    try:
        lines = path.with_name(path.name + ".journal").read_bytes().splitlines()
    except OSError:
        return
    serial = doc.get("serial", 0)
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("kind") != "result" or entry.get("failed") or entry.get("deposed"):
            continue
        if entry.get("lineage") not in (None, doc.get("lineage")) or entry.get("serial", serial) < serial:
            continue
        address = entry.get("address")
        if not isinstance(address, str):
            continue
        if entry.get("op") == "delete":
            found.pop(address, None)
        else:
            found[address] = None


def _key(key: object) -> str:
    """``[0]``, ``["a"]`` or nothing, as ``engine.state.address.format_key`` writes it."""
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    return "[" + json.dumps(key, ensure_ascii=False) + "]"


def _with_containers(instances: list[str]) -> list[str]:
    """The instances with the resources (of several instances) and modules that contain them."""
    out: dict[str, None] = dict.fromkeys(instances)
    for address in instances:
        for container in _containers(address):
            out.setdefault(container, None)
    return sorted(out, key=_address_order)


def _containers(address: str) -> list[str]:
    """``module.a["x"].t.n[0]`` → ``module.a["x"].t.n``, ``module.a["x"]``, ``module.a``."""
    parts = _split_steps(address)
    out = []
    if parts and parts[-1].startswith("["):
        out.append("".join(parts[:-1]))
    out.extend("".join(parts[:i]) for i in range(len(parts) - 1, 0, -1) if _ends_a_module(parts, i))
    return out


def _split_steps(address: str) -> list[str]:
    """Split an address into ``name`` / ``.name`` / ``[key]`` steps (keys may contain dots)."""
    steps: list[str] = []
    i = 0
    while i < len(address):
        if address[i] == "[":
            end = i + 1
            if end < len(address) and address[end] == '"':
                end += 1
                while end < len(address) and address[end] != '"':
                    end += 2 if address[end] == "\\" else 1
            end = address.find("]", end)
            end = len(address) if end < 0 else end + 1
        else:
            end = i + 1
            while end < len(address) and address[end] not in ".[":
                end += 1
        steps.append(address[i:end])
        i = end
    return steps


def _ends_a_module(parts: list[str], i: int) -> bool:
    """Whether ``parts[:i]`` is a module path: ``module`` ``.name`` optionally ``[key]``, repeated."""
    j = 0
    while j < i:
        if parts[j].lstrip(".") != "module" or j + 1 >= i or not parts[j + 1].startswith("."):
            return False
        j += 2
        if j < i and parts[j].startswith("["):
            j += 1
    return j == i
