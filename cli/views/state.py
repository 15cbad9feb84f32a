"""What ``ctl state history``, ``rollback`` and ``lock-status`` print: the table, the diff and the lock.

Functions return text (or a JSON document) so the commands stay a thin layer of options and calls;
the words and columns here are what people read in terminals and CI logs, and what scripts parse.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.locking.status import LockStatus
    from engine.state_tools.history import HistoryRow
    from engine.state_tools.rollback import RollbackPlan


def history_table(rows: list[HistoryRow]) -> str:
    """SERIAL, TIME, WHO, RESOURCES in aligned columns, then notes (current, policy override)."""
    table = [("SERIAL", "TIME", "WHO", "RESOURCES", "")]
    table += [(str(r.serial), r.time or "-", r.who or "-", "sealed" if r.resources is None else str(r.resources),
               _history_notes(r)) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)).rstrip()
                   + (f"  {row[4]}" if row[4] else "") + "\n" for row in table)


def _history_notes(row: HistoryRow) -> str:
    """The last column of ``state history``: the current version, and an accepted policy failure."""
    notes = ["(current)"] if row.current else []
    if row.policy_override:
        notes.append(f"policy override: {row.policy_override}")
    return "  ".join(notes)


def rollback_diff(plan: RollbackPlan) -> str:
    """The diff shown before a rollback, from the point of view of the current state."""
    diff = plan.diff
    lines = [f"Rolling back from serial {plan.current_serial} to the kept version {plan.serial} "
             f"(written as serial {plan.new_serial}):", ""]
    lines += [f"  + {a}  (back in the state)" for a in diff.added]
    lines += [f"  - {a}  (no longer in the state)" for a in diff.removed]
    lines += [f"  ~ {a}  ({', '.join(fields)})" for a, fields in diff.changed]
    lines += [f"  + output.{o}" for o in diff.outputs_added]
    lines += [f"  - output.{o}" for o in diff.outputs_removed]
    lines += [f"  ~ output.{o}" for o in diff.outputs_changed]
    outs = len(diff.outputs_added) + len(diff.outputs_removed) + len(diff.outputs_changed)
    lines += ["", f"Resources: {len(diff.added)} back, {len(diff.removed)} dropped, {len(diff.changed)} changed; "
              f"outputs: {outs} changed.", ""]
    return "\n".join(lines)


def lock_status_json(status: LockStatus) -> dict[str, object]:
    """``{locked, lock, age_seconds, heartbeat_age_seconds, abandoned, unlock_command}`` (only ``locked`` when free)."""
    doc: dict[str, object] = {"locked": status.info is not None}
    if status.info is not None:
        doc["lock"] = asdict(status.info)
        doc["age_seconds"] = _rounded(status.age_seconds)
        doc["heartbeat_age_seconds"] = _rounded(status.heartbeat_age_seconds)
        doc["abandoned"] = status.abandoned
        doc["unlock_command"] = status.unlock_command
    return doc


def lock_status_text(status: LockStatus) -> str:
    """Whether the state is locked, the lock described, and the command that releases (or breaks) it."""
    if status.info is None:
        return "The state is not locked.\n"
    verb = "Break it (only if no run is using the state)" if status.abandoned else \
        "Release it (only if no run is using the state)"
    return "The state is locked.\n" + status.description + f"\n{verb} with: {status.unlock_command}\n"


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


__all__ = ["history_table", "lock_status_json", "lock_status_text", "rollback_diff"]
