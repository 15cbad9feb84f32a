"""The s3 backend through a fault-injecting proxy in front of moto: throttling, resets, truncated and
lost replies. Writes converge after retries and are never half-applied; a lock is held exactly
once; giving up is one clear error in bounded time, with the old state intact.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.factory import make_store
from backends.s3 import S3Store
from tests.backends.contract import state_bytes
from tests.backends.faults import check_a_lost_lock_reply_is_ours
from tests.fault_proxy import FaultProxy
from tests.servers import MotoServer

KEY = "team/app/ctl.tfstate"


@pytest.fixture
def proxy(moto_server_clean: MotoServer) -> Iterator[FaultProxy]:
    with FaultProxy(moto_server_clean.url) as running:
        yield running


@pytest.fixture
def bucket(moto_server_clean: MotoServer) -> str:
    name = f"ctl-faults-{uuid.uuid4().hex[:8]}"
    moto_server_clean.client("s3").create_bucket(Bucket=name)
    return name


def _store(moto: MotoServer, proxy: FaultProxy, bucket: str, tmp_path: Path, **extra: Any) -> S3Store:
    made = make_store("s3", {
        "bucket": bucket, "key": KEY, "region": moto.region, "endpoints": {"s3": proxy.url},
        "use_path_style": True, "access_key": moto.access_key, "secret_key": moto.secret_key, **extra,
    }, tmp_path)
    assert isinstance(made, S3Store)
    return made


def _stored(moto: MotoServer, bucket: str) -> bytes:
    return bytes(moto.client("s3").get_object(Bucket=bucket, Key=KEY)["Body"].read())


def test_throttled_writes_are_retried_and_land_once(moto_server_clean: MotoServer, proxy: FaultProxy,
                                                     bucket: str, tmp_path: Path) -> None:
    store = _store(moto_server_clean, proxy, bucket, tmp_path)
    proxy.arm("status", times=2, method="PUT", path=KEY + "$", status=503)
    proxy.arm("status", times=1, method="PUT", path=KEY + "$", status=429, retry_after="1")
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    assert len(proxy.faulted("status")) == 3
    assert _stored(moto_server_clean, bucket) == state_bytes(1)


def test_reset_and_truncated_reads_are_retried(moto_server_clean: MotoServer, proxy: FaultProxy,
                                               bucket: str, tmp_path: Path) -> None:
    store = _store(moto_server_clean, proxy, bucket, tmp_path)
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    proxy.arm("reset", times=1, method="GET", path=KEY + "$")
    proxy.arm("truncate", times=1, method="GET", path=KEY + "$")
    snap = store.read(DEFAULT_WORKSPACE)
    assert snap is not None and snap.data == state_bytes(1)
    assert [s.fault for s in proxy.faulted()] == ["reset", "truncate"]


def test_a_lock_whose_reply_was_lost_is_ours_and_held_once(moto_server_clean: MotoServer, proxy: FaultProxy,
                                                           bucket: str, tmp_path: Path) -> None:
    check_a_lost_lock_reply_is_ours(_store(moto_server_clean, proxy, bucket, tmp_path), proxy, method="PUT", path=r"\.tflock$")


def test_a_store_that_keeps_failing_is_one_clear_error_and_the_old_state_stays(
        moto_server_clean: MotoServer, proxy: FaultProxy, bucket: str, tmp_path: Path) -> None:
    store = _store(moto_server_clean, proxy, bucket, tmp_path, max_retries=2)
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    version = store.read(DEFAULT_WORKSPACE).version
    proxy.arm("status", times=100, method="PUT", path=KEY + "$", status=503)
    started = time.monotonic()
    with pytest.raises(BackendError) as err:
        store.write(DEFAULT_WORKSPACE, state_bytes(2), expected=version)
    assert time.monotonic() - started < 30
    assert "\n" not in err.value.summary and "still throttled" in err.value.summary
    assert _stored(moto_server_clean, bucket) == state_bytes(1)  # nothing half-written
    assert len(proxy.faulted("status")) == 3  # the first attempt and max_retries = 2 more
