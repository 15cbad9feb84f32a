"""The plain progress view: Terraform's lines, one per event, for logs, pipes and dumb terminals.

``aws_s3_bucket.logs: Creation complete after 2s [id=logs]``, plus ``Still creating... [10s
elapsed]`` every ten seconds so a CI log shows that a slow operation is still alive; no colour and
no escape bytes at all.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from cli.progress import ProgressView
from cli.progress.tracker import Ticker, Tracker
from cli.progress.words import STILL_INTERVAL, format_elapsed, shown_id, verbs


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
        """One event; what a line shows is worked out only for the events that write one (a
        refresh of 50,000 objects is 100,000 events, half of which write nothing)."""
        t = self._tracker
        if event == "refresh_complete":
            t.finish(address)
        elif event in ("refresh_begin", "apply_begin"):
            self._end_phase()
            t.begin(event.split("_")[0], details.get("total"))
        elif event == "refresh_start":
            self._write(f"{address}: Refreshing state...{_id_suffix(details)}")
        elif event == "refresh_errored":
            t.finish(address, str(details.get("error", "")))
            self._write(f"{address}: Refresh failed after {_elapsed(details)}")
        elif event == "apply_start":
            t.start(address, str(details.get("action", "")), self._interval)
            self._ticker.ensure_started()
            self._write(f"{address}: {_verbs(details)[0]}...")
        elif event == "apply_complete":
            t.finish(address)
            self._write(f"{address}: {_verbs(details)[1]} complete after {_elapsed(details)}{_id_suffix(details)}")
        elif event == "apply_errored":
            t.finish(address, str(details.get("error", "")))
            self._write(f"{address}: {_verbs(details)[1]} failed after {_elapsed(details)}")
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


def _verbs(details: dict[str, Any]) -> tuple[str, str, str]:
    return verbs(str(details.get("action", "")))


def _id_suffix(details: dict[str, Any]) -> str:
    ident = shown_id(details.get("id"))
    return f" [id={ident}]" if ident else ""


def _elapsed(details: dict[str, Any]) -> str:
    return format_elapsed(float(details.get("elapsed", 0) or 0))
