"""Checks shared by the backends' fault-proxy tests (``test_s3_faults``, ``test_gcs_faults``)."""

from __future__ import annotations

import pytest

from backends.base import DEFAULT_WORKSPACE, StateStore
from tests.fault_proxy import FaultProxy
from vocab.errors import LockHeld
from vocab.locks import LockInfo


def check_a_lost_lock_reply_is_ours(store: StateStore, proxy: FaultProxy, *, method: str, path: str) -> None:
    """The lock request lands but its reply is lost: the retry must find the lock ours, held once."""
    mine = LockInfo(Operation="OperationTypeApply")
    proxy.arm("lose_reply", times=1, method=method, path=path)
    store.lock(DEFAULT_WORKSPACE, mine)  # the retried create meets its own first attempt
    assert proxy.faulted("lose_reply")
    held = store.lock_info(DEFAULT_WORKSPACE)
    assert held is not None and held.ID == mine.ID
    with pytest.raises(LockHeld):
        store.lock(DEFAULT_WORKSPACE, LockInfo(Operation="OperationTypeApply"))
    store.unlock(DEFAULT_WORKSPACE, mine.ID)
    assert store.lock_info(DEFAULT_WORKSPACE) is None
