"""Which file holds the default workspace's state, found by scanning the configuration as text.

Loading the configuration would cost a Tab press far too much, so the backend block is looked for
with regular expressions (HCL) or a plain parse (JSON, YAML); only the local backend is followed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# A mirror of backends.local.store (importing it would slow every Tab press; see bench/startup.py).
STATE_FILE = "ctl.tfstate"

_CONFIG_SUFFIXES = (".tf", ".tf.json", ".yaml", ".yml")
_HCL_LOCAL_BACKEND = re.compile(r'backend\s+"local"\s*\{([^}]*)\}', re.S)
_HCL_BACKEND_TYPE = re.compile(r'backend\s+"([^"]+)"')
_HCL_PATH = re.compile(r'\bpath\s*=\s*"([^"$]*)"')


def default_state_file(root: Path) -> Path | None:
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
    return root / STATE_FILE


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
