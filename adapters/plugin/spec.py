"""What ``ctl init`` decided about one provider plugin, and all a later command needs to run it.

``ctl init`` finds and records the binary without starting it; the first command that needs its
schema starts it once to read it, and caches it by the binary's SHA-256, so later commands build
their providers from the record and that cache (a ``PluginSpec`` per provider) without starting a
process. The process itself is started only when an operation needs the provider (configure, plan,
apply, read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class PluginSpec:
    """One provider served by a plugin binary, as recorded by ``ctl init``."""

    local_name: str  # the name configurations use: "random" in random_id, provider "random" {}
    source: str  # "registry.terraform.io/hashicorp/random"
    version: str  # "3.6.2"
    executable: Path
    sha256: str  # of the executable: the schema cache key, and a check that it did not change
    protocol: int  # 5 or 6, from the handshake of the schema read
    # The provider's schema in the shape `terraform providers schema -json` prints for one provider:
    # {"provider": {...}, "resource_schemas": {...}, "data_source_schemas": {...}, "functions": {...}};
    # from the schema cache, each resource type's and data source's schema is its JSON text, decoded on use.
    schema: dict[str, Any] = field(repr=False, default_factory=dict)
