"""The state-store protocol on top of an object store (S3, GCS, Azure Blob), written once.

The three cloud stores differ only in five primitives — get, conditional put, conditional delete,
list, and how they name things — so the protocol (compare-and-swap writes, history, lock files,
heartbeats, journal, probe) lives here and each backend supplies just those primitives. That keeps
the subtle part (what is checked against which version, in which order) identical everywhere.

Layout per workspace, next to the state object ``<state>`` (whose name each backend decides):

* ``<state>``                         the state; object metadata ``who``/``time`` say who wrote it when
* ``<lock>``                          the lock object (``<state>.tflock`` on S3 and Azure,
                                      ``<prefix><workspace>.tflock`` on GCS, as Terraform names it)
* ``<state>.history/<serial>.tfstate`` every replaced document, metadata: who, time, resources, version
* ``<state>.journal/<seq:012d>``      one object per journal entry, created only if absent

Version tokens are what the store's own conditions take: the ETag (S3, Azure), the generation (GCS).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar

from backends.base import (
    DEFAULT_WORKSPACE,
    BackendError,
    HistoryEntry,
    Snapshot,
    check_workspace_name,
    conflict_error,
    lock_held_error,
    lock_lost_error,
    lock_mismatch_error,
    not_locked_error,
    state_facts,
)
from backends.objectstore.objects import (
    ObjectInfo,
    PreconditionFailed,
    StoredObject,
    encode_metadata,
    fits_metadata,
    metadata_value,
)
from vocab.errors import CtlError
from vocab.locks import LockInfo, now_rfc3339, unreadable_lock, who_am_i

# How often a lock or journal operation re-reads after losing a race to another writer before giving
# up. Each round means another process changed the object in between; more than a few is pathological.
_RACE_ROUNDS = 5
_HISTORY_NAME = re.compile(r"(\d+)\.tfstate$")
_JOURNAL_NAME = re.compile(r"(\d{12})$")
UNLOCK_COMMAND = "ctl state unlock"


class ObjectStateStore(ABC):
    """Everything of the ``StateStore`` protocol, given the primitives of one object store."""

    backend: ClassVar[str] = "object"  # "s3", "gcs", "azurerm": names the backend in every message
    meta_separator: ClassVar[str] = "-"  # Azure metadata names must be identifiers: it uses "_"
    # What the probe's messages call the store's conditions, for the user who must check the product.
    create_condition: ClassVar[str] = "If-None-Match: *"
    swap_condition: ClassVar[str] = "If-Match"

    def __init__(self) -> None:
        self._journal_next: dict[str, int] = {}

    # -- primitives each backend provides ------------------------------------------------------------

    @abstractmethod
    def _url(self, key: str) -> str:
        """How messages name an object: ``s3://bucket/key``, ``gs://bucket/key``, ``azurerm://…``."""

    @abstractmethod
    def _get(self, key: str, *, metadata: bool = False) -> StoredObject | None:
        """The object with its token, None if it does not exist.

        With ``metadata`` also its metadata and last-modified time (stores that return them with the
        bytes anyway may always fill them in).
        """

    @abstractmethod
    def _put(
        self,
        key: str,
        data: bytes,
        *,
        if_match: str | None = None,
        if_absent: bool = False,
        metadata: dict[str, str] | None = None,
    ) -> str:
        """Store the object (only if absent / only if at ``if_match``); its new token.

        ``PreconditionFailed`` when the condition does not hold, including ``if_match`` on a missing
        object.
        """

    @abstractmethod
    def _delete(self, key: str, *, if_match: str | None = None) -> bool:
        """Delete the object (only if at ``if_match``); False if it did not exist.

        ``PreconditionFailed`` when it exists at another version.
        """

    @abstractmethod
    def _list(self, prefix: str, *, metadata: bool = False) -> list[ObjectInfo]:
        """Every object whose key starts with ``prefix``; with ``metadata`` their metadata too."""

    @abstractmethod
    def _state_key(self, workspace: str) -> str: ...

    @abstractmethod
    def _lock_key(self, workspace: str) -> str: ...

    @abstractmethod
    def workspaces(self) -> list[str]: ...

    def _delete_many(self, keys: Iterable[str]) -> None:
        """Delete objects that may or may not exist; a backend with a batch call overrides this."""
        for key in keys:
            self._delete(key)

    # -- naming ------------------------------------------------------------------------------------

    def describe(self) -> str:
        return self._url(self._state_key(DEFAULT_WORKSPACE))

    def _checked(self, workspace: str) -> str:
        if workspace != DEFAULT_WORKSPACE:
            check_workspace_name(workspace)
        return workspace

    def _where(self, workspace: str) -> str:
        return self._url(self._state_key(self._checked(workspace)))

    def _history_prefix(self, workspace: str) -> str:
        return self._state_key(workspace) + ".history/"

    def _journal_prefix(self, workspace: str) -> str:
        return self._state_key(workspace) + ".journal/"

    def _meta(self, **values: str | int) -> dict[str, str]:
        return encode_metadata(self.meta_separator, **values)

    def _meta_value(self, metadata: dict[str, str], name: str) -> str | None:
        return metadata_value(self.meta_separator, metadata, name)

    # -- state -------------------------------------------------------------------------------------

    def read(self, workspace: str) -> Snapshot | None:
        """The state and its token; None if there is none (an empty object counts as none)."""
        obj = self._get(self._state_key(self._checked(workspace)))
        if obj is None or not obj.data:
            return None
        return Snapshot(obj.data, obj.token)

    def write(self, workspace: str, data: bytes, *, expected: str | None, keep_previous: bool = True,
              policy_override: str | None = None) -> str:
        """Compare-and-swap the state on the store's own condition; keeps the replaced version first.

        The early read is for the message and the history copy only: what makes the write safe is the
        condition on the put itself (``If-Match`` / ``ifGenerationMatch`` / ``If-None-Match: *``), so a
        writer that slips in between is still refused.
        """
        key = self._state_key(self._checked(workspace))
        where = self._url(key)
        current = self._get(key, metadata=True)
        stored = current if current is not None and current.data else None  # empty reads as none
        if (stored.token if stored is not None else None) != expected:
            raise conflict_error(where, stored.data if stored else None, data, expected)
        if stored is not None and keep_previous:
            self._keep_in_history(workspace, stored)
        metadata = self._meta(who=who_am_i(), time=now_rfc3339())
        if policy_override:
            metadata.update(self._meta(policy_override=fits_metadata(policy_override)))
        if expected is None and current is not None:
            condition: dict[str, Any] = {"if_match": current.token}  # replace the empty object, only it
        else:
            condition = {"if_match": expected, "if_absent": expected is None}
        try:
            return self._put(key, data, metadata=metadata, **condition)
        except PreconditionFailed:
            now = self._get(key)
            if now is not None and now.data == data:
                # A retried request whose first attempt had landed: the store holds exactly our bytes.
                return now.token
            raise conflict_error(where, now.data if now else None, data, expected) from None

    def _keep_in_history(self, workspace: str, current: StoredObject) -> None:
        entry = self._entry_of_current(current)
        metadata = self._meta(serial=entry.serial, time=entry.time, who=entry.who, resources=entry.resources,
                              version=entry.version)
        if entry.policy_override:
            metadata.update(self._meta(policy_override=fits_metadata(entry.policy_override)))
        self._put(f"{self._history_prefix(workspace)}{entry.serial}.tfstate", current.data, metadata=metadata)

    def current_entry(self, workspace: str) -> HistoryEntry | None:
        current = self._get(self._state_key(self._checked(workspace)), metadata=True)
        return self._entry_of_current(current) if current is not None and current.data else None

    def _entry_of_current(self, current: StoredObject) -> HistoryEntry:
        """The current document's history entry: facts from its bytes, the rest from its metadata."""
        facts = state_facts(current.data)
        return HistoryEntry(
            serial=facts.serial if facts.serial is not None else 0,
            time=self._meta_value(current.metadata, "time") or current.modified,
            who=self._meta_value(current.metadata, "who") or "unknown (written outside ctl)",
            resources=facts.resources,
            version=facts.version,
            policy_override=self._meta_value(current.metadata, "policy_override") or "",
        )

    def read_backup(self, workspace: str) -> bytes | None:
        """The document the last write replaced: the newest history entry."""
        entries = self.history(workspace)
        return self.read_history(workspace, entries[-1].serial) if entries else None

    # -- history -----------------------------------------------------------------------------------

    def history(self, workspace: str) -> list[HistoryEntry]:
        """Kept documents, lowest serial first, from listing metadata alone where the store has it."""
        prefix = self._history_prefix(self._checked(workspace))
        entries = []
        for info in self._list(prefix, metadata=True):
            m = _HISTORY_NAME.fullmatch(info.key[len(prefix) :])
            if m:
                entries.append(self._history_entry(workspace, info, int(m.group(1))))
        return sorted(entries, key=lambda e: (e.serial, e.time))

    def _history_entry(self, workspace: str, info: ObjectInfo, serial: int) -> HistoryEntry:
        md = info.metadata
        try:
            resources = int(self._meta_value(md, "resources") or "")
            version = self._meta_value(md, "version")
            if version is None:
                raise ValueError("no version")
        except ValueError:  # copied in by hand: read the document for what the metadata lacks
            facts = state_facts(self.read_history(workspace, serial))
            resources, version = facts.resources, facts.version
        return HistoryEntry(
            serial=serial,
            time=self._meta_value(md, "time") or info.modified,
            who=self._meta_value(md, "who") or "unknown",
            resources=resources,
            version=version,
            policy_override=self._meta_value(md, "policy_override") or "",
        )

    def read_history(self, workspace: str, serial: int) -> bytes:
        key = f"{self._history_prefix(self._checked(workspace))}{int(serial)}.tfstate"
        obj = self._get(key)
        if obj is None:
            raise CtlError(
                f"the history of {self._where(workspace)} has no state with serial {serial}",
                hint="`ctl state history` lists the serials kept.",
            )
        return obj.data

    # -- locks -------------------------------------------------------------------------------------

    def lock(self, workspace: str, info: LockInfo) -> None:
        """Create the lock object only if absent; LockHeld with the holder's info otherwise."""
        key = self._lock_key(self._checked(workspace))
        stamp = now_rfc3339()  # the lock exists from now: a --lock-timeout wait is not its age
        info = dataclasses.replace(
            info, Path=info.Path or self._where(workspace), Created=stamp, Heartbeat=stamp
        )
        for _ in range(_RACE_ROUNDS):
            try:
                self._put(key, info.to_json(), if_absent=True)
                return
            except PreconditionFailed:
                held = self._get(key)
            if held is None:
                continue  # released between our create and read: try again
            holder = _parse_lock(held.data)
            if holder.ID == info.ID and holder.Created == stamp:
                return  # a retried create whose first attempt had landed: the lock is ours
            raise lock_held_error(self._where(workspace), holder, unlock_command=UNLOCK_COMMAND)
        raise lock_held_error(
            self._where(workspace),
            LockInfo(ID="", Info="(lock taken and released repeatedly)"),
            unlock_command=UNLOCK_COMMAND,
        )

    def lock_info(self, workspace: str) -> LockInfo | None:
        obj = self._get(self._lock_key(self._checked(workspace)))
        return None if obj is None else _parse_lock(obj.data)

    def renew_lock(self, workspace: str, info: LockInfo) -> LockInfo:
        """Rewrite our lock with a fresh heartbeat, conditional on the version just read.

        Losing the condition means somebody touched the lock between read and write: read again, and
        only if it is still ours (a second process sharing the ID via ``CTL_LOCK_ID`` renewed it) try
        again; otherwise it was broken.
        """
        key = self._lock_key(self._checked(workspace))
        for _ in range(_RACE_ROUNDS):
            obj = self._get(key)
            held = None if obj is None else _parse_lock(obj.data)
            if obj is None or held is None or held.ID != info.ID:
                raise lock_lost_error(self._where(workspace), info, held)
            renewed = dataclasses.replace(held, Heartbeat=now_rfc3339())
            try:
                self._put(key, renewed.to_json(), if_match=obj.token)
                return renewed
            except PreconditionFailed:
                continue
        raise lock_lost_error(self._where(workspace), info, self.lock_info(workspace))

    def unlock(self, workspace: str, lock_id: str, *, force: bool = False) -> LockInfo:
        """Delete the lock if its ID matches, conditional on the version read; returns what it held.

        The conditional delete is what keeps a slow unlock from removing a lock somebody else took
        after ours was broken: if the object changed, it is read and checked again.
        """
        key = self._lock_key(self._checked(workspace))
        where = self._where(workspace)
        for _ in range(_RACE_ROUNDS):
            obj = self._get(key)
            if obj is None:
                raise not_locked_error(where)
            holder = _parse_lock(obj.data)
            if not force and (not holder.ID or lock_id != holder.ID):
                raise lock_mismatch_error(where, lock_id, holder)
            try:
                self._delete(key, if_match=obj.token)  # False: gone already (a retried delete), fine
                return holder
            except PreconditionFailed:
                continue
        raise BackendError(
            f"{self.backend}: could not remove the lock {self._url(key)}: it kept changing while being removed",
            hint="Another process is taking and releasing the lock in a loop; stop it and try again.",
        )

    # -- workspaces --------------------------------------------------------------------------------

    def delete_workspace(self, workspace: str) -> None:
        """Remove the workspace's journal, history, state and lock (the caller has checked it is empty)."""
        if workspace == DEFAULT_WORKSPACE:
            raise CtlError("the default workspace cannot be deleted")
        self._checked(workspace)
        if workspace not in self.workspaces():
            raise CtlError(
                f'workspace "{workspace}" does not exist', hint="List them with `ctl workspace list`."
            )
        # The state goes last but one: until it is gone the workspace is listed, so an interrupted
        # delete can simply be run again.
        leftovers = [o.key for o in self._list(self._journal_prefix(workspace))]
        leftovers += [o.key for o in self._list(self._history_prefix(workspace))]
        self._delete_many(leftovers)
        self._delete(self._state_key(workspace))
        self._delete(self._lock_key(workspace))
        self._journal_next.pop(workspace, None)

    # -- journal -----------------------------------------------------------------------------------

    def journal_append(self, workspace: str, entry: bytes, *, sync: bool = True) -> None:
        """Store the entry as the next numbered object, created only if absent (never overwritten).

        Every stored object is durable, so ``sync`` changes nothing here.

        The next number is remembered between appends (one listing per run, not per entry) and
        re-learnt by listing when another writer took it.
        """
        if b"\n" in entry:
            raise ValueError("a journal entry must be a single line")
        self._checked(workspace)
        prefix = self._journal_prefix(workspace)
        for _ in range(_RACE_ROUNDS):
            seq = self._journal_next.get(workspace)
            if seq is None:
                seq = max(self._journal_seqs(prefix), default=0) + 1
            try:
                self._put(f"{prefix}{seq:012d}", entry, if_absent=True)
            except PreconditionFailed:
                self._journal_next.pop(workspace, None)
                there = self._get(f"{prefix}{seq:012d}")
                if there is None or there.data != entry:
                    continue
                # else a retried create whose first attempt had landed: the entry is stored
            self._journal_next[workspace] = seq + 1
            return
        raise BackendError(
            f"{self.backend}: could not append to the journal {self._url(prefix)}: another process "
            "keeps appending to it",
            hint="Only the run holding the lock writes the journal; check for a run without the lock.",
        )

    def _journal_seqs(self, prefix: str) -> list[int]:
        seqs = []
        for info in self._list(prefix):
            m = _JOURNAL_NAME.fullmatch(info.key[len(prefix) :])
            if m:
                seqs.append(int(m.group(1)))
        return sorted(seqs)

    def journal_read(self, workspace: str) -> list[bytes]:
        """The entries in order (entry objects are read in parallel: a recovery reads them all)."""
        prefix = self._journal_prefix(self._checked(workspace))
        keys = [f"{prefix}{seq:012d}" for seq in self._journal_seqs(prefix)]
        if not keys:
            return []
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, len(keys))) as pool:
            objects = list(pool.map(self._get, keys))
        return [obj.data for obj in objects if obj is not None and obj.data]

    def journal_clear(self, workspace: str) -> None:
        prefix = self._journal_prefix(self._checked(workspace))
        self._delete_many(o.key for o in self._list(prefix))
        self._journal_next.pop(workspace, None)

    # -- probe -------------------------------------------------------------------------------------

    def probe(self) -> None:
        """Show on a scratch object that the store refuses a second create and a stale swap.

        Stores that accept the condition headers without honouring them exist (older S3-compatible
        servers): with them every lock and every compare-and-swap would silently succeed.
        """
        key = f"{self._state_key(DEFAULT_WORKSPACE)}.probe-{uuid.uuid4().hex[:12]}"
        where = self._url(key)
        hint = (
            f"Use a store whose {self.backend} API honours conditional requests, or keep the state "
            "elsewhere; ctl will not lock state on this one."
        )
        try:
            first = self._put(key, b"ctl probe 1", if_absent=True)
            try:
                self._put(key, b"ctl probe 2", if_absent=True)
            except PreconditionFailed:
                pass
            else:
                raise BackendError(
                    f"{self.backend}: the store does not refuse a second conditional create "
                    f"({self.create_condition}) of {where}: two runs could both take the lock",
                    hint=hint,
                )
            current = self._get(key)
            token = current.token if current is not None else first
            try:
                self._put(key, b"ctl probe 3", if_match=token)
            except PreconditionFailed:
                raise BackendError(
                    f"{self.backend}: the store refuses a compare-and-swap ({self.swap_condition}) of "
                    f"{where} against its current version",
                    hint=hint,
                ) from None
            try:
                self._put(key, b"ctl probe 4", if_match=token)
            except PreconditionFailed:
                pass
            else:
                raise BackendError(
                    f"{self.backend}: the store does not refuse a stale compare-and-swap "
                    f"({self.swap_condition}) of {where}: a run could overwrite a newer state",
                    hint=hint,
                )
        except PreconditionFailed:
            raise BackendError(
                f"{self.backend}: the store refused to create the probe object {where}", hint=hint
            ) from None
        finally:
            with contextlib.suppress(BackendError, PreconditionFailed):
                self._delete(key)


def _parse_lock(data: bytes) -> LockInfo:
    try:
        info = LockInfo.from_json(data)
    except (ValueError, TypeError) as exc:
        return unreadable_lock(str(exc))
    return info


__all__ = ["UNLOCK_COMMAND", "ObjectStateStore"]

