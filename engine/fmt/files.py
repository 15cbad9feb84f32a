"""Which files ``ctl fmt`` formats, writing them back, and the unified diff it shows.

The choices are Terraform's (``command/fmt.go``): a directory means the ``.tf`` and ``.tfvars``
files directly in it, sorted by name, and with ``recursive`` those of its subdirectories too; hidden
entries (``.terraform``, ``.ctl``, ``.git``), editor backups (``x.tf~``) and Emacs lock files
(``#x.tf#``) are skipped. ``.tf.json`` files and YAML specs (``.tf.yaml``) end in another extension
and are never touched. A file is named as Terraform names it: relative to the working directory.

Each file is formatted on its own: a syntax error stops that file (it is not written) and the
others go on. Engine code never prints: results come back to the CLI one file at a time.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import CtlError, Diagnostic
from engine.fmt import format_source

EXTENSIONS = (".tf", ".tfvars")
STDIN_NAME = "<stdin>"


@dataclass(frozen=True)
class FileResult:
    """One file: its name as printed, what was read and what formatting made of it."""

    name: str
    source: bytes
    formatted: bytes

    @property
    def changed(self) -> bool:
        return self.source != self.formatted


def format_targets(targets: Sequence[str], *, recursive: bool, write: bool) -> Iterator[FileResult | Diagnostic]:
    """Format every file the targets name, writing back those that change when ``write``.

    Yields a ``FileResult`` per file and a ``Diagnostic`` per problem; a target that does not exist
    ends the run, as in Terraform.
    """
    for target in targets:
        path = _display(target)
        if not os.path.exists(path):
            yield _error(f"No file or directory at {path}")
            return
        if os.path.isdir(path):
            yield from _directory(path, recursive=recursive, write=write)
        elif _extension(path) in EXTENSIONS:
            yield from _file(path, write=write)
        else:
            yield _error("Only .tf and .tfvars files can be formatted",
                         hint=f"{path}: JSON (.tf.json) and YAML (.tf.yaml) configurations are left as they are.")


def format_stdin(data: bytes) -> FileResult:
    """Standard input, formatted (raises ``CtlError`` on a syntax error)."""
    return FileResult(STDIN_NAME, data, format_source(data, STDIN_NAME))


def unified_diff(result: FileResult) -> bytes:
    """``diff -u`` of the change, labelled ``old/NAME`` and ``new/NAME`` as Terraform labels it."""
    old, new = _lines(result.source), _lines(result.formatted)
    out = []
    for line in difflib.unified_diff(old, new, f"old/{result.name}", f"new/{result.name}", lineterm="\n"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).encode()


def _lines(data: bytes) -> list[str]:
    """Lines as ``diff`` sees them: cut after each LF only (a CR stays part of its line)."""
    text = data.decode("utf-8", "surrogateescape")
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _directory(path: str, *, recursive: bool, write: bool) -> Iterator[FileResult | Diagnostic]:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        yield _error(f"Cannot read directory {path}")
        return
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#")):
            continue
        sub = _display(os.path.join(path, name))
        if entry.is_dir(follow_symlinks=False):
            if recursive:
                yield from _directory(sub, recursive=recursive, write=write)
        elif _extension(name) in EXTENSIONS:
            yield from _file(sub, write=write)


def _file(path: str, *, write: bool) -> Iterator[FileResult | Diagnostic]:
    try:
        source = Path(path).read_bytes()
    except OSError:
        yield _error(f"Failed to read file {path}")
        return
    try:
        result = FileResult(path, source, format_source(source, path))
    except CtlError as err:
        yield from err.diagnostics()
        return
    if write and result.changed:
        try:
            _replace(path, result.formatted)
        except OSError as exc:
            yield _error(f"Failed to write {path}", detail=str(exc))
            return
    yield result


def _replace(path: str, data: bytes) -> None:
    """Write ``data`` over the file at ``path`` atomically, keeping its permissions (and symlinks)."""
    real = os.path.realpath(path)
    mode = os.stat(real).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".ctl-fmt-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _display(path: str) -> str:
    """``path`` relative to the working directory, as Terraform prints file names."""
    return os.path.relpath(os.path.abspath(path))


def _extension(name: str) -> str:
    """Go's ``filepath.Ext``: from the last dot of the last element (``.tf`` for a file named ``.tf``)."""
    base = os.path.basename(name)
    dot = base.rfind(".")
    return base[dot:] if dot >= 0 else ""


def _error(summary: str, *, detail: str = "", hint: str = "") -> Diagnostic:
    return Diagnostic("error", summary, detail=detail, hint=hint)
