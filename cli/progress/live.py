"""The live progress view at an interactive colour terminal: what each engine event does to it.

Done/total and the operations in flight are shown in a transient live region (``cli/progress/region.py``);
finished operations and failures are printed above it the moment they happen, so what stays on the
screen is a clean record with a one-line summary per phase.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from cli.progress import ProgressView
from cli.progress.region import LiveRegion
from cli.progress.tracker import Tracker
from cli.progress.words import STILL_INTERVAL, format_elapsed, shown_id, verbs


class LiveProgress(ProgressView):
    """A rich live region at an interactive terminal; finished work is printed above it for good."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self._console = console or Console(file=sys.stdout, force_terminal=True, highlight=False, emoji=False)
        self._lock = threading.RLock()
        self._tracker = Tracker()
        self._region = LiveRegion(self._console, self._tracker)

    # -- events ---------------------------------------------------------------------------------

    def __call__(self, event: str, address: str, details: dict[str, Any]) -> None:
        with self._lock:
            self._handle(event, address, details)

    def _handle(self, event: str, address: str, details: dict[str, Any]) -> None:
        from rich.markup import escape

        t = self._tracker
        action = str(details.get("action", ""))
        _, noun, _ = verbs(action)
        elapsed = format_elapsed(float(details.get("elapsed", 0) or 0))
        ident = shown_id(details.get("id"))
        suffix = escape(f" [id={ident}]") if ident else ""
        if event in ("refresh_begin", "apply_begin"):
            self._region.stop(summary=True)
            t.begin(event.split("_")[0], details.get("total"))
            if details.get("total"):
                self._region.start()
            return
        if event in ("refresh_start", "apply_start"):
            if not self._region.showing:  # no "begin" seen: show what we can, without a total
                t.phase = t.phase or event.split("_")[0]
                self._region.start()
            t.start(address, action or "refresh", STILL_INTERVAL)
        elif event == "refresh_complete":
            t.finish(address)
        elif event == "apply_complete":
            t.finish(address)
            self._print(f"[green]✓[/] {escape(address)}: {noun} complete after {elapsed}{suffix}")
        elif event in ("refresh_errored", "apply_errored"):
            t.finish(address, str(details.get("error", "")))
            what = "Refresh" if event == "refresh_errored" else noun
            error = escape(str(details.get("error", "")))
            self._print(f"[bold red]✗ {escape(address)}: {what} failed after {elapsed}[/]"
                        + (f"\n    [red]{error}[/]" if error else ""))
        elif event == "provision_start":
            self._print(escape(f"{address}: Provisioning with '{details.get('provisioner')}'..."))
        elif event == "provision_output":
            self._print(escape(f"{address} ({details.get('provisioner')}): {details.get('line', '')}"))
        elif event == "provision_errored":
            self._print(f"[bold red]✗ {escape(address)}: Provisioning with {details.get('provisioner')} failed[/]")
        if t.phase == "refresh" and t.total is not None and t.done >= t.total and not t.running:
            self._region.stop(summary=True)

    # -- the live region ------------------------------------------------------------------------

    def _print(self, markup: str) -> None:
        self._console.print(markup, highlight=False)

    def end_phase(self) -> None:
        with self._lock:
            self._region.stop(summary=True)

    def close(self) -> None:
        with self._lock:
            self._region.stop(summary=True)
