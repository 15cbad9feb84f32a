"""``ctl init --from-module SOURCE``: start a configuration directory from a copy of a module.

Terraform copies the module into an empty directory and then initializes it; people use it to
start from an example. ctl reads modules only from local directories (``./path``, ``../path``
or an absolute path), so those are the sources it copies; any other source is refused with the
command to run instead, before anything is written.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from vocab.errors import CtlError

_CONFIG_SUFFIXES = (".tf", ".tf.json", ".tf.yaml")


def copy_module(source: str, into: Path) -> list[str]:
    """Copy the module at ``source`` (relative to ``into``) into ``into``; the names copied.

    Refused when ``into`` already holds configuration files, as in Terraform: a copy would mix
    two configurations. Hidden entries (``.git``, ``.terraform``, ``.ctl``) are not copied.
    """
    if not source.startswith(("./", "../", "/")):
        raise CtlError(f'--from-module: the module source "{source}" is not a local directory',
                       detail="ctl reads modules from local directories only (./path, ../path or an absolute path).",
                       hint="Download the module yourself (git clone, or the registry's archive), then run "
                            "ctl init --from-module with its directory.")
    module_dir = (into / source).resolve()
    if not module_dir.is_dir():
        raise CtlError(f'--from-module: the module directory "{source}" does not exist',
                       hint="Give the directory of the module to copy, relative to the configuration directory.")
    present = sorted(p.name for p in into.iterdir() if p.is_file() and p.name.endswith(_CONFIG_SUFFIXES))
    if present:
        raise CtlError(f"--from-module needs a directory without configuration files; {into} holds "
                       f"{', '.join(present[:3])}{' …' if len(present) > 3 else ''}",
                       hint="Run it in a new, empty directory.")
    copied: list[str] = []
    for entry in sorted(module_dir.iterdir()):
        if entry.name.startswith("."):
            continue
        target = into / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".*"))
        else:
            shutil.copy2(entry, target)
        copied.append(entry.name)
    return copied


__all__ = ["copy_module"]
