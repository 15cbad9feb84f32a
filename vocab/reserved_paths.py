"""ctl's own files, which no resource may write or delete.

A ``local_file`` whose ``filename`` is the state file (a typo, or a hostile module) would replace
the state with its content at apply time and lose every record of the infrastructure. The local
adapters refuse such paths: the state file of a local backend and its siblings (backup, history,
journal, lock and mutex files all carry the state file's name as a prefix), and the ``.ctl``
directory of the configuration (plugin records, caches).
"""

from __future__ import annotations

import os
from pathlib import Path


def reserved_paths(state_file: Path | None, root_dir: Path) -> tuple[Path, ...]:
    """The paths (files, or name prefixes of files) that belong to ctl for this run.

    ``state_file`` is the state's file when the store keeps it on this file system (a store's
    ``LocalStateFile`` capability), None for a remote store.
    """
    paths = [Path(os.path.realpath(root_dir / ".ctl"))]
    if state_file is not None:
        paths.append(Path(os.path.realpath(state_file)))
    return tuple(paths)


def is_reserved(path: Path, reserved: tuple[Path, ...]) -> bool:
    """Whether ``path`` is one of ``reserved``, inside one, or a sibling named after one."""
    target = Path(os.path.realpath(path))
    for own in reserved:
        for candidate in (target, *target.parents):
            if candidate == own:
                return True
            if candidate.parent == own.parent and candidate.name.lstrip(".").startswith(own.name):
                return True  # ctl.tfstate.backup, ctl.tfstate.history/…, .ctl.tfstate.mutex
    return False
