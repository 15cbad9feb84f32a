"""Where a run's state lives and how it is locked: backend, workspace, lock messages.

Every command that touches state starts here: it finds the backend the configuration names (the
local file by default), the selected workspace, and turns a held lock into the message a user
needs — who holds it, since when, for what, and the exact command to release it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from backends.base import DEFAULT_WORKSPACE, LockInfo, StateStore
from backends.local import LocalStore, holder_is_gone
from engine.config.model import Module
from engine.errors import CtlError, LockHeld, UsageError
from engine.lang.eval import EvalContext, evaluate
from engine.state.locking import held_lock, lock_id_from_env
from engine.state.manager import StateManager

CTL_DIR = ".ctl"
_ENV_FILE = "environment"
_WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,89}$")


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
    check_workspace_name(name)
    folder = root / CTL_DIR
    folder.mkdir(exist_ok=True)
    (folder / _ENV_FILE).write_text(name + "\n")


def check_workspace_name(name: str) -> None:
    if not _WORKSPACE_NAME.match(name):
        raise UsageError(f'Invalid workspace name "{name}"',
                         hint="Use letters, digits, '-', '_' and '.', starting with a letter or digit.")


def backend_settings(root: Module | None) -> tuple[str, dict[str, Any]]:
    """The backend type and its (constant) settings from ``terraform { backend "…" {} }``."""
    if root is None or root.backend is None:
        return "local", {}
    settings: dict[str, Any] = {}
    for name, attr in root.backend.body.attributes.items():
        try:
            settings[name] = evaluate(attr.expr, EvalContext(variables={}))
        except CtlError:
            raise CtlError(
                f'Backend setting "{name}" must be a constant',
                detail="Backend settings are read before variables exist; use literal values or "
                       "`ctl init --backend-config`.",
                range=attr.expr.rng,
            ) from None
    return root.backend.type, settings


def open_store(root_dir: Path, root: Module | None) -> StateStore:
    """The state store the configuration names; the local file ``ctl.tfstate`` by default."""
    kind, settings = backend_settings(root)
    if kind == "local":
        path = Path(str(settings.get("path", "ctl.tfstate")))
        return LocalStore(path if path.is_absolute() else root_dir / path)
    raise CtlError(
        f'Backend type "{kind}" is not supported yet',
        detail="This version of ctl stores state in the local backend only.",
        hint='Remove the backend block or use backend "local".',
        range=root.backend.rng if root is not None and root.backend is not None else None,
    )


def describe_lock(info: LockInfo, store: StateStore) -> tuple[str, str]:
    """(detail, hint) telling who holds a lock, since when, for what, and how to release it."""
    since = info.Created
    try:
        created = datetime.fromisoformat(info.Created.replace("Z", "+00:00"))
        age = datetime.now(UTC) - created
        since = f"{info.Created} ({_human(age.total_seconds())} ago)"
    except ValueError:
        pass
    lines = [
        f"Lock ID:   {info.ID}",
        f"Path:      {info.Path or store.describe()}",
        f"Held by:   {info.Who}",
        f"Operation: {info.Operation}",
        f"Since:     {since}",
    ]
    if info.Info:
        lines.append(f"Reason:    {info.Info}")
    if isinstance(store, LocalStore) and holder_is_gone(info):
        lines.append(f"The process holding it (PID {info.PID}) no longer runs: the lock was left behind.")
    hint = f"If no run is active, release it with: ctl state unlock {info.ID}"
    return "\n".join(lines), hint


def _human(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60}m"


@dataclass
class LockOptions:
    enabled: bool = True
    timeout: float = 0.0
    reason: str = ""


@contextmanager
def locked(store: StateStore, workspace: str, operation: str, opts: LockOptions) -> Iterator[LockInfo | None]:
    """Hold the workspace lock (or reuse ``CTL_LOCK_ID``) for the body, with a clear message if held."""
    if not opts.enabled:
        yield None
        return
    try:
        with held_lock(store, workspace, operation, opts.reason, opts.timeout, lock_id_from_env()) as info:
            yield info
    except LockHeld as exc:
        holder = getattr(exc, "holder", None)
        if holder is None or getattr(exc, "_described", False):
            raise
        detail, hint = describe_lock(holder, store)
        summary = f"The state is locked by {holder.Who} ({holder.Operation})"
        if lock_id_from_env() or opts.timeout > 0:
            summary = exc.summary  # says which CTL_LOCK_ID was expected, or how long we waited
        err = LockHeld(summary, detail=detail, hint=hint)
        err.holder = holder  # type: ignore[attr-defined]
        err._described = True  # type: ignore[attr-defined]
        raise err from None


def manager_for(store: StateStore, workspace: str, root_dir: Path) -> StateManager:
    return StateManager(store, workspace, errored_dir=root_dir)
