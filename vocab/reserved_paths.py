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
from typing import Any


def reserved_paths(store: Any, workspace: str, root_dir: Path) -> tuple[Path, ...]:
    """The paths (files, or name prefixes of files) that belong to ctl for this run."""
    paths = [Path(os.path.realpath(root_dir / ".ctl"))]
    state_path = getattr(store, "state_path", None)  # only stores on this file system have one
    if callable(state_path):
        paths.append(Path(os.path.realpath(state_path(workspace))))
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
