"""``ctl state history``: the versions of a workspace's state a store keeps, then the current one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from backends.base import HistoryEntry, StateStore
from engine.state_tools.access import open_backend


@dataclass(frozen=True)
class HistoryRow:
    """One state version in ``ctl state history``: a kept one, or the current document."""

    serial: int
    time: str  # when that version was written (RFC 3339); "" when the store cannot say
    who: str  # user@host that wrote it; "" when the store cannot say
    resources: int | None  # None: the version is encrypted and no configured key opens it
    version: str  # the ctl (or Terraform) version that wrote it
    current: bool = False
    policy_override: str = ""  # the reason given to accept soft-mandatory policy failures, if any


def history(root_dir: Path) -> list[HistoryRow]:
    """``ctl state history``: every kept version of the selected workspace, then the current one."""
    store, workspace = open_backend(root_dir)
    return history_in(store, workspace)


def history_in(store: StateStore, workspace: str) -> list[HistoryRow]:
    """Kept versions oldest first, then the current document (not kept: it is the state itself)."""
    from engine.encryption.history import resource_counts

    entries = store.history(workspace)
    current = store.current_entry(workspace)
    counts, current_count = resource_counts(store, workspace, entries, current)  # sealed versions opened
    rows = [_row(e, n) for e, n in zip(entries, counts, strict=True)]
    if current is not None:
        rows.append(_row(current, current_count, current=True))
    return rows


def _row(entry: HistoryEntry, resources: int | None, *, current: bool = False) -> HistoryRow:
    return HistoryRow(entry.serial, entry.time, entry.who, resources, entry.version, current=current,
                      policy_override=entry.policy_override)


__all__ = ["HistoryRow", "history", "history_in"]
