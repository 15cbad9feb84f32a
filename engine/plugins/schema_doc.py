"""``ctl providers schema --json``: every provider's schema in Terraform's document format.

Plugin schemas are printed as the provider reported them (cached, or read now and cached when no
command has read them since ``ctl init``), so the output
matches ``terraform providers schema -json`` for the same binary; native adapters' schemas are
converted from their JSON Schema (``native_schema``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.registry import Registry
from engine.config.model import Module
from engine.plugins import native_schema, schema_cache
from engine.plugins.inventory import served
from engine.plugins.registry import read_schema
from vocab.errors import CtlError

FORMAT_VERSION = "1.0"
_SECTIONS = ("provider", "resource_schemas", "data_source_schemas", "functions")


def providers_schema(root_dir: Path, root: Module | None) -> dict[str, Any]:
    native = Registry.discover()
    schemas: dict[str, Any] = {}
    for provider in served(root_dir, root):
        if provider.plugin is not None:
            doc = read_schema(root_dir, provider.plugin)
            schema = schema_cache.expanded(doc["schema"])
            schemas[provider.source] = {k: schema[k] for k in _SECTIONS if schema.get(k)}
        elif provider.how == "native":
            own = native.provider(provider.local_name)
            assert own is not None  # "native" means the registry has it
            schemas[provider.source] = native_schema.provider_schema(own)
        else:
            raise CtlError(f"provider {provider.source} has no plugin selected",
                           hint="Run `ctl init -plugin-dir=DIR` with a directory that holds it.")
    return {"format_version": FORMAT_VERSION, "provider_schemas": schemas}
