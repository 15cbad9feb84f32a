"""The azurerm provider: resource types backed by its cloud SDK (imported lazily)."""

from adapters.base import Provider

PROVIDER = Provider(name="azurerm", source="registry.terraform.io/hashicorp/azurerm")
