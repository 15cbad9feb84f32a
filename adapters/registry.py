"""The adapter registry: which providers are installed and which resource types they own.

Providers are plug-ins found through the ``ctl.adapters`` entry-point group, so a cloud adapter
shipped as its own distribution appears without any change to ctl. Discovery runs on every
``ctl validate`` and every Tab completion, so it must stay cheap: entry points are loaded once per
process and cached, and an entry-point module is expected to import only the adapter base and its
schemas (SDKs load lazily in ``Provider.configure`` or in the operations).

A plug-in that fails to load must not take the whole tool down with it — a user who installed a
broken third-party adapter can still run everything else — so load failures become warnings
(``AdapterPluginWarning``, also kept in ``Registry.problems`` for the CLI to show).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping
from typing import ClassVar

from adapters.base import Provider, ResourceType

ENTRY_POINT_GROUP = "ctl.adapters"


class AdapterPluginWarning(UserWarning):
    """An installed adapter plug-in could not be loaded; the rest of ctl keeps working."""


class Registry:
    """Providers by name and resource types by (mode, type name)."""

    _cache: ClassVar[tuple[tuple[Provider, ...], tuple[str, ...]] | None] = None
    _cache_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self._providers: dict[str, Provider] = {}
        # (mode, type name) -> the provider's types of that mode, which builds the type when asked
        # (a plugin's thousands of types are built only when a configuration uses them).
        self._types: dict[tuple[str, str], Mapping[str, ResourceType]] = {}
        self.problems: list[str] = []  # why plug-ins were skipped, one line each

    @classmethod
    def discover(cls) -> Registry:
        """A registry of every installed provider; entry points are loaded once per process.

        Each call returns a fresh ``Registry`` over the cached providers, so ``register`` on one
        (tests, embedding) never leaks into another.
        """
        with cls._cache_lock:
            if cls._cache is None:
                loaded = cls.from_entry_points(ENTRY_POINT_GROUP)
                cls._cache = (tuple(loaded.providers()), tuple(loaded.problems))
            providers, problems = cls._cache
        registry = cls()
        for provider in providers:
            registry.register(provider)
        registry.problems = list(problems)
        return registry

    @classmethod
    def from_entry_points(cls, group: str = ENTRY_POINT_GROUP) -> Registry:
        """Load every provider of an entry-point group now, uncached (``discover`` caches this)."""
        from importlib.metadata import entry_points

        registry = cls()
        seen: set[tuple[str, str]] = set()
        for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
            if (ep.name, ep.value) in seen:  # the same distribution visible twice on sys.path
                continue
            seen.add((ep.name, ep.value))
            try:
                provider = ep.load()
            except Exception as exc:  # any plug-in bug must stay a warning, never a crash
                registry._problem(f"adapter plug-in {ep.name!r} ({ep.value}) failed to load: {exc!r}")
                continue
            if not isinstance(provider, Provider):
                registry._problem(
                    f"adapter plug-in {ep.name!r} ({ep.value}) is a {type(provider).__name__}, not a Provider"
                )
                continue
            if provider.name in registry._providers:
                registry._problem(
                    f"adapter plug-in {ep.name!r} ({ep.value}) provides {provider.name!r}, "
                    "which another plug-in already provides; ignored"
                )
                continue
            registry.register(provider)
        return registry

    def register(self, provider: Provider) -> None:
        """Add a provider, replacing one of the same name (tests and embedding use this)."""
        old = self._providers.get(provider.name)
        if old is not None:
            self._types = {k: v for k, v in self._types.items() if not _owned_by(old, k)}
        self._providers[provider.name] = provider
        for name in provider.resources:
            self._types[("managed", name)] = provider.resources
        for name in provider.data_sources:
            self._types[("data", name)] = provider.data_sources

    def provider(self, name: str) -> Provider | None:
        """The provider registered under a local name (``"aws"``), or None."""
        return self._providers.get(name)

    def resource_type(self, type_name: str, mode: str = "managed") -> ResourceType | None:
        """The resource type (``mode="managed"``) or data source (``mode="data"``), or None."""
        types = self._types.get((mode, type_name))
        return None if types is None else types[type_name]

    def provider_serving(self, type_name: str, mode: str = "managed") -> Provider | None:
        """The provider whose resource type (or data source) ``type_name`` is, or None."""
        types = self._types.get((mode, type_name))
        if types is None:
            return None
        return next((p for p in self._providers.values()
                     if (p.resources if mode == "managed" else p.data_sources) is types), None)

    def provider_for_type(self, type_name: str) -> str:
        """Terraform's implied provider of a type: the prefix before the first ``_``.

        ``aws_s3_bucket`` -> ``aws``; ``terraform_data`` -> ``terraform``; a name without ``_``
        is its own provider name.
        """
        head, _, _ = type_name.partition("_")
        return head

    def providers(self) -> list[Provider]:
        """Every registered provider, sorted by name (stable output for listings and completion)."""
        return [self._providers[name] for name in sorted(self._providers)]

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        warnings.warn(message, AdapterPluginWarning, stacklevel=3)


def _owned_by(provider: Provider, key: tuple[str, str]) -> bool:
    mode, name = key
    return name in (provider.resources if mode == "managed" else provider.data_sources)
