"""The aws provider: resource types backed by its cloud SDK (imported lazily)."""

from adapters.base import Provider

PROVIDER = Provider(name="aws", source="registry.terraform.io/hashicorp/aws")
