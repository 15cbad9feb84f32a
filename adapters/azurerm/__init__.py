"""The ``azurerm`` provider: storage containers, blobs and queues (Terraform's hashicorp/azurerm names).

``provider "azurerm" { features {} }`` with the storage account's connection string from the
``storage_connection_string`` argument or ``AZURE_STORAGE_CONNECTION_STRING`` (Azurite's works).
One client per provider configuration, shared by all of its resources. This module is loaded at
discovery time, so it imports only schemas and operations; the Azure SDKs load in ``configure``
and in the operations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.azurerm.blob import StorageBlob
from adapters.azurerm.client import CONFIG_SCHEMA
from adapters.azurerm.container import StorageContainer
from adapters.azurerm.queue import StorageQueue
from adapters.base import Provider


class AzurermProvider(Provider):
    """The provider; ``configure`` builds the shared storage clients."""

    def configure(self, config: dict[str, Any], workdir: Path) -> Any:
        from adapters.azurerm.client import configure

        return configure(config, workdir)


PROVIDER = AzurermProvider(
    name="azurerm",
    source="registry.terraform.io/hashicorp/azurerm",
    resources={rt.name: rt for rt in (StorageContainer(), StorageBlob(), StorageQueue())},
    config_schema=CONFIG_SCHEMA,
)

__all__ = ["PROVIDER"]
