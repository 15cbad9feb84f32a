"""Download progress for ``ctl init`` on a terminal: one bar per provider package, on stderr.

Off a terminal nothing is drawn (CI logs get init's one-line report per provider instead).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TransferSpeedColumn

from cli import output
from engine.install.installer import DownloadProgress


@contextlib.contextmanager
def download_progress() -> Iterator[DownloadProgress | None]:
    if not sys.stderr.isatty():
        yield None
        return
    bars = Progress(TextColumn("- Downloading {task.description}"), BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), console=output.stderr(), transient=True)
    tasks: dict[str, TaskID] = {}

    def report(label: str, done: int, total: int | None) -> None:
        if label not in tasks:
            tasks[label] = bars.add_task(label, total=total)
        bars.update(tasks[label], completed=done, total=total)

    with bars:
        yield report
