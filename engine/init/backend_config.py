"""``ctl init --backend-config``: settings for the backend block, from the command line or from files.

The arguments are merged in order, later ones winning, as Terraform merges them; secrets given this
way are not recorded in ``.ctl/backend.json``, and ``init`` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.config.json_syntax import parse_json_file
from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax import EMPTY_SCHEMA
from engine.session import constant_settings, is_secret_setting
from vocab.errors import CtlError, UsageError


def parse_backend_config(items: list[str], root_dir: Path) -> dict[str, Any]:
    """Merge ``--backend-config`` arguments in order: ``NAME=VALUE`` pairs and HCL (or JSON) files.

    As with Terraform, an argument with ``=`` is a pair unless a file of that name exists; a file is
    looked up from the working directory, then from the configuration directory.
    """
    merged: dict[str, Any] = {}
    for item in items:
        path = Path(item).expanduser()
        candidates = [path] if path.is_absolute() else [path, root_dir / path]
        found = next((p for p in candidates if p.is_file()), None)
        if found is not None:
            merged.update(_settings_file(found))
            continue
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f'--backend-config "{item}": no such file, and not NAME=VALUE',
                             hint="Give a file of backend settings, or NAME=VALUE (repeat the option for more).")
        if not name.strip():
            raise UsageError(f'--backend-config "{item}": the setting name is empty')
        merged[name.strip()] = value
    return merged


def _settings_file(path: Path) -> dict[str, Any]:
    """The attributes of a settings file: HCL (``*.tfbackend``, ``*.hcl`` …) or JSON (``*.json``)."""
    try:
        src = path.read_bytes()
    except OSError as exc:
        raise CtlError(f"cannot read the backend settings file {path}: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        return constant_settings(parse_json_file(src, str(path), EMPTY_SCHEMA))
    return constant_settings(parse_hcl_file(src, str(path)))


def unrecorded_secrets(extra: dict[str, Any]) -> list[str]:
    names = sorted(n for n, v in extra.items() if is_secret_setting(n, v))
    if not names:
        return []
    return [
        f"--backend-config {', '.join(names)} {'is' if len(names) == 1 else 'are'} not recorded in "
        ".ctl/backend.json: later commands take credentials from the environment (or the backend "
        "block); see docs/backends.md."
    ]
