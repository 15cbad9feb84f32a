"""Terraform's own local state files found by ``ctl init`` next to the configuration.

ctl keeps its state in the backend, so a ``terraform.tfstate`` left beside the configuration would
make the next plan create everything again: ``--migrate-state`` moves such files in, and otherwise
``init`` names them in a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.init.options import InitReport
from engine.locking.options import LockOptions


def move_or_name_terraform_states(root_dir: Path, root: Any, migrate: bool, lock: LockOptions, report: InitReport) -> None:
    """Terraform's own local states next to the configuration: moved in with --migrate-state, else named."""
    from engine.session import open_store
    from engine.state_tools.terraform_files import migrate_terraform_states, terraform_states

    found = terraform_states(root_dir)
    if not found:
        return
    store = open_store(root_dir, root)  # sealed, when the configuration encrypts state
    if migrate:
        for moved in migrate_terraform_states(root_dir, store, lock):
            report.terraform_moved.append(f'{moved.path.relative_to(root_dir)} → workspace "{moved.workspace}" '
                                          f"({_count(moved.resources)}; the file is kept as "
                                          f"{moved.path.name}.migrated)")
        return
    for state in found:
        if store.read(state.workspace) is None:
            report.warnings.append(
                f"{state.path.relative_to(root_dir)} holds {state.holding()}; "
                "ctl keeps its state in the backend above and would plan to create them again. Run "
                "`ctl init --migrate-state` to move it in.")


def _count(resources: int | None) -> str:
    return "encrypted" if resources is None else f"{resources} resource(s)"
