"""Everything the CLI prints goes through here: colour decisions and diagnostics rendering.

Machine output goes to stdout, messages to stderr. Colour only on an interactive terminal and
never when ``NO_COLOR``/``CTL_NO_COLOR`` is set, ``TERM=dumb``, or ``--no-color`` was given.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from vocab.errors import CtlError, Diagnostic
from vocab.printable import printable

_state: dict[str, object] = {"no_color": False, "root": Path("."), "compact_warnings": False}
_sink: list[Callable[[list[Diagnostic]], None]] = []


def configure(*, no_color: bool, root: Path) -> None:
    _state["no_color"] = no_color
    _state["root"] = root
    _state["compact_warnings"] = False
    _sink.clear()  # a new run: diagnostics are human text again until a command opens a JSON stream


def compact_warnings() -> None:
    """Terraform's ``-compact-warnings``: warnings that come without an error are shown as their
    one-line summary (and where), without the source line, detail and hint."""
    _state["compact_warnings"] = True


def set_diagnostic_sink(sink: Callable[[list[Diagnostic]], None] | None) -> None:
    """Send diagnostics (and warnings) to ``sink`` instead of stderr: ``--json`` streams them on stdout.

    It stays in place until the run ends, so the error boundary's report of the error that ended a
    ``--json`` run is part of the stream too.
    """
    _sink[:] = [sink] if sink is not None else []


def color_enabled(stream: object = None) -> bool:
    stream = stream or sys.stderr
    if _state["no_color"] or os.environ.get("NO_COLOR") is not None or os.environ.get("CTL_NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def stdout() -> Console:
    return Console(file=sys.stdout, no_color=not color_enabled(sys.stdout), highlight=False, emoji=False,
                   force_terminal=color_enabled(sys.stdout), soft_wrap=True)


def write_rendered(con: Console, text: str) -> None:
    """Text rendered by ctl itself (ANSI colour included) straight to ``con``'s stream, as ``con.out``
    would write it (``text`` and a newline).

    rich splits, measures and re-joins every line it is given even with soft wrap on, which costs
    seconds on a plan of tens of thousands of resources and changes nothing in ctl's own text.
    """
    con.file.write(text + "\n")
    con.file.flush()


def write_lines(con: Console, lines: Iterable[str]) -> None:
    """``write_rendered`` of ``"\\n".join(lines)``, written as the lines come, never joined whole."""
    write = con.file.write
    for line in lines:
        write(line + "\n")
    write("\n")
    con.file.flush()


def stderr() -> Console:
    return Console(file=sys.stderr, no_color=not color_enabled(sys.stderr), highlight=False, emoji=False,
                   force_terminal=color_enabled(sys.stderr), soft_wrap=True)


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    """``d`` as the JSON diagnostics of ``validate -json`` and the ``-json`` stream give it: with the
    references' ``snippet`` when its file can be read."""
    out = d.to_json()
    if d.range is None:
        return out
    src: bytes | None
    try:
        root = _state["root"]
        assert isinstance(root, Path)
        src = (root / d.range.filename).read_bytes()
    except OSError:
        text = d.range.text
        src = text.src if text is not None else (d.snippet.encode() if d.snippet is not None else None)
    if src is not None:
        from engine.lang.snippets import json_snippet

        out["snippet"] = json_snippet(d, src)
    return out


def _snippet(d: Diagnostic, files: dict[str, list[str] | None]) -> str | None:
    """The source line ``d`` is about; ``files`` keeps each file's lines read once per report."""
    if d.snippet is not None:
        return d.snippet
    if d.range is None:
        return None
    lines = files.get(d.range.filename, [])
    if lines == []:
        root = _state["root"]
        assert isinstance(root, Path)
        try:
            lines = (root / d.range.filename).read_text(errors="replace").split("\n")
        except OSError:
            lines = None
        files[d.range.filename] = lines
    if lines is None:
        return None
    idx = d.range.start.line - 1
    return lines[idx] if 0 <= idx < len(lines) else None


_SNIPPET_WIDTH = 160  # characters of a source line shown; a generated or minified line may be megabytes


def _window(line: str, column: int) -> tuple[str, int]:
    """At most ``_SNIPPET_WIDTH`` characters of ``line`` around ``column``, and the caret's place in them."""
    if len(line) <= _SNIPPET_WIDTH:
        return line, column
    start = max(0, min(column - _SNIPPET_WIDTH // 3, len(line) - _SNIPPET_WIDTH))
    shown = line[start:start + _SNIPPET_WIDTH]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + _SNIPPET_WIDTH < len(line) else ""
    return prefix + shown + suffix, column - start + len(prefix)


def print_diagnostics(diags: list[Diagnostic]) -> None:
    """Each problem in a few lines: severity and summary, where, the source line, detail, hint.

    Every text is shown with its control characters escaped (``vocab.printable``): a message may quote
    what a provider, a cloud API or a file said, and none of them may drive the terminal.
    """
    if _sink:
        _sink[0](diags)
        _annotate(diags)
        return
    con = stderr()
    plain = not color_enabled(sys.stderr)
    brief = bool(os.environ.get("TF_IN_AUTOMATION") or os.environ.get("CTL_IN_AUTOMATION"))
    compact = bool(_state["compact_warnings"]) and all(d.severity != "error" for d in diags)
    files: dict[str, list[str] | None] = {}
    for d in diags:
        lines = _rendered(d, files, compact=compact, brief=brief)
        if plain:
            # Without colour the text is the markup's own, written at once: rich measures and splits
            # every line it prints, which made a provider's 100,000 warnings take minutes.
            con.file.write("".join(text.expandtabs(8) + "\n" for _, text in lines))
        else:
            for styled, _ in lines:
                con.print(styled)
    con.file.flush()
    _annotate(diags)


def _rendered(d: Diagnostic, files: dict[str, list[str] | None], *, compact: bool, brief: bool,
              ) -> list[tuple[str, str]]:
    """The lines of ``d``, each as rich markup and as the plain text that markup shows."""
    colour = "red" if d.severity == "error" else "yellow"
    label = "Error" if d.severity == "error" else "Warning"
    where = d.location()
    head = printable(where + ": " if where else "") + printable(d.summary)
    out = [(f"[bold {colour}]{label}:[/] {escape(printable(where + ': ' if where else ''))}"
            f"[bold]{escape(printable(d.summary))}[/]", f"{label}: {head}")]
    if compact:
        return out
    snippet = _snippet(d, files)
    if snippet is not None and d.range is not None:
        gutter = f"  {d.range.start.line:>4} | "
        shown, caret = _window(snippet.rstrip("\r"), max(d.range.start.column - 1, 0))  # a CRLF file's line
        shown = printable(shown)
        out.append((gutter + escape(shown), gutter + shown))
        pad = " " * (len(gutter) + caret)
        out.append((pad + "[" + colour + "]^[/]", pad + "^"))
    for line in d.detail.split("\n") if d.detail else ():
        line = printable(line)
        out.append((f"  {escape(line)}", f"  {line}"))
    if d.hint and not brief:
        hint = printable(d.hint)
        out.append((f"  [dim]Hint:[/] {escape(hint)}", f"  Hint: {hint}"))
    return out


def _shown(text: str) -> str:
    """``text`` for a rich console: no control character raw, no rich markup read into it."""
    return escape(printable(text))


def _annotate(diags: list[Diagnostic]) -> None:
    """GitHub Actions workflow commands, so each problem shows up on the line it is about."""
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for d in diags:
            kind = "error" if d.severity == "error" else "warning"
            loc = ""
            if d.range is not None:
                loc = (f" file={_escape_property(d.range.filename)},line={d.range.start.line},"
                       f"col={d.range.start.column}")
            text = d.summary if not d.address or d.range is not None else f"{d.address}: {d.summary}"
            sys.stderr.write(f"::{kind}{loc}::{_escape_data(printable(text))}\n")


def _escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped, or the runner cuts it short."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def print_error(err: CtlError) -> None:
    print_diagnostics(err.diagnostics())
    if os.environ.get("CTL_LOG", "").lower() == "debug":
        traceback.print_exception(err, file=sys.stderr)


def info(message: str) -> None:
    stderr().print(message)


def warn(message: str) -> None:
    if _sink:
        _sink[0]([Diagnostic("warning", message)])
        return
    stderr().print(f"[bold yellow]Warning:[/] {_shown(message)}")
