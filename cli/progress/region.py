"""The live progress view's region on the terminal: shown while a phase runs, then replaced by a summary.

The region is transient (rich ``Live``), so once a phase ends ``summary_line`` is all that remains of
it on the screen, next to the lines printed above it while it ran.
"""

from __future__ import annotations

import time
from typing import Any

from cli.progress.panel import Panel
from cli.progress.tracker import Tracker


def summary_line(t: Tracker) -> str:
    """The line a phase leaves behind once its live region is gone."""
    took = f"{time.monotonic() - t.started:.1f}s"
    verb = "Refreshed" if t.phase == "refresh" else "Applied"
    ok = t.done - len(t.failed)
    count = t.total if t.total is not None and ok != t.total else ok
    noun = ("object" if t.phase == "refresh" else "operation") + ("" if count == 1 else "s")
    if t.total is not None and (ok != t.total):
        text = f"{verb} {ok} of {t.total} {noun} in {took}"
        extra = []
        if t.failed:
            extra.append(f"{len(t.failed)} failed")
        if t.total - t.done > 0:
            extra.append(f"{t.total - t.done} not finished")
        style = "red" if t.failed else "yellow"
        return f"[{style}]{text}" + (": " + ", ".join(extra) if extra else "") + "[/]"
    return f"[dim]{verb} {ok} {noun} in {took}[/]"


class LiveRegion:
    """The transient rich ``Live`` display of a ``Panel``: started when a phase has work to show,
    stopped (leaving the summary line) when the phase ends."""

    def __init__(self, console: Any, tracker: Tracker) -> None:
        self._console = console
        self._tracker = tracker
        self._live: Any = None

    @property
    def showing(self) -> bool:
        return self._live is not None

    def start(self) -> None:
        from rich.live import Live

        if self._live is None:
            self._live = Live(Panel(self._tracker), console=self._console,
                              refresh_per_second=8, transient=True, redirect_stdout=False,
                              redirect_stderr=False)
            self._live.start()

    def stop(self, *, summary: bool) -> None:
        if self._live is None:
            return
        live, self._live = self._live, None
        live.stop()
        if summary:
            self._console.print(summary_line(self._tracker), highlight=False)
