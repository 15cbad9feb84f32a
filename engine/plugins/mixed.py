"""One provider served by a native adapter and a plugin together, configured once from one block.

When a configuration uses ``aws_s3_bucket`` (native) and ``aws_vpc`` (only in the plugin), both sides
are the provider ``aws`` to the engine: one ``provider "aws" {}`` block, one configuration. The
mixed provider's client configures each side on first use (so a run touching only native types
starts no process), and each resource type is given its own side's client.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, Provider, ResourceType


class MixedClient:
    """The two clients of a mixed provider, each made on first use."""

    def __init__(self, native: Provider, plugin: Provider, config: dict[str, Any], workdir: Path) -> None:
        self._sides = {"native": native, "plugin": plugin}
        self._config, self._workdir = config, workdir
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def side(self, name: str) -> Any:
        with self._lock:
            if name not in self._clients:
                self._clients[name] = self._sides[name].configure(self._config, self._workdir)
            return self._clients[name]

    def release(self) -> None:
        with self._lock:
            made, self._clients = self._clients, {}
        for name, client in made.items():
            self._sides[name].release(client)


class _Routed:
    """A resource type of one side: every operation runs with that side's client in its context."""

    def __init__(self, inner: ResourceType, side: str) -> None:
        self._inner, self._side = inner, side

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            args = tuple(self._routed(a) for a in args)
            return value(*args, **kwargs)

        return call

    def _routed(self, arg: Any) -> Any:
        if isinstance(arg, AdapterContext) and isinstance(arg.client, MixedClient):
            return dataclasses.replace(arg, client=arg.client.side(self._side))
        return arg


class MixedProvider(Provider):
    native: Provider
    plugin: Provider

    def configure(self, config: dict[str, Any], workdir: Path) -> MixedClient:
        return MixedClient(self.native, self.plugin, config, workdir)

    def release(self, client: Any) -> None:
        if isinstance(client, MixedClient):
            client.release()


def mixed(native: Provider, plugin: Provider) -> Provider:
    """``plugin``'s name, source and configuration schema; native types from ``native``."""
    combined = MixedProvider(name=plugin.name, source=plugin.source, config_schema=plugin.config_schema)
    combined.native, combined.plugin = native, plugin
    combined.functions = getattr(plugin, "functions", None)  # type: ignore[attr-defined]  # provider::NAME::F
    for side, provider in (("plugin", plugin), ("native", native)):  # native wins where both have a type
        combined.resources.update({n: _Routed(rt, side) for n, rt in provider.resources.items()})  # type: ignore[misc]
        combined.data_sources.update({n: _Routed(rt, side) for n, rt in provider.data_sources.items()})  # type: ignore[misc]
    return combined
