"""Whether ``ctl init`` is switching an initialized directory to another backend, and from where.

A switch is refused unless the user says what should happen to the state (``--migrate-state`` or
``--reconfigure``), so the state left in the previous backend is never silently forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.base import StateStore
from backends.local.store import DEFAULT_FILENAME
from engine.session import BackendRecord, public_settings
from vocab.errors import CtlError


@dataclass(frozen=True)
class PreviousBackend:
    """Where the state was before, when that is another place: the store, if it could be opened."""

    where: str
    store: StateStore | None
    problem: str = ""


def previous_backend(root_dir: Path, record: BackendRecord | None, kind: str, settings: dict[str, Any],
              new: StateStore) -> PreviousBackend | None:
    """The backend the state was in before, when the configuration now names another; else None.

    Without a record, a directory that used the local default (``ctl.tfstate``) before getting a
    backend block has its state there: that counts as a change only when there is state to lose.
    Opening the previous store may fail (its credentials are gone): that matters only for copying.
    """
    from backends import factory

    if record is None:
        if kind == "local" and new.describe() == str(root_dir / DEFAULT_FILENAME):
            return None
        old = factory.make_store("local", {}, root_dir)
        return PreviousBackend(f"local ({old.describe()})", old) if workspaces_with_state(old) else None
    if record.kind == kind and public_settings(record.config) == public_settings(settings):
        return None
    try:
        old = factory.make_store(record.kind, record.config, root_dir)
    except CtlError as exc:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(public_settings(record.config).items()))
        return PreviousBackend(f"{record.kind} ({shown})", None, exc.summary)
    if record.kind == kind and old.describe() == new.describe():
        return None  # other spelling, same place (``./ctl.tfstate`` and ``ctl.tfstate``)
    return PreviousBackend(f"{record.kind} ({old.describe()})", old)


def changed_error(previous: PreviousBackend, kind: str, new: StateStore) -> CtlError:
    return CtlError(
        f"Backend configuration changed: {previous.where} → {kind} ({new.describe()})",
        detail="The state of the previous backend is not copied unless you ask for it.",
        hint="Run `ctl init --migrate-state` to copy every workspace's state to the new backend, or "
             "`ctl init --reconfigure` to use the new backend without copying.",
    )


def workspaces_with_state(store: StateStore) -> list[str]:
    """Workspaces that hold a state or the journal of an interrupted apply (both must move)."""
    return [ws for ws in store.workspaces() if store.read(ws) is not None or store.journal_read(ws)]
