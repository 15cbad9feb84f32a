"""The azurerm backend through a fault-injecting proxy in front of Azurite: throttled writes, a
reset read and a lost lock reply converge, land once, and leave the lock held exactly once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.azurerm import AzureStore
from backends.base import DEFAULT_WORKSPACE
from backends.factory import make_store
from tests.backends.contract import state_bytes
from tests.backends.faults import check_a_lost_lock_reply_is_ours
from tests.fault_proxy import FaultProxy
from tests.servers import Azurite

KEY = "team/faults.tfstate"


@pytest.fixture
def proxy(azurite_clean: Azurite) -> Iterator[FaultProxy]:
    with FaultProxy(f"http://{azurite_clean.host}:{azurite_clean.blob_port}") as running:
        yield running


@pytest.fixture
def store(azurite_clean: Azurite, proxy: FaultProxy, tmp_path: Path) -> AzureStore:
    container = f"ctl-faults-{uuid.uuid4().hex[:8]}"
    azurite_clean.blob_service().create_container(container)
    through_proxy = azurite_clean.connection_string.replace(
        azurite_clean.blob_url, f"{proxy.url}/{azurite_clean.account_name}")
    made = make_store("azurerm", {"storage_account_name": azurite_clean.account_name, "container_name": container,
                                  "key": KEY, "connection_string": through_proxy}, tmp_path)
    assert isinstance(made, AzureStore)
    return made


def test_throttled_writes_and_a_reset_read_converge(store: AzureStore, proxy: FaultProxy) -> None:
    proxy.arm("status", times=2, method="PUT", path=r"faults\.tfstate$", status=503, retry_after="0")
    store.write(DEFAULT_WORKSPACE, state_bytes(1), expected=None)
    proxy.arm("reset", times=1, method="GET", path=r"faults\.tfstate$")
    snap = store.read(DEFAULT_WORKSPACE)
    assert snap is not None and snap.data == state_bytes(1)
    assert [s.fault for s in proxy.faulted()] == ["status", "status", "reset"]


def test_a_lock_whose_reply_was_lost_is_ours_and_held_once(store: AzureStore, proxy: FaultProxy) -> None:
    check_a_lost_lock_reply_is_ours(store, proxy, method="PUT", path=r"\.tflock$")
