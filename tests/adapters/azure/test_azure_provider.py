"""The azurerm provider: the shared adapter contract on Azurite, configuration and errors."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters import azurerm
from adapters.base import AdapterContext, AdapterError
from tests.adapters.azure.azure_support import ACCOUNT, AzureProject
from tests.adapters.contract import ResourceContract
from tests.e2e.helpers import REPO
from tests.servers import Azurite, free_port

CONTRACT_CONTAINER = "contract"


class _OnAzurite:
    """Points the provider (through its environment) at a clean Azurite."""

    @pytest.fixture(autouse=True)
    def _azurite(self, azurite_clean: Azurite, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
        for key, value in azurite_clean.env.items():
            monkeypatch.setenv(key, value)
        azurite_clean.blob_service().create_container(CONTRACT_CONTAINER)
        yield


class TestAzureContainerContract(_OnAzurite, ResourceContract):
    provider = azurerm.PROVIDER
    type_name = "azurerm_storage_container"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [
            {"name": "one", "storage_account_name": ACCOUNT},
            {"name": "two-2", "storage_account_name": ACCOUNT, "container_access_type": "container",
             "metadata": {"k": "v"}},
        ]


class TestAzureBlobContract(_OnAzurite, ResourceContract):
    provider = azurerm.PROVIDER
    type_name = "azurerm_storage_blob"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "data.bin").write_bytes(bytes(range(256)) * 4)
        base = {"storage_account_name": ACCOUNT, "storage_container_name": CONTRACT_CONTAINER}
        return [
            {**base, "name": "a.txt", "type": "Block", "source_content": "A"},
            {**base, "name": "dir/b.log", "type": "Append", "source": "data.bin", "metadata": {"k": "v"}},
            {**base, "name": "c.vhd", "type": "Page", "size": 512, "content_type": "application/x-vhd"},
            {**base, "name": "d/with space %25.txt", "type": "Block", "source_content": "quoted in its URL"},
        ]


class TestAzureQueueContract(_OnAzurite, ResourceContract):
    provider = azurerm.PROVIDER
    type_name = "azurerm_storage_queue"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"name": "first", "storage_account_name": ACCOUNT},
                {"name": "second", "storage_account_name": ACCOUNT, "metadata": {"a": "1"}}]


def test_help_and_discovery_do_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from adapters.registry import Registry\n"
        "assert Registry.discover().resource_type('azurerm_storage_queue') is not None\n"
        "sys.argv = ['ctl', '--help']\n"
        "from cli.main import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith('azure')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stdout, out.stdout + out.stderr


def test_blob_only_configuration_never_loads_the_queue_sdk(azurite: Azurite, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from adapters import azurerm\n"
        f"client = azurerm.PROVIDER.configure({{'storage_connection_string': {azurite.connection_string!r}}}, None)\n"
        "print('QUEUE' if 'azure.storage.queue' in sys.modules else 'NO-QUEUE', client.account_name)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["NO-QUEUE", ACCOUNT]


def test_connection_string_from_the_provider_block(tmp_path: Path, azurite_clean: Azurite) -> None:
    project = AzureProject(tmp_path, azurite_clean)
    project.write(f"""
    provider "azurerm" {{
      features {{}}
      storage_connection_string = "{azurite_clean.connection_string}"
    }}
    resource "azurerm_storage_queue" "q" {{
      name                 = "from-block"
      storage_account_name = "{ACCOUNT}"
    }}
    """)
    res = project.ctl("apply", "--auto-approve", env={"AZURE_STORAGE_CONNECTION_STRING": ""})
    assert res.code == 0, str(res)
    assert [q.name for q in project.queues.list_queues()] == ["from-block"]


def test_missing_connection_is_a_clear_error(tmp_path: Path, azurite: Azurite) -> None:
    project = AzureProject(tmp_path, azurite)
    project.configure(f"""
    resource "azurerm_storage_queue" "q" {{
      name                 = "nowhere"
      storage_account_name = "{ACCOUNT}"
    }}
    """)
    res = project.ctl("plan", env={"AZURE_STORAGE_CONNECTION_STRING": ""})
    assert res.code == 1, str(res)
    assert "no storage account connection" in res.output and "AZURE_STORAGE_CONNECTION_STRING" in res.output
    assert "Traceback" not in res.output


def test_another_account_is_refused_at_plan_time(tmp_path: Path, azurite: Azurite) -> None:
    project = AzureProject(tmp_path, azurite)
    project.configure("""
    resource "azurerm_storage_container" "c" {
      name                 = "elsewhere"
      storage_account_name = "someotheraccount"
    }
    """)
    res = project.ctl("plan")
    assert res.code == 1, str(res)
    assert "azurerm_storage_container.c" in res.output and f'connection is for "{ACCOUNT}"' in res.output


def test_unreachable_endpoint_is_a_clear_error(tmp_path: Path, azurite: Azurite) -> None:
    dead = azurite.connection_string.replace(str(azurite.queue_port), str(free_port()))
    project = AzureProject(tmp_path, azurite)
    project.configure(f"""
    resource "azurerm_storage_queue" "q" {{
      name                 = "unreachable"
      storage_account_name = "{ACCOUNT}"
    }}
    """)
    res = project.ctl("apply", "--auto-approve", env={"AZURE_STORAGE_CONNECTION_STRING": dead})
    assert res.code == 1, str(res)
    assert "azurerm_storage_queue.q" in res.output and 'queue "unreachable"' in res.output
    assert "cannot reach the storage service" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize(
    ("url", "depth", "expected"),
    [
        ("https://acct.blob.core.windows.net/c1", 1, ("acct", ["c1"])),
        ("http://127.0.0.1:10000/devstoreaccount1/c1/dir/a%20b.txt", 2, ("devstoreaccount1", ["c1", "dir/a b.txt"])),
        ("http://azurite:10001/devstoreaccount1/jobs", 1, ("devstoreaccount1", ["jobs"])),
    ],
)
def test_import_urls_are_parsed(url: str, depth: int, expected: tuple[str, list[str]]) -> None:
    from adapters.azurerm.client import parse_url

    assert parse_url(AdapterContext(provider_config={}), url, "blob", depth) == expected


@pytest.mark.parametrize("bad", ["jobs", "ftp://host/acct/jobs", "https://acct.blob.core.windows.net/"])
def test_bad_import_ids_are_adapter_errors(bad: str) -> None:
    from adapters.azurerm.client import parse_url

    with pytest.raises(AdapterError):
        parse_url(AdapterContext(provider_config={}, address="azurerm_storage_queue.q"), bad, "queue", 1)


@pytest.mark.parametrize(
    ("type_name", "identity", "names"),
    [
        ("azurerm_storage_container", {"name": "c1"}, {"name": "c1"}),
        ("azurerm_storage_queue", {"name": "jobs"}, {"name": "jobs"}),
        ("azurerm_storage_blob", {"storage_container_name": "c1", "name": "dir/a b%.txt"},
         {"storage_container_name": "c1", "name": "dir/a b%.txt"}),
    ],
)
def test_import_id_is_a_url_that_imports_the_same_object(
    type_name: str, identity: dict[str, Any], names: dict[str, str], azurite: Azurite, tmp_path: Path
) -> None:
    """Built offline from the configured client, in the form ``ctl import`` takes."""
    rt = azurerm.PROVIDER.resources[type_name]
    client = azurerm.PROVIDER.configure({"storage_connection_string": azurite.connection_string}, tmp_path)
    ctx = AdapterContext(provider_config={}, client=client, address=f"{type_name}.x")
    resource_id = rt.import_id(ctx, {**identity, "storage_account_name": ACCOUNT})
    assert resource_id is not None and resource_id.startswith("http://127.0.0.1:")
    imported = rt.import_(ctx, resource_id)
    assert {k: imported[k] for k in names} == names and imported["storage_account_name"] == ACCOUNT
    assert rt.import_id(ctx, identity) is None  # the account was still unknown: nothing to look for
