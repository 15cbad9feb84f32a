"""Refresh and apply progress for a person: a live view at a terminal, plain lines everywhere else.

The engine reports progress through one callback, ``(event, address, details)``: ``refresh_begin``
(``total``), ``refresh_start``/``refresh_complete``/``refresh_errored`` per object, ``apply_begin``
(``total``), ``apply_start``/``apply_complete``/``apply_errored`` per operation. A view is that
callback plus ``end_phase`` (before the plan is printed or a question asked) and ``close``.

* ``LiveProgress`` (an interactive terminal with colour): done/total, the operations in flight with
  their elapsed time, failures printed above the live region the moment they happen. The live region
  is transient, so what stays on the screen is a clean record: one line per finished operation, the
  failures, and a one-line summary per phase.
* ``PlainProgress`` (stdout not a terminal, ``NO_COLOR``/``CTL_NO_COLOR``, ``TERM=dumb``,
  ``--no-color``): Terraform's lines, one per event, with elapsed time and no escape bytes at all —
  ``aws_s3_bucket.logs: Creation complete after 2s [id=logs]`` — plus ``Still creating... [10s
  elapsed]`` every ten seconds, so a CI log shows that a slow operation is still alive.

Both write to stdout, where the rest of the human output (the plan, "Apply complete!") goes: the
progress lines are part of that report, as in Terraform. Callbacks arrive from worker threads
(refresh) and from the apply owner thread, so every view guards its state with a lock.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from engine.lang.values import SENSITIVE, Marked, Unknown

STILL_INTERVAL = 10.0  # seconds between "Still creating..." lines (Terraform's pace)
MASK = "(sensitive value)"
_MAX_SHOWN = 12  # operations in flight listed in the live view; the rest are counted

# action -> (present participle, noun, lower-case participle for "Still ...")
VERBS: dict[str, tuple[str, str, str]] = {
    "create": ("Creating", "Creation", "creating"),
    "update": ("Modifying", "Modifications", "modifying"),
    "delete": ("Destroying", "Destruction", "destroying"),
    "read": ("Reading", "Read", "reading"),
    "forget": ("Forgetting", "Removal from the state", "forgetting"),
}
_UNKNOWN_VERB = ("Working on", "Operation", "working on")

Events = Callable[[str, str, dict[str, Any]], None]


def verbs(action: str) -> tuple[str, str, str]:
    return VERBS.get(action, _UNKNOWN_VERB)


def format_elapsed(seconds: float) -> str:
    """``2s``, ``1m10s``: whole seconds, as Terraform prints them."""
    whole = max(int(seconds), 0)
    return f"{whole // 60}m{whole % 60}s" if whole >= 60 else f"{whole}s"


def shown_id(value: Any) -> str | None:
    """An object id fit for a progress line: secrets masked, unknown or empty ids left out."""
    if isinstance(value, Marked):
        if SENSITIVE in value.marks:
            return MASK
        value = value.value
    if value is None or isinstance(value, Unknown) or value == "":
        return None
    return str(value)


@dataclass
class _Running:
    action: str
    started: float
    next_tick: float


@dataclass
class Tracker:
    """What a view knows about the current phase: counts, what is in flight, what failed."""

    phase: str = ""
    total: int | None = None
    done: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (address, error)
    running: dict[str, _Running] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def begin(self, phase: str, total: int | None) -> None:
        self.phase, self.total, self.done = phase, total, 0
        self.failed, self.running, self.started = [], {}, time.monotonic()

    def start(self, address: str, action: str, interval: float) -> None:
        now = time.monotonic()
        self.running[address] = _Running(action, now, now + interval)

    def finish(self, address: str, error: str | None = None) -> None:
        self.running.pop(address, None)
        self.done += 1
        if error is not None:
            self.failed.append((address, error))

    def due(self, interval: float) -> list[tuple[str, str, float]]:
        """Operations that crossed another ``interval`` since their last "still running" report."""
        now = time.monotonic()
        out = []
        for addr, run in sorted(self.running.items()):
            if now >= run.next_tick:
                run.next_tick += interval
                out.append((addr, run.action, now - run.started))
        return out


class Ticker:
    """A daemon thread calling ``tick`` twice a second until stopped (for "Still creating...")."""

    def __init__(self, tick: Callable[[], None]) -> None:
        self._tick = tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def ensure_started(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="ctl-progress", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self._tick()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


class ProgressView:
    """The interface every view offers; this base shows nothing (used with ``--json`` and tests)."""

    def __call__(self, event: str, address: str, details: dict[str, Any]) -> None:
        """An engine event (the ``Events`` callback)."""

    def end_phase(self) -> None:
        """The current phase is over: stop any live display before the caller prints or prompts."""

    def close(self) -> None:
        """The run is over (also on errors): stop threads and displays, leave the summary."""

    def __enter__(self) -> ProgressView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PlainProgress(ProgressView):
    """One line per event, no colour, no cursor movement: for logs, pipes and dumb terminals."""

    def __init__(self, stream: TextIO | None = None, *, interval: float = STILL_INTERVAL) -> None:
        self._stream = stream
        self._interval = interval
        self._lock = threading.Lock()
        self._tracker = Tracker()
        self._ticker = Ticker(self._still)
        self._lines = 0  # written in the current phase

    def _write(self, line: str) -> None:
        stream = self._stream or sys.stdout
        stream.write(line + "\n")
        stream.flush()
        self._lines += 1

    def __call__(self, event: str, address: str, details: dict[str, Any]) -> None:
        with self._lock:
            self._handle(event, address, details)

    def _handle(self, event: str, address: str, details: dict[str, Any]) -> None:
        t = self._tracker
        action = str(details.get("action", ""))
        present, noun, _ = verbs(action)
        ident = shown_id(details.get("id"))
        suffix = f" [id={ident}]" if ident else ""
        elapsed = format_elapsed(float(details.get("elapsed", 0) or 0))
        if event in ("refresh_begin", "apply_begin"):
            self._end_phase()
            t.begin(event.split("_")[0], details.get("total"))
        elif event == "refresh_start":
            self._write(f"{address}: Refreshing state...{suffix}")
        elif event == "refresh_complete":
            t.finish(address)
        elif event == "refresh_errored":
            t.finish(address, str(details.get("error", "")))
            self._write(f"{address}: Refresh failed after {elapsed}")
        elif event == "apply_start":
            t.start(address, action, self._interval)
            self._ticker.ensure_started()
            self._write(f"{address}: {present}...")
        elif event == "apply_complete":
            t.finish(address)
            self._write(f"{address}: {noun} complete after {elapsed}{suffix}")
        elif event == "apply_errored":
            t.finish(address, str(details.get("error", "")))
            self._write(f"{address}: {noun} failed after {elapsed}")
        elif event == "provision_start":
            self._write(f"{address}: Provisioning with '{details.get('provisioner')}'...")
        elif event == "provision_output":
            self._write(f"{address} ({details.get('provisioner')}): {details.get('line', '')}")
        elif event == "provision_errored":
            self._write(f"{address}: Provisioning with {details.get('provisioner')} failed")

    def _still(self) -> None:
        with self._lock:
            for addr, action, seconds in self._tracker.due(self._interval):
                self._write(f"{addr}: Still {verbs(action)[2]}... [{format_elapsed(seconds)} elapsed]")

    def _end_phase(self) -> None:
        """A blank line after the refresh lines, so the plan that follows stands apart (as in Terraform)."""
        if self._tracker.phase == "refresh" and self._lines:
            (self._stream or sys.stdout).write("\n")
        self._lines = 0
        self._tracker.phase = ""

    def end_phase(self) -> None:
        with self._lock:
            self._end_phase()

    def close(self) -> None:
        self._ticker.stop()
        with self._lock:
            self._end_phase()


class LiveProgress(ProgressView):
    """A rich live region at an interactive terminal; finished work is printed above it for good."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self._console = console or Console(file=sys.stdout, force_terminal=True, highlight=False, emoji=False)
        self._lock = threading.RLock()
        self._tracker = Tracker()
        self._live: Any = None

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
            self._stop_live(summary=True)
            t.begin(event.split("_")[0], details.get("total"))
            if details.get("total"):
                self._start_live()
            return
        if event in ("refresh_start", "apply_start"):
            if self._live is None:  # no "begin" seen: show what we can, without a total
                t.phase = t.phase or event.split("_")[0]
                self._start_live()
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
            self._stop_live(summary=True)

    # -- the live region ------------------------------------------------------------------------

    def _print(self, markup: str) -> None:
        self._console.print(markup, highlight=False)

    def _start_live(self) -> None:
        from rich.live import Live

        if self._live is None:
            self._live = Live(_Panel(self._tracker), console=self._console,
                              refresh_per_second=8, transient=True, redirect_stdout=False,
                              redirect_stderr=False)
            self._live.start()

    def _stop_live(self, *, summary: bool) -> None:
        if self._live is None:
            return
        live, self._live = self._live, None
        live.stop()
        if summary:
            self._print(_summary(self._tracker))

    def end_phase(self) -> None:
        with self._lock:
            self._stop_live(summary=True)

    def close(self) -> None:
        with self._lock:
            self._stop_live(summary=True)


def _summary(t: Tracker) -> str:
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


class _Panel:
    """The live region, rebuilt from the tracker at every refresh (rich calls ``__rich__``).

    It reads the tracker without the view's lock: rich calls it holding the live display's own lock,
    and the view takes its lock before printing through that display, so taking both here could
    deadlock. ``dict.copy`` is atomic, which is all a snapshot needs.
    """

    def __init__(self, tracker: Tracker) -> None:
        self._t = tracker

    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.spinner import Spinner
        from rich.table import Table
        from rich.text import Text

        t = self._t
        now = time.monotonic()
        running = sorted(t.running.copy().items(), key=lambda kv: kv[1].started)
        done, total, failed = t.done, t.total, len(t.failed)
        title = "Refreshing state" if t.phase == "refresh" else "Applying"
        took = format_elapsed(now - t.started)
        counts = Text(f"{done}/{total}" if total is not None else f"{done} done")
        counts.append(f" · {len(running)} in flight", style="cyan")
        if failed:
            counts.append(f" · {failed} failed", style="bold red")
        counts.append(f" · {took}", style="dim")
        head = Table.grid(padding=(0, 1))
        head.add_row(
            Spinner("dots", style="cyan"),
            Text(title, style="bold"),
            ProgressBar(total=float(total or 1), completed=float(done), width=24) if total else Text(""),
            counts,
        )
        rows = Table.grid(padding=(0, 2))
        for addr, run in running[:_MAX_SHOWN]:
            label = "refreshing" if run.action == "refresh" else verbs(run.action)[2]
            rows.add_row(Text("  "), Text(addr, style="bold"), Text(label, style="cyan"),
                         Text(format_elapsed(now - run.started), style="dim"))
        parts: list[Any] = [head, rows]
        if len(running) > _MAX_SHOWN:
            parts.append(Text(f"    … and {len(running) - _MAX_SHOWN} more", style="dim"))
        return Group(*parts)


def for_terminal(*, enabled: bool = True) -> ProgressView:
    """The view for a human: live at an interactive colour terminal, plain lines otherwise."""
    from cli import output

    if not enabled:
        return ProgressView()
    if output.color_enabled(sys.stdout):
        return LiveProgress()
    return PlainProgress()


__all__ = ["LiveProgress", "PlainProgress", "ProgressView", "Ticker", "Tracker", "for_terminal",
           "format_elapsed", "shown_id", "verbs"]
