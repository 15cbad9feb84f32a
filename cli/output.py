"""Everything the CLI prints goes through here: colour decisions and diagnostics rendering.

Machine output goes to stdout, messages to stderr. Colour only on an interactive terminal and
never when ``NO_COLOR``/``CTL_NO_COLOR`` is set, ``TERM=dumb``, or ``--no-color`` was given.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from engine.errors import CtlError, Diagnostic

_state: dict[str, object] = {"no_color": False, "root": Path(".")}


def configure(*, no_color: bool, root: Path) -> None:
    _state["no_color"] = no_color
    _state["root"] = root


def color_enabled(stream: object = None) -> bool:
    stream = stream or sys.stderr
    if _state["no_color"] or os.environ.get("NO_COLOR") is not None or os.environ.get("CTL_NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def stdout() -> Console:
    return Console(file=sys.stdout, no_color=not color_enabled(sys.stdout), highlight=False,
                   force_terminal=color_enabled(sys.stdout), soft_wrap=True)


def stderr() -> Console:
    return Console(file=sys.stderr, no_color=not color_enabled(sys.stderr), highlight=False,
                   force_terminal=color_enabled(sys.stderr), soft_wrap=True)


def _snippet(d: Diagnostic) -> str | None:
    if d.snippet is not None:
        return d.snippet
    if d.range is None:
        return None
    root = _state["root"]
    assert isinstance(root, Path)
    path = root / d.range.filename
    try:
        lines = path.read_text(errors="replace").split("\n")
    except OSError:
        return None
    idx = d.range.start.line - 1
    return lines[idx] if 0 <= idx < len(lines) else None


def print_diagnostics(diags: list[Diagnostic]) -> None:
    """Each problem in a few lines: severity and summary, where, the source line, detail, hint."""
    con = stderr()
    brief = bool(os.environ.get("TF_IN_AUTOMATION") or os.environ.get("CTL_IN_AUTOMATION"))
    for d in diags:
        colour = "red" if d.severity == "error" else "yellow"
        label = "Error" if d.severity == "error" else "Warning"
        where = d.location()
        con.print(f"[bold {colour}]{label}:[/] {escape(where + ': ' if where else '')}[bold]{escape(d.summary)}[/]")
        snippet = _snippet(d)
        if snippet is not None and d.range is not None:
            gutter = f"  {d.range.start.line:>4} | "
            con.print(gutter + escape(snippet))
            con.print(" " * (len(gutter) + max(d.range.start.column - 1, 0)) + "[" + colour + "]^[/]")
        if d.detail:
            for line in d.detail.split("\n"):
                con.print(f"  {escape(line)}")
        if d.hint and not brief:
            con.print(f"  [dim]Hint:[/] {escape(d.hint)}")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for d in diags:
            kind = "error" if d.severity == "error" else "warning"
            loc = ""
            if d.range is not None:
                loc = f" file={d.range.filename},line={d.range.start.line},col={d.range.start.column}"
            sys.stderr.write(f"::{kind}{loc}::{d.summary}\n")


def print_error(err: CtlError) -> None:
    print_diagnostics(err.diagnostics())
    if os.environ.get("CTL_LOG", "").lower() == "debug":
        traceback.print_exception(err, file=sys.stderr)


def info(message: str) -> None:
    stderr().print(message)


def warn(message: str) -> None:
    stderr().print(f"[bold yellow]Warning:[/] {escape(message)}")
