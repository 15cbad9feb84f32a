"""The gcs backend through a fault-injecting proxy in front of fake-gcs-server: throttled writes,
reset and cut-short reads, a lost lock reply. Each converges after retries, lands once, and the
lock is held exactly once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.base import DEFAULT_WORKSPACE
from backends.factory import make_store
from backends.gcs import GCSStore
from tests.backends.contract import state_bytes
from tests.backends.faults import check_a_lost_lock_reply_is_ours
from tests.fault_proxy import FaultProxy
from tests.servers import FakeGcsServer

PREFIX = "team/faults"


@pytest.fixture
def proxy(fake_gcs_clean: FakeGcsServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultProxy]:
    with FaultProxy(fake_gcs_clean.url) as running:
        for name, value in fake_gcs_clean.env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", running.url)  # the store talks to the proxy
        yield running


@pytest.fixture
def store(fake_gcs_clean: FakeGcsServer, proxy: FaultProxy, tmp_path: Path) -> GCSStore:
    bucket = f"ctl-faults-{uuid.uuid4().hex[:8]}"
    fake_gcs_clean.client().create_bucket(bucket)
    made = make_store("gcs", {"bucket": bucket, "prefix": PREFIX}, tmp_path)
    assert isinstance(made, GCSStore)
    return made


def test_throttled_writes_and_broken_reads_converge(store: GCSStore, proxy: FaultProxy) -> None:
    proxy.arm("status", times=2, method="POST", path=r"/upload/", status=503)
    proxy.arm("status", times=1, method="POST", path=r"/upload/", status=429, retry_after="1")
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    proxy.arm("reset", times=1, method="GET", path=r"default\.tfstate")
    snap = store.read(DEFAULT_WORKSPACE)
    assert snap is not None and snap.data == state_bytes(1)
    assert [s.fault for s in proxy.faulted()] == ["status", "status", "status", "reset"]


def test_a_lock_whose_reply_was_lost_is_ours_and_held_once(store: GCSStore, proxy: FaultProxy) -> None:
    check_a_lost_lock_reply_is_ours(store, proxy, method="POST", path=r"/upload/")
