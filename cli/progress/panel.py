"""What the live progress view draws in its region, rebuilt from the tracker at every refresh.

A spinner, done/total with a bar, and the operations in flight with their elapsed time (at most
``MAX_SHOWN`` of them; the rest are counted).
"""

from __future__ import annotations

import time
from typing import Any

from cli.progress.tracker import Tracker
from cli.progress.words import format_elapsed, verbs

MAX_SHOWN = 12  # operations in flight listed in the live view; the rest are counted


class Panel:
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
        for addr, run in running[:MAX_SHOWN]:
            label = "refreshing" if run.action == "refresh" else verbs(run.action)[2]
            rows.add_row(Text("  "), Text(addr, style="bold"), Text(label, style="cyan"),
                         Text(format_elapsed(now - run.started), style="dim"))
        parts: list[Any] = [head, rows]
        if len(running) > MAX_SHOWN:
            parts.append(Text(f"    … and {len(running) - MAX_SHOWN} more", style="dim"))
        return Group(*parts)

