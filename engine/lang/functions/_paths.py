"""Where the functions that touch the filesystem may read.

A relative path resolves against ``FunctionContext.base_dir`` (the run's working directory, as
Terraform resolves against the current directory). By default any path the process can read is
read, as Terraform and OpenTofu read it: modules commonly read ``../../bootstrap/addons.yaml`` or a
file in the user's home. A configuration that is not trusted runs with ``CTL_FILE_ROOT=DIR``
(``FunctionContext.file_root``): then the *resolved* path, after ``..`` and symlinks, must be
inside DIR, so ``file("../../home/me/.ssh/id_rsa")`` or a symlink planted in a module cannot leak
secrets into plans and state.

Only regular files are read (a FIFO or a device would block or never end), and at most
``MAX_FILE_BYTES`` of them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.lang.functions._core import FILE_ROOT_VARIABLE, ArgError, FunctionContext
from vocab.limits import MAX_FILE_BYTES


def resolve(path: str, i: int, ctx: FunctionContext) -> Path:
    """The real, absolute path for ``path``; refused when it leaves the sandbox, if there is one."""
    if path == "":
        raise ArgError(i, "path must not be empty")
    if "\x00" in path:
        raise ArgError(i, "path must not contain NUL characters")
    p = Path(os.path.expanduser(path)) if path.startswith("~") else Path(path)
    full = Path(os.path.realpath(p if p.is_absolute() else ctx.base_dir / p))
    root = ctx.file_root
    if root is not None and full != root and root not in full.parents:
        raise ArgError(i, f'path "{path}" is outside the configuration directory '
                          f"({FILE_ROOT_VARIABLE} is {root})")
    return full


def read_bytes(path: str, i: int, ctx: FunctionContext) -> bytes:
    """The contents of a regular file (inside the sandbox, if there is one)."""
    full = resolve(path, i, ctx)
    try:
        info = full.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ArgError(i, f'"{path}" is a directory, not a file')
        if not stat.S_ISREG(info.st_mode):
            raise ArgError(i, f'"{path}" is not a regular file (a pipe, socket or device cannot be read)')
        if info.st_size > MAX_FILE_BYTES:
            raise ArgError(i, f'"{path}" is {info.st_size:,} bytes; files read by functions may be at most '
                              f"{MAX_FILE_BYTES:,} bytes (MAX_FILE_BYTES)")
        with full.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
    except FileNotFoundError as exc:
        raise ArgError(
            i,
            f'no file exists at "{path}"; this function works only with files that are distributed as part '
            "of the configuration source code, so if this file will be created by a resource in this "
            "configuration you must instead obtain this result from an attribute of that resource",
        ) from exc
    except OSError as exc:
        raise ArgError(i, f'failed to read "{path}": {exc.strerror}') from exc


def read_text(path: str, i: int, ctx: FunctionContext) -> str:
    """UTF-8 file contents; other encodings must go through filebase64 instead."""
    raw = read_bytes(path, i, ctx)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArgError(
            i,
            f'contents of "{path}" are not valid UTF-8; use filebase64 to read it as Base64 or '
            "filesha256 and similar to hash it",
        ) from exc
