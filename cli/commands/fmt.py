"""``ctl fmt``: rewrite HCL files in the canonical layout, byte for byte as ``terraform fmt`` (1.0.3).

The output contract is Terraform's: names of changed files one per line, relative to the working
directory; ``--diff`` a unified diff labelled ``old/NAME``/``new/NAME``; with ``-`` the formatted
text on stdout. The exit code follows ctl's table instead: a file that ``--check`` finds
unformatted is "changes present" (2), where Terraform exits 3, which is ctl's "denied by policy".
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click
import typer
from typer.core import TyperCommand

from vocab.errors import CtlError, Diagnostic, DiagnosticsError, ExitCode, UsageError

if TYPE_CHECKING:
    from engine.fmt.files import FileResult


def register(app: typer.Typer) -> None:
    app.command("fmt", help=_HELP, cls=_FmtCommand)(fmt_command)


_HELP = """Rewrite .tf and .tfvars files in the canonical layout, exactly as terraform fmt (1.0.3) does.

TARGET is a file or a directory (default: the current one; --recursive adds its subdirectories,
hidden ones excepted), or - to format standard input to standard output. Changed files are
rewritten and their names listed. JSON (.tf.json) and YAML (.tf.yaml) files are left alone.

Exit codes: 0 done (or already formatted); 1 an error, such as a syntax error (that file is left
as it is, the others are still formatted); 2 with --check when a file is not formatted. Terraform's
fmt -check exits 3 there: ctl uses its "changes present" code 2, as plan --detailed-exitcode does,
because ctl's 3 means "denied by policy".

Example: ctl fmt --check --diff --recursive
"""

_FLAGS = ("check", "diff", "recursive", "write", "list")
_TRUE = ("1", "t", "T", "TRUE", "true", "True")  # Go's strconv.ParseBool, which Terraform's flags use
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def terraform_bool_flags(args: list[str]) -> list[str]:
    """``--write=false`` (Terraform's ``-write=false``) as ``--no-write``; ``--diff=true`` as ``--diff``."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + args[i:]
        name, eq, value = arg.partition("=")
        if eq and name[2:] in _FLAGS and name.startswith("--"):
            if value in _TRUE:
                arg = name
            elif value in _FALSE:
                arg = f"--no-{name[2:]}"
        out.append(arg)
    return out


class _FmtCommand(TyperCommand):
    """Reads Terraform's ``-flag=value`` spelling of fmt's switches before click parses them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, terraform_bool_flags(args))


def fmt_command(
    targets: list[str] = typer.Argument(None, metavar="[TARGET]...", help="Files or directories (default .), or -."),
    check: bool = typer.Option(False, "--check/--no-check", help="Write nothing; exit 2 when a file is not formatted."),
    diff: bool = typer.Option(False, "--diff/--no-diff", help="Show a unified diff of each change."),
    recursive: bool = typer.Option(False, "--recursive/--no-recursive", help="Also format subdirectories."),
    write: bool = typer.Option(True, "--write/--no-write", help="Rewrite changed files (off for - and --check)."),
    list_files: bool = typer.Option(True, "--list/--no-list", help="List the files that change."),
) -> int:
    from engine.fmt import files

    targets = list(targets or ["."])
    stdin = targets == ["-"]
    if "-" in targets and not stdin:
        raise UsageError("- (standard input) cannot be combined with other targets")
    if stdin:
        list_files = write = False
    show_list = list_files
    if check:  # as Terraform: --check lists into a buffer that decides the exit code
        list_files, write = True, False
    buffer = io.BytesIO() if check else None

    def emit(data: bytes) -> None:
        data = data if data.endswith(b"\n") else data + b"\n"  # each chunk ends a line, as in Terraform
        if buffer is not None:
            buffer.write(data)
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    diags: list[Diagnostic] = []
    for item in _results(targets, stdin=stdin, recursive=recursive, write=write):
        if isinstance(item, Diagnostic):
            diags.append(item)
            continue
        if item.changed:
            if list_files:
                emit(f"{item.name}\n".encode())
            if diff:
                emit(files.unified_diff(item))
        if not (list_files or write or diff):
            emit(item.formatted)
    if diags:
        raise DiagnosticsError(diags)
    if buffer is None:
        return int(ExitCode.OK)
    pending = buffer.getvalue()
    if show_list:
        sys.stdout.buffer.write(pending)
    return int(ExitCode.CHANGES_PRESENT if pending else ExitCode.OK)


def _results(targets: list[str], *, stdin: bool, recursive: bool, write: bool) -> Iterable[FileResult | Diagnostic]:
    from engine.fmt import files

    if not stdin:
        return files.format_targets(targets, recursive=recursive, write=write)
    try:
        return [files.format_stdin(sys.stdin.buffer.read())]
    except CtlError as err:
        return err.diagnostics()
