"""Refresh and apply progress for a person: a live view at a terminal, plain lines everywhere else.

The engine reports progress through one callback, ``(event, address, details)``: ``refresh_begin``
(``total``), ``refresh_start``/``refresh_complete``/``refresh_errored`` per object, ``apply_begin``
(``total``), ``apply_start``/``apply_complete``/``apply_errored`` per operation. A view is that
callback plus ``end_phase`` (before the plan is printed or a question asked) and ``close``.

* ``LiveProgress`` (``cli/progress/live.py``; an interactive terminal with colour): done/total, the
  operations in flight with their elapsed time, failures printed above the live region the moment
  they happen. The live region is transient, so what stays on the screen is a clean record: one line
  per finished operation, the failures, and a one-line summary per phase.
* ``PlainProgress`` (``cli/progress/plain.py``; stdout not a terminal, ``NO_COLOR``/``CTL_NO_COLOR``,
  ``TERM=dumb``, ``--no-color``): Terraform's lines, one per event, with elapsed time and no escape bytes at all —
  ``aws_s3_bucket.logs: Creation complete after 2s [id=logs]`` — plus ``Still creating... [10s
  elapsed]`` every ten seconds, so a CI log shows that a slow operation is still alive.

Both write to stdout, where the rest of the human output (the plan, "Apply complete!") goes: the
progress lines are part of that report, as in Terraform. Callbacks arrive from worker threads
(refresh) and from the apply owner thread, so every view guards its state with a lock.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

Events = Callable[[str, str, dict[str, Any]], None]


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


def for_terminal(*, enabled: bool = True) -> ProgressView:
    """The view for a human: live at an interactive colour terminal, plain lines otherwise."""
    from cli import output
    from cli.progress.live import LiveProgress  # both views build on ProgressView above
    from cli.progress.plain import PlainProgress

    if not enabled:
        return ProgressView()
    if output.color_enabled(sys.stdout):
        return LiveProgress()
    return PlainProgress()

