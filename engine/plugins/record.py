"""``.ctl/plugins.json``: what ``ctl init`` chose, for every later command.

One entry per provider served by a plugin (local name, source, version, constraints it was chosen
for, executable, its SHA-256, size and mtime, and its protocol when init knew it: null when the
binary's schema had not been read yet, since init starts no provider); such a provider is served by
its plugin alone. Also the plugin directories and the native-adapter switch init ran with (``true``, ``false``
or ``null`` when not given: see ``selection``), so a later plain ``ctl init`` keeps them. Records
written when a plugin could share a provider with its native adapter list ``handed_over`` types;
the key is read and ignored, since the plugin now serves every type of its provider.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vocab.errors import CtlError

RECORD_FILE = Path(".ctl") / "plugins.json"
_RETIRED = frozenset({"handed_over"})  # keys older records have that no longer mean anything


@dataclass(frozen=True)
class PluginEntry:
    local_name: str
    source: str
    version: str
    constraints: str
    executable: str
    sha256: str
    size: int
    mtime_ns: int
    protocol: int | None = None


@dataclass
class PluginRecord:
    plugin_dirs: list[str] = field(default_factory=list)
    native: bool | None = None  # -native=true/false as init ran with it; None: the default rule
    providers: list[PluginEntry] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"


def read_record(root_dir: Path) -> PluginRecord | None:
    """What init recorded, or None; a damaged file is an error that says how to mend it."""
    path = root_dir / RECORD_FILE
    try:
        raw: Any = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CtlError(f"cannot read {path}: {exc}", hint="Run `ctl init` again to rewrite it.") from None
    try:
        return PluginRecord(
            plugin_dirs=[str(d) for d in raw.get("plugin_dirs", [])],
            native=None if raw.get("native") is None else bool(raw["native"]),
            providers=[PluginEntry(**{k: v for k, v in entry.items() if k not in _RETIRED})
                       for entry in raw.get("providers", [])],
        )
    except (AttributeError, TypeError) as exc:
        raise CtlError(f"{path} is not a plugin record written by ctl init ({exc})",
                       hint="Run `ctl init` again to rewrite it.") from None


def write_record(root_dir: Path, record: PluginRecord) -> None:
    path = root_dir / RECORD_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(record.to_json())
    tmp.replace(path)
