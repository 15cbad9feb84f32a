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

import contextlib
import difflib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.fmt import format_source
from vocab.errors import CtlError, Diagnostic
from vocab.limits import MAX_FILE_BYTES, MAX_HCL_FILE_ENV, max_hcl_file_bytes
from vocab.regular_file import FileTooLarge, NotRegularFile, read_regular

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
    # The same opt-in ceiling as the parser's: formatting works on tokens and checks the syntax with
    # the parser, which reads a large file in parts, so a file of any size is formatted.
    ceiling = max_hcl_file_bytes()
    try:
        source = read_regular(path, ceiling or MAX_FILE_BYTES)
    except NotRegularFile as exc:
        yield _error(f"Failed to read file {path}", detail=f"It is {exc.kind}; only regular files are formatted.")
        return
    except FileTooLarge as exc:
        if ceiling:
            yield _error(f"Failed to read file {path}", detail=f"It is {exc.size:,} bytes, over the "
                         f"{exc.limit // 1048576} MiB limit {MAX_HCL_FILE_ENV} sets for HCL files.",
                         hint=f"Unset {MAX_HCL_FILE_ENV} or raise it (in MiB) if the file must be formatted.")
        else:
            yield _error(f"Failed to read file {path}", detail=f"It is {exc.size:,} bytes, over the "
                         f"{exc.limit // 1048576} MiB ctl reads of one file (MAX_FILE_BYTES).")
        return
    except OSError as exc:
        yield _error(f"Failed to read file {path}", detail=exc.strerror or "")
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
    """Write ``data`` over the file at ``path`` in place, as Terraform does, keeping its inode.

    In place, because the file is the user's: a hard link, its owner, its ACLs and its extended
    attributes all belong to the inode, and a rename would silently cut the link and reset the rest.
    A crash must still not leave half a file behind, so the new bytes are first written and synced
    to a temporary sibling (which survives a crash as a complete copy next to the file), then the
    file is rewritten from the start, truncated to the new length and synced, and only then is the
    copy removed. Where no sibling can be created (a read-only directory), the file is rewritten
    in place without one.
    """
    real = os.path.realpath(path)
    backup = None
    try:
        fd, backup = tempfile.mkstemp(dir=os.path.dirname(real), prefix=f".{os.path.basename(real)}.ctl-fmt-")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except OSError:
        if backup is not None:
            with contextlib.suppress(OSError):
                os.unlink(backup)
        backup = None
    # O_NONBLOCK: the name was a regular file when read; it must not have become a FIFO since.
    target = os.open(real, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(target).st_mode):
            raise OSError(errno.EINVAL, f"{path} is no longer a regular file")
        view = memoryview(data)
        written = 0
        while written < len(view):
            written += os.pwrite(target, view[written:], written)
        os.ftruncate(target, len(data))
        os.fsync(target)
    finally:
        os.close(target)
    if backup is not None:
        with contextlib.suppress(OSError):
            os.unlink(backup)


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
