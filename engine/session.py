"""Where a run's state lives: the backend and the selected workspace.

Every command that touches state starts here: it finds the backend the configuration names (the
local file by default) completed by what ``ctl init`` recorded in ``.ctl/backend.json``, and the
selected workspace. Locking that state is ``engine.locking``'s business.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.base import DEFAULT_WORKSPACE, StateStore, check_workspace_name
from engine.config.model import Module
from engine.lang.eval import EvalContext, evaluate
from engine.lang.syntax import Body
from engine.state.manager import StateManager
from vocab.errors import CtlError

CTL_DIR = ".ctl"
_ENV_FILE = "environment"


def selected_workspace(root: Path) -> str:
    """``CTL_WORKSPACE``/``TF_WORKSPACE``, else what ``ctl workspace select`` recorded, else default."""
    env = os.environ.get("CTL_WORKSPACE") or os.environ.get("TF_WORKSPACE")
    if env:
        return env
    try:
        name = (root / CTL_DIR / _ENV_FILE).read_text().strip()
    except OSError:
        return DEFAULT_WORKSPACE
    return name or DEFAULT_WORKSPACE


def select_workspace(root: Path, name: str) -> None:
    """Record ``name`` in ``.ctl/environment`` for later commands (the environment still wins)."""
    check_workspace_name(name)
    folder = root / CTL_DIR
    folder.mkdir(exist_ok=True)
    (folder / _ENV_FILE).write_text(name + "\n")


def backend_settings(root: Module | None) -> tuple[str, dict[str, Any]]:
    """The backend type and its (constant) settings from ``terraform { backend "…" {} }``.

    Nested blocks (``endpoints { s3 = "…" }``) become maps, as Terraform's backends read them.
    """
    if root is None or root.backend is None:
        return "local", {}
    return root.backend.type, constant_settings(root.backend.body)


def constant_settings(body: Body) -> dict[str, Any]:
    """The attributes (and nested blocks, as maps) of a backend block or ``--backend-config`` file.

    Backend settings are read before variables exist, so anything but a constant is an error that
    points at the expression.
    """
    settings: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        try:
            settings[name] = evaluate(attr.expr, EvalContext(variables={}))
        except CtlError:
            raise CtlError(
                f'Backend setting "{name}" must be a constant',
                detail="Backend settings are read before variables exist; use literal values or "
                       "`ctl init --backend-config`.",
                range=attr.expr.rng,
            ) from None
    for block in body.blocks:
        settings[block.type] = constant_settings(block.body)
    return settings


# -- what `ctl init` recorded ------------------------------------------------------------------------

BACKEND_FILE = "backend.json"
# Settings that are credentials: never written to .ctl/backend.json (a file that ends up in CI caches,
# support bundles and screenshots). They come from the environment or the backend block on every run.
SECRET_SETTINGS = frozenset({
    "access_key", "secret_key", "token", "session_token", "sas_token", "connection_string",
    "access_token", "client_secret", "client_certificate_password", "password", "sse_customer_key",
})  # fmt: skip
_SECRET_SUFFIXES = ("_secret", "_password", "_token", "_key")


def is_secret_setting(name: str, value: Any) -> bool:
    """Whether a backend setting is a credential (by name, or GCS ``credentials`` given as key JSON)."""
    if name in SECRET_SETTINGS or name.endswith(_SECRET_SUFFIXES):
        return True
    return name == "credentials" and str(value).lstrip().startswith("{")


def public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without credentials (nested maps too): what may be recorded and compared."""
    out: dict[str, Any] = {}
    for name, value in settings.items():
        if is_secret_setting(name, value):
            continue
        out[name] = public_settings(value) if isinstance(value, dict) else value
    return out


@dataclass(frozen=True)
class BackendRecord:
    """``.ctl/backend.json``: the backend ``ctl init`` checked, with its resolved settings.

    ``block`` is the backend block as it was then (credentials dropped): a later edit of the block is
    told apart from the values ``--backend-config`` added, which live only in ``config``.
    """

    kind: str
    config: dict[str, Any]
    block: dict[str, Any]

    def to_json(self) -> str:
        data = {"type": self.kind, "config": public_settings(self.config), "block": public_settings(self.block)}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


class BackendChanged(CtlError):
    """The backend block differs from what ``ctl init`` recorded; a run must not guess which to use."""


def read_backend_record(root_dir: Path) -> BackendRecord | None:
    """What ``ctl init`` recorded, or None; a damaged file is an error, never silently ignored."""
    path = root_dir / CTL_DIR / BACKEND_FILE
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CtlError(f"cannot read {path}: {exc}", hint="Run `ctl init` again to rewrite it.") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str) or not isinstance(raw.get("config"), dict):
        raise CtlError(f"{path} is not a backend record written by ctl init",
                       hint="Run `ctl init` again to rewrite it.")
    block = raw.get("block")
    return BackendRecord(raw["type"], raw["config"], block if isinstance(block, dict) else raw["config"])


def write_backend_record(root_dir: Path, record: BackendRecord) -> None:
    folder = root_dir / CTL_DIR
    folder.mkdir(exist_ok=True)
    tmp = folder / f".{BACKEND_FILE}.tmp"
    tmp.write_text(record.to_json())
    tmp.replace(folder / BACKEND_FILE)


def resolved_backend(root_dir: Path, root: Module | None) -> tuple[str, dict[str, Any]]:
    """The backend type and settings a run uses: the block completed by what ``ctl init`` recorded.

    The local backend works without ``ctl init``. A remote one needs it (that is where the store is
    probed and ``--backend-config`` values are recorded), and a block edited since is refused rather
    than guessed at: the state might be in either place.
    """
    kind, block = backend_settings(root)
    record = read_backend_record(root_dir)
    rng = root.backend.rng if root is not None and root.backend is not None else None
    if record is None:
        if kind != "local":
            raise CtlError(
                f'The {kind} backend is not initialized',
                detail=f"ctl init checks the backend and records its settings in {CTL_DIR}/{BACKEND_FILE}.",
                hint="Run `ctl init` (with --backend-config NAME=VALUE for settings not in the block).",
                range=rng,
            )
        return kind, block
    if record.kind != kind or public_settings(block) != public_settings(record.block):
        raise BackendChanged(
            f"Backend configuration changed since `ctl init` ({_change(record, kind, block)})",
            detail=f"{CTL_DIR}/{BACKEND_FILE} records where the state is; the backend block now says "
                   "otherwise, so the state may be in either place.",
            hint="Run `ctl init --migrate-state` to copy every workspace's state to the new backend, or "
                 "`ctl init --reconfigure` to use it without copying.",
            range=rng,
        )
    return kind, {**block, **record.config}


def _change(record: BackendRecord, kind: str, block: dict[str, Any]) -> str:
    """``s3 → azurerm``, or the names of the settings that differ (values may be private)."""
    if record.kind != kind:
        return f"{record.kind} → {kind}"
    old, new = public_settings(record.block), public_settings(block)
    names = sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))
    return f"{kind}: {', '.join(names)} changed"


def open_store(root_dir: Path, root: Module | None, var_args: list[tuple[str, str]] | None = None) -> StateStore:
    """The state store the configuration names (the local file ``ctl.tfstate`` by default).

    ``var_args`` (the command's ``--var``/``--var-file``) reach encryption settings that name variables.
    """
    from backends import factory
    from engine.encryption.lookup import set_up
    from engine.encryption.store import encrypting_store

    kind, settings = resolved_backend(root_dir, root)
    store = factory.make_store(kind, settings, root_dir)
    target = set_up(root, var_args)  # the key providers asked now, before anything is planned
    return store if target is None else encrypting_store(store, target, root_dir / CTL_DIR)


def manager_for(store: StateStore, workspace: str, root_dir: Path) -> StateManager:
    return StateManager(store, workspace, errored_dir=root_dir)
