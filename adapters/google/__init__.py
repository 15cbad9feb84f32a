"""The google provider: resource types backed by its cloud SDK (imported lazily)."""

from adapters.base import Provider

PROVIDER = Provider(name="google", source="registry.terraform.io/hashicorp/google")
