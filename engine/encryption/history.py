"""Resource counts of sealed state versions, for ``ctl state history``.

A store records what it can read of each version it keeps (``state_facts``), and a sealed version
shows it only its serial and writer: its resources are inside the ciphertext, so the store counts
none. Here each such version is opened with the configured key and counted; without a key that
opens it, its count is unknown (None), which the history shows as "sealed" rather than as 0.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from backends.base import HistoryEntry, StateStore, state_facts
from engine.encryption.envelope import looks_sealed
from engine.encryption.errors import EncryptionError
from engine.encryption.store import EncryptingStore
from vocab.errors import CtlError


def resource_counts(store: StateStore, workspace: str, entries: list[HistoryEntry],
                    current: HistoryEntry | None) -> tuple[list[int | None], int | None]:
    """The resource count of each kept version and of the current one; None where it is sealed and
    cannot be opened here.

    Only versions the store counted as empty are read: a sealed one always counts 0 from outside,
    and a plaintext one was counted right. Each run seals with a key of its own (a fresh salt), so
    every version may need a key derivation; they run side by side (PBKDF2 leaves the interpreter
    lock while it works).
    """
    raw = store.inner if isinstance(store, EncryptingStore) else store

    def kept(serial: int) -> Callable[[], bytes | None]:
        return lambda: raw.read_history(workspace, serial)

    def now() -> bytes | None:
        snap = raw.read(workspace)
        return None if snap is None else snap.data

    jobs: list[tuple[int, Callable[[], bytes | None], str]] = [
        (e.resources, kept(e.serial), f"serial {e.serial} of the history") for e in entries]
    if current is not None:
        jobs.append((current.resources, now, "the current state"))
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        counts = list(pool.map(lambda job: _count(store, *job), jobs))
    return (counts[:len(entries)], counts[-1]) if current is not None else (counts, None)


def _count(store: StateStore, counted: int, read: Callable[[], bytes | None], where: str) -> int | None:
    if counted:
        return counted
    try:
        data = read()
    except CtlError:
        return counted  # gone since it was listed: the store's own count stands
    if data is None or not looks_sealed(data):
        return counted
    if not isinstance(store, EncryptingStore):
        return None
    try:
        return state_facts(store.open_state(data, where)).resources
    except EncryptionError:
        return None  # another key (rotated away) or damage: still sealed as far as this run can tell


__all__ = ["resource_counts"]
