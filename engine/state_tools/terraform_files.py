"""A ``terraform.tfstate`` left next to the configuration: found, named, and moved into ctl's backend.

The first thing a team moving from Terraform does is run ``ctl plan`` where Terraform ran. ctl's
state lives elsewhere (``ctl.tfstate`` or the configured backend), so without this check the plan
would offer to create everything again: duplicated infrastructure. A plan or apply whose own state
is empty while Terraform's local state for the same workspace holds resources is therefore refused
with what to do; ``ctl init --migrate-state`` moves each such state into ctl's backend (lineage and
serial kept), and renames the file to ``terraform.tfstate.migrated`` as a backup,
so Terraform cannot be run on a stale copy by mistake.

A state OpenTofu encrypted counts too: its resources cannot be counted without the key, so it is
taken as holding some, and it is moved in by opening it with the configuration's ``state``
encryption settings (which then seal it again in ctl's backend).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from backends.base import LocalStateFile, StateStore
from engine.encryption.envelope import is_encrypted
from engine.encryption.errors import EncryptionError
from engine.encryption.store import EncryptingStore
from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from vocab.errors import CtlError

TERRAFORM_STATE = "terraform.tfstate"
TERRAFORM_WORKSPACES = "terraform.tfstate.d"
MIGRATED_SUFFIX = ".migrated"


@dataclass(frozen=True)
class TerraformState:
    """One workspace's state file written by Terraform's local backend."""

    workspace: str
    path: Path
    resources: int | None  # None: encrypted, not counted without the key
    terraform_version: str

    def holding(self) -> str:
        """What the file holds, for a message: its resource count, or that it is encrypted."""
        if self.resources is None:
            return "an encrypted state (OpenTofu's state encryption)"
        return f"{self.resources} resource(s) written by Terraform {self.terraform_version or '(unknown version)'}"


def terraform_states(root_dir: Path) -> list[TerraformState]:
    """Terraform's local states in ``root_dir`` that hold at least one resource (unreadable ones skipped)."""
    candidates = [("default", root_dir / TERRAFORM_STATE)]
    workspaces = root_dir / TERRAFORM_WORKSPACES
    if workspaces.is_dir():
        candidates += [(d.name, d / TERRAFORM_STATE) for d in sorted(workspaces.iterdir()) if d.is_dir()]
    found = []
    for workspace, path in candidates:
        try:
            data = path.read_bytes()
            doc = json.loads(data)
        except (OSError, ValueError):
            continue
        if is_encrypted(data):
            found.append(TerraformState(workspace, path, None, ""))
            continue
        resources = doc.get("resources") if isinstance(doc, dict) else None
        if isinstance(resources, list) and resources:
            found.append(TerraformState(workspace, path, len(resources), str(doc.get("terraform_version", ""))))
    return found


def refuse_if_left_behind(root_dir: Path, workspace: str, ctl_state_exists: bool) -> None:
    """Stop a run on an empty ctl state while Terraform's state for the workspace holds resources."""
    if ctl_state_exists:
        return
    for found in terraform_states(root_dir):
        if found.workspace == workspace:
            raise CtlError(
                f"{found.path.relative_to(root_dir)} holds {found.holding()}, and ctl's state for workspace "
                f'"{workspace}" is empty: planning now would create them all again',
                hint="Run `ctl init --migrate-state` to move it into ctl's backend (the file is kept as "
                     f"{TERRAFORM_STATE}{MIGRATED_SUFFIX}), or move the file away if it is not this "
                     "configuration's state.")


def migrate_terraform_states(root_dir: Path, store: StateStore, lock: LockOptions) -> list[TerraformState]:
    """Move every non-empty Terraform local state into ``store``; the ones moved.

    A workspace whose ctl state already exists is left alone unless it is the very same state (same
    lineage): then the Terraform copy is only renamed, since it was moved before.
    """
    moved = []
    for found in terraform_states(root_dir):
        if _is_the_stores_own(store, found):
            continue  # the backend's path names Terraform's file: it is ctl's state already
        data = found.path.read_bytes()
        if found.resources is None:
            if not isinstance(store, EncryptingStore):
                raise EncryptionError(
                    f"{found.path.relative_to(root_dir)} is encrypted, and this configuration has no state "
                    "encryption to open it with",
                    hint="Add the encryption block OpenTofu used (the same key provider and method names, and the "
                         "same passphrase or key) to the terraform block, or set it in CTL_ENCRYPTION.")
            data = store.open_state(data, str(found.path))
        pushed = decode_state(data, str(found.path))  # refuses anything that is not a state
        with locked(store, found.workspace, "OperationTypeMigrate", lock):
            current = store.read(found.workspace)
            if current is not None:
                existing = decode_state(current.data, store.describe())
                if existing.lineage != pushed.lineage:
                    raise CtlError(
                        f'cannot move {found.path.relative_to(root_dir)}: workspace "{found.workspace}" '
                        f"already has another state in {store.describe()}",
                        hint="Compare them with `ctl state pull`; push the one to keep with `ctl state push`.")
            else:
                store.write(found.workspace, encode_state(pushed), expected=None)
        found.path.rename(found.path.with_name(found.path.name + MIGRATED_SUFFIX))
        moved.append(found)
    return moved


def _is_the_stores_own(store: StateStore, found: TerraformState) -> bool:
    """Whether ``found`` is the very file the (local) backend keeps the workspace's state in."""
    if not isinstance(store, LocalStateFile):
        return False
    try:
        return store.state_path(found.workspace).resolve() == found.path.resolve()
    except (OSError, CtlError):
        return False
