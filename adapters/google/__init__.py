"""The ``google`` provider: Cloud Storage buckets and objects (Terraform's hashicorp/google names).

``provider "google" { project, region }``; ``STORAGE_EMULATOR_HOST`` points it at an emulator
(fake-gcs-server) with anonymous credentials. One storage client per provider configuration,
shared by all of its resources. This module is loaded at discovery time, so it imports only the
schemas and operations; google-cloud-storage loads when a provider is configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.base import Provider
from adapters.google.bucket import StorageBucket
from adapters.google.bucket_object import StorageBucketObject
from adapters.google.client import CONFIG_SCHEMA


class GoogleProvider(Provider):
    """The provider; ``configure`` builds the shared storage client."""

    def configure(self, config: dict[str, Any], workdir: Path) -> Any:
        from adapters.google.client import configure

        return configure(config, workdir)


PROVIDER = GoogleProvider(
    name="google",
    source="registry.terraform.io/hashicorp/google",
    resources={rt.name: rt for rt in (StorageBucket(), StorageBucketObject())},
    config_schema=CONFIG_SCHEMA,
)

__all__ = ["PROVIDER"]
