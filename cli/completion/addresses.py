"""The instance addresses of a state file read as plain JSON, with an interrupted apply's journal on top.

The journal is replayed into the state by the next command that loads it, so completion shows what
that command will see: created instances added, deleted ones gone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_INDEX = re.compile(r"\[(\d+)\]")


def address_order(address: str) -> tuple[bool, str]:
    """Root module first (as ``state list`` prints), then by text with ``[2]`` before ``[10]``."""
    return address.startswith("module."), _INDEX.sub(lambda m: f"[{int(m.group(1)):012d}]", address)


def addresses(path: Path) -> list[str]:
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
    return sorted(found, key=address_order)


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
