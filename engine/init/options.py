"""What ``ctl init`` takes (its flags) and what it reports back to the command that prints it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.install.installer import DownloadProgress
from engine.locking.options import LockOptions


@dataclass(frozen=True)
class MigratedWorkspace:
    """One workspace's state as copied (or found already copied) to the new backend."""

    workspace: str
    serial: int | None
    lineage: str
    resources: int
    already_there: bool = False


@dataclass(frozen=True)
class Migration:
    """What ``--migrate-state`` is about to copy, for the confirmation prompt."""

    source: str
    destination: str
    workspaces: list[str]


@dataclass
class InitOptions:
    """The ``ctl init`` flags; ``confirm`` (if given) is asked before copying unless ``force_copy``."""

    backend_config: list[str] = field(default_factory=list)
    migrate_state: bool = False
    reconfigure: bool = False
    force_copy: bool = False
    lock: LockOptions = field(default_factory=LockOptions)
    confirm: Callable[[Migration], bool] | None = None
    plugin_dirs: list[str] | None = None  # -plugin-dir (see engine/plugins/init_step.py)
    native: bool | None = None  # -native=false: provider plugins serve every type of their provider
    upgrade: bool = False  # -upgrade: choose provider versions anew within the constraints
    progress: DownloadProgress | None = None  # called as provider packages download
    backend: bool = True  # -backend=false: leave the backend alone (not probed, nothing recorded or moved)


@dataclass
class InitReport:
    backend: str
    location: str
    providers: list[tuple[str, str]] = field(default_factory=list)
    previous: str | None = None  # where the state was before, when the backend changed
    migrated: list[MigratedWorkspace] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)  # "NAME SOURCE vVERSION (protocol N) from DIR"
    terraform_moved: list[str] = field(default_factory=list)  # Terraform local states moved in
