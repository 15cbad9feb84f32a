"""The apply journal: a durable, append-only log of what an apply is doing, one line per event.

Writing the whole state after every operation would make an apply of N resources write O(N²)
bytes. Instead the apply appends a small entry per event — an *intent* before calling the cloud,
a *result* after — and writes the full state only at the end (and every so often, see
``StateManager.maybe_compact``). After a crash, ``replay`` rebuilds the state from the last full
snapshot plus the journal, and every intent without a result becomes an ``Orphan``: an operation
that may or may not have happened, which the next run must reconcile (for a create, by looking
the object up by its planned identity).

Each entry also records the lineage and serial of the snapshot it builds on, so entries that a
later snapshot already contains (a crash between writing the state and clearing the journal) are
never applied twice.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from backends.base import BackendError, JournalSync, StateStore
from engine.state.address import InstanceAddress
from engine.state.codec import SURROGATE_HINT, holds_lone_surrogate, paths_from_json, paths_to_json
from engine.state.model import InstanceState, OutputValue, State
from vocab.errors import CtlError
from vocab.values import contains_unknown, is_marked, unmark

_log = logging.getLogger(__name__)

OPS = ("create", "update", "delete", "read")


@dataclass(frozen=True, slots=True)
class Orphan:
    """An operation that was started (intent recorded) but whose outcome was never recorded."""

    address: str
    op: str
    planned_identity: Any = None
    deposed: str | None = None


def planned_identity(planned: Any) -> dict[str, Any] | None:
    """The part of a planned object an intent records, for ``ResourceType.find`` after a crash.

    Only values known at plan time and not sensitive: the journal sits next to the state and must
    not hold secrets, and unknown values identify nothing. An argument with a secret anywhere
    inside it (a password in a map of tags) is left out whole: half a map would not identify the
    object either, and the secret must not be written.
    """
    if not isinstance(planned, dict):
        return None
    plain_object, marks = unmark(planned)
    if marks or not isinstance(plain_object, dict):
        return None
    out = {}
    for name, value in plain_object.items():
        if is_marked(value) or contains_unknown(value):
            continue
        out[name] = value
    return out


class Journal:
    """Appends entries for one workspace; ``lineage``/``base_serial`` tie them to a snapshot."""

    def __init__(
        self,
        store: StateStore,
        workspace: str,
        *,
        lineage: str | None = None,
        base_serial: int | None = None,
        next_seq: int = 1,
    ) -> None:
        self.store = store
        self.workspace = workspace
        self.lineage = lineage
        self.base_serial = base_serial
        self.next_seq = next_seq
        self.appended = 0  # entries since the last full state write (read by maybe_compact)
        self.appended_bytes = 0  # their size: compaction is due when it rivals the state's size
        self._grouping = False  # inside ``grouped``: results wait for ``flush`` to be fsync'd
        self._owed = False  # entries written since the last fsync that were meant to be synced
        # Intents with no result yet, by (address, deposed key): a compaction writes them again, so an
        # operation still running, or one whose outcome nobody knows (its provider crashed), stays
        # unfinished in the journal for the next run to report, as a killed apply's does.
        self._open: dict[tuple[str, str | None], dict[str, Any]] = {}
        # Given when the run measures itself: every append, fsync and clear runs inside it (time
        # waiting on the backend; one object per entry in S3, GCS or Azure).
        self.measured: Callable[[], AbstractContextManager[object]] | None = None

    def _measuring(self) -> AbstractContextManager[object]:
        return nullcontext() if self.measured is None else self.measured()

    @contextmanager
    def grouped(self) -> Iterator[None]:
        """Group commit for results: each one is written at once, the fsync waits for ``flush``.

        A result appended here is in the file as soon as ``record_result`` returns, so a killed ctl
        (kill -9) still finds it; only its fsync, which guards against a power cut, is shared by
        every result of a batch: the apply walker calls ``flush`` after each batch of finished
        operations, before it starts anything else. Intents are never deferred (the intent of an
        operation that reaches out must be durable before the call), and an intent's fsync makes
        every line before it durable too. Stores without ``journal_sync`` sync every entry.
        """
        if not isinstance(self.store, JournalSync):
            yield
            return
        self._grouping = True
        try:
            yield
        finally:
            self._grouping = False
            self.flush()

    def flush(self) -> None:
        """Make every entry written so far durable (one fsync), if any is waiting for it."""
        if self._owed:
            self._owed = False
            if isinstance(self.store, JournalSync):  # only a store that groups entries owes a sync
                with self._measuring():
                    self.store.journal_sync(self.workspace)

    def record_intent(
        self,
        address: str | InstanceAddress,
        op: str,
        *,
        planned_identity: Any = None,
        deposed: str | None = None,
        sync: bool = True,
    ) -> int:
        """Record that ``op`` on ``address`` is about to start; returns the entry's sequence number.

        ``sync=False`` for an operation on an object that lives only in state: a power loss may then
        lose the intent (the next run would just create the object), never a kill (see the store).
        """
        entry: dict[str, Any] = {"kind": "intent", "op": _check_op(op), "address": str(address)}
        if planned_identity is not None:
            entry["planned_identity"] = planned_identity
        if deposed:
            entry["deposed"] = deposed
        self._open[(entry["address"], deposed or None)] = entry
        return self._append(entry, sync)

    def _settle(self, address: str | InstanceAddress, deposed: str | None) -> None:
        key = str(address)
        if self._open.pop((key, deposed or None), None) is None and deposed:
            self._open.pop((key, None), None)  # a replacement's delete learns its deposed key later

    def record_result(
        self,
        address: str | InstanceAddress,
        op: str,
        instance: InstanceState | None = None,
        *,
        provider: str | None = None,
        sync: bool = True,
    ) -> int:
        """Record the outcome: the new object for create/update/read, nothing for delete.

        ``sync=False`` as for ``record_intent``: never fsynced on its own account, not even with a
        batch; any later synced line makes it durable."""
        entry: dict[str, Any] = {"kind": "result", "op": _check_op(op), "address": str(address)}
        self._settle(address, instance.deposed if instance is not None else None)
        if op == "delete":
            if instance is not None and instance.deposed:
                entry["deposed"] = instance.deposed
            return self._append(entry, sync)
        if instance is None:
            raise ValueError(f"a {op} result needs the resulting instance")
        entry.update(_instance_fields(instance))
        if provider:
            entry["provider"] = provider
        return self._append(entry, sync)

    def record_removed(self, address: str | InstanceAddress, *, deposed: str | None = None,
                       sync: bool = True) -> int:
        """Record that the object at ``address`` is gone (a completed delete); ``sync`` as for
        ``record_result``."""
        entry: dict[str, Any] = {"kind": "result", "op": "delete", "address": str(address)}
        if deposed:
            entry["deposed"] = deposed
        self._settle(address, deposed)
        return self._append(entry, sync)

    def record_failed(self, address: str | InstanceAddress, op: str, *, deposed: str | None = None) -> int:
        """Record that ``op`` failed cleanly: the intent is settled and the state is unchanged."""
        entry: dict[str, Any] = {
            "kind": "result",
            "op": _check_op(op),
            "address": str(address),
            "failed": True,
        }
        if deposed:
            entry["deposed"] = deposed
        self._settle(address, deposed)
        return self._append(entry)

    def record_output(self, name: str, output: OutputValue | None) -> int:
        """Record a root output's new value (``None`` removes it)."""
        entry: dict[str, Any] = {"kind": "output", "address": f"output.{name}", "name": name}
        if output is not None:
            entry.update(value=output.value, type=output.type, sensitive=output.sensitive)
        else:
            entry["removed"] = True
        return self._append(entry)

    def entries(self) -> list[dict[str, Any]]:
        """The stored entries in order (lines that are not entries are skipped, see ``parse_entries``)."""
        return parse_entries(self.store.journal_read(self.workspace))

    def clear(self) -> None:
        with self._measuring():
            self.store.journal_clear(self.workspace)
        self._owed = False  # the snapshot just written holds everything the journal had
        self.appended = 0
        self.appended_bytes = 0
        for entry in list(self._open.values()):  # still unfinished: not in the snapshot just written
            self._append(entry)

    def _append(self, entry: dict[str, Any], sync: bool = True) -> int:
        seq = self.next_seq
        full: dict[str, Any] = {"seq": seq, **entry, "time": _now()}
        if self.lineage is not None:
            full["lineage"] = self.lineage
        if self.base_serial is not None:
            full["serial"] = self.base_serial
        line = _LINE.encode(full).encode()
        defer = sync and self._grouping and entry["kind"] != "intent"
        if self.measured is None:  # the hot path of a large apply: not even a null context
            self.store.journal_append(self.workspace, line, sync=sync and not defer)
        else:
            with self.measured():
                self.store.journal_append(self.workspace, line, sync=sync and not defer)
        if defer:
            self._owed = True
        elif sync:
            self._owed = False  # this fsync covered every line written before it
        self.next_seq = seq + 1
        self.appended += 1
        self.appended_bytes += len(line) + 1
        return seq


def parse_entries(lines: list[bytes], source: str = "") -> list[dict[str, Any]]:
    """Decode journal lines; a line that is not a JSON entry is skipped with a warning.

    A sealed line (an encrypted apply's, read without its key) stops the run instead, as a sealed
    state does: skipped, the entries of a killed encrypted apply would be lost, its objects created
    again and the journal cleared. ``source`` names the state in that error.

    Stores already drop a last line torn by a crash, so a bad line here is damage (a disk error,
    an edit by hand), which the user must hear about. Skipping is still the safest reading: an
    entry is written before the operation it announces starts (intent) or after it finished
    (result), so a lost intent means nothing started and a lost result leaves its intent unmatched,
    which replay reports as an orphan.
    """
    out = []
    bad: list[int] = []
    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if (b'"encrypt' in line or line.startswith(b'{"meta":')) and _sealed(line, entry):
            raise _sealed_journal(source)
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("kind"), str)
            and isinstance(entry.get("address"), str)
            and type(entry.get("seq", 0)) is int  # the order entries are replayed in
            and not (SURROGATE_HINT.search(line) and holds_lone_surrogate(entry))  # unwritable text
        ):
            out.append(entry)
        else:
            bad.append(number)
    if bad:
        shown = ", ".join(map(str, bad[:10])) + (" …" if len(bad) > 10 else "")
        _log.warning("the apply journal has %d unreadable entr%s (line %s), skipped; a change made by "
                     "the interrupted apply may be missing from the state: check `ctl plan`",
                     len(bad), "y" if len(bad) == 1 else "ies", shown)
    return out


def _sealed(line: bytes, entry: Any) -> bool:
    """Whether a journal line is an encrypted entry (whole, or cut short by damage)."""
    from engine.encryption.envelope import is_encrypted, looks_sealed

    if isinstance(entry, dict):
        return "kind" not in entry and is_encrypted(line)
    return looks_sealed(line)


def _sealed_journal(source: str) -> CtlError:
    where = f" of the state at {source}" if source else ""
    return BackendError(
        f"the apply journal{where} is encrypted",
        detail="An encrypted apply was interrupted; its journal records what it did, and only the key "
               "it was written with can read it. Nothing was read or written.",
        hint="Configure the same encryption as the configuration that wrote it: an encryption block in "
             "terraform {}, or CTL_ENCRYPTION.",
    )


def replay(state: State, entries: list[dict[str, Any]]) -> tuple[State, list[Orphan]]:
    """Apply the journal's results to a copy of ``state``; report intents that have no result."""
    new_state, orphans, _ = replay_counted(state, entries)
    return new_state, orphans


def replay_counted(state: State, entries: list[dict[str, Any]]) -> tuple[State, list[Orphan], int]:
    """``replay`` plus the number of entries that changed the state (``StateManager.replayed``)."""
    out = state.copy()
    pending: dict[tuple[str, str, str | None], list[dict[str, Any]]] = {}
    applied = 0
    for entry in entries:
        lineage = entry.get("lineage")
        if lineage is not None and lineage != state.lineage:
            continue  # written against another state altogether
        slot = (entry["address"], str(entry.get("op")), entry.get("deposed"))
        if entry["kind"] == "intent":
            pending.setdefault(slot, []).append(entry)
            continue
        change = _decode_change(entry)
        if change is None:
            continue  # unusable entry: its intent, if any, stays an orphan
        if entry["kind"] == "result" and pending.get(slot):
            pending[slot].pop(0)
        serial = entry.get("serial")
        if entry.get("failed") or (isinstance(serial, int) and serial < state.serial):
            continue  # nothing changed, or the snapshot already contains the change
        _apply(out, change)
        applied += 1
    waiting = sorted((e for queue in pending.values() for e in queue), key=lambda e: e.get("seq", 0))
    orphans = [
        Orphan(e["address"], str(e.get("op")), e.get("planned_identity"), e.get("deposed")) for e in waiting
    ]
    return out, orphans, applied


@dataclass(frozen=True, slots=True)
class _Change:
    """One validated state change from a journal entry."""

    kind: str  # "set" | "remove" | "output"
    address: InstanceAddress | None = None
    instance: InstanceState | None = None
    provider: str | None = None
    deposed: str | None = None
    output_name: str = ""
    output: OutputValue | None = None


def _decode_change(entry: dict[str, Any]) -> _Change | None:
    """The change an entry describes, or None when the entry is malformed."""
    kind, op = entry["kind"], entry.get("op")
    try:
        if kind == "output":
            name = entry.get("name")
            if not isinstance(name, str):
                return None
            if entry.get("removed"):
                return _Change("output", output_name=name)
            value = OutputValue(entry.get("value"), entry.get("type"), bool(entry.get("sensitive")))
            return _Change("output", output_name=name, output=value)
        if kind != "result" or op not in OPS:
            return None
        addr = InstanceAddress.parse(entry["address"])
        deposed = entry.get("deposed") if isinstance(entry.get("deposed"), str) else None
        if op == "delete" or entry.get("failed"):
            return _Change("remove", addr, deposed=deposed)
        provider = entry.get("provider") if isinstance(entry.get("provider"), str) else None
        return _Change("set", addr, _instance_from(entry), provider)
    except (CtlError, ValueError, TypeError):
        return None


def _apply(state: State, change: _Change) -> None:
    if change.kind == "output":
        if change.output is None:
            state.outputs.pop(change.output_name, None)
        else:
            state.outputs[change.output_name] = change.output
    elif change.kind == "remove" and change.address is not None:
        state.remove_instance(change.address, change.deposed)
    elif change.address is not None and change.instance is not None:
        state.set_instance(change.address, change.instance, provider=change.provider)


def _instance_fields(inst: InstanceState) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "attributes": inst.attributes,
        "sensitive_attributes": paths_to_json(list(inst.sensitive_attributes)),
        "dependencies": list(inst.dependencies),
        "schema_version": inst.schema_version,
    }
    if inst.create_before_destroy:
        fields["create_before_destroy"] = True
    if inst.private:
        fields["private"] = inst.private
    if inst.status:
        fields["status"] = inst.status
    if inst.deposed:
        fields["deposed"] = inst.deposed
    return fields


def _instance_from(entry: dict[str, Any]) -> InstanceState:
    """Rebuild an instance; ValueError/TypeError when the entry is malformed (never guess secrets)."""
    attributes = entry.get("attributes")
    if not isinstance(attributes, dict):
        raise ValueError("a result without attributes")
    return InstanceState(
        schema_version=int(entry.get("schema_version") or 0),
        attributes=attributes,
        sensitive_attributes=paths_from_json(entry.get("sensitive_attributes") or []),
        dependencies=[str(d) for d in entry.get("dependencies") or []],
        create_before_destroy=bool(entry.get("create_before_destroy")),
        status=entry.get("status") if isinstance(entry.get("status"), str) else None,
        private=entry.get("private") if isinstance(entry.get("private"), str) else None,
        deposed=entry.get("deposed") if isinstance(entry.get("deposed"), str) else None,
    )


def _check_op(op: str) -> str:
    if op not in OPS:
        raise ValueError(f"unknown journal operation {op!r}; expected one of {', '.join(OPS)}")
    return op


# One encoder for every line: ``json.dumps`` with options builds a new one per call.
_LINE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _now() -> str:
    """RFC 3339 in UTC to the microsecond (``isoformat`` takes two thirds of ``strftime``'s time)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"
