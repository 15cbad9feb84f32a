"""Configured providers: one client per provider configuration, shared by all of its resources.

A resource uses the provider configuration named by its ``provider`` meta-argument or implied by
its type prefix, looked up in its own module and then in each ancestor (child modules inherit the
root's default providers, as in Terraform). Clients are built lazily and once, under a lock,
because refresh and apply call in from many worker threads.
"""

from __future__ import annotations

import copy
import threading
import weakref
from pathlib import Path
from sys import intern
from typing import Any

from adapters.base import AdapterContext, Provider, ResourceType
from adapters.registry import Registry
from engine.config.model import Resource
from engine.telemetry.timings import Timings
from vocab.errors import CtlError, Diagnostic, SourceRange
from vocab.provider_errors import PluginLaunchError
from vocab.redact import redact, redact_error, secret_texts
from vocab.values import deep_unmark

ModPath = tuple[str, ...]

# Every Providers of this process, for ``stop_all`` (an interrupt reaches whatever run is under way).
_LIVE: weakref.WeakSet[Providers] = weakref.WeakSet()


def stop_all() -> None:
    """The first interrupt: ask every running provider of this process to stop (StopProvider)."""
    for providers in list(_LIVE):
        providers.stop()


class Providers:
    """Builds adapter contexts for resources; each provider configuration is configured once."""

    def __init__(
        self,
        registry: Registry,
        configs: dict[tuple[ModPath, str], dict[str, Any]],
        workdir: Path,
        cancelled: threading.Event | None = None,
        reserved_paths: tuple[Path, ...] = (),
        timings: Timings | None = None,
    ) -> None:
        self.registry = registry
        self.timings = timings  # given, every plugin client made reports its calls to it (the trace)
        self.reserved_paths = reserved_paths
        self.configs = configs
        self.workdir = workdir
        self.cancelled = cancelled or threading.Event()
        _LIVE.add(self)
        self._clients: dict[tuple[ModPath, str], Any] = {}
        self._makers: list[tuple[Provider, Any]] = []  # each client made, with the provider to release it
        self._lock = threading.Lock()
        self._warnings: list[Diagnostic] = []  # what providers warned about, for the run's diagnostics
        self._warned: set[tuple[str, str, str]] = set()  # each warning once, however many report it
        # A configuration that failed, and a provider whose process could not start: tried once per
        # run. Every later resource gets the same error at once, not another start (with a provider
        # that never answers its handshake, one start timeout per instance).
        self._failed: dict[tuple[ModPath, str] | str, CtlError] = {}

    def take_warnings(self) -> list[Diagnostic]:
        """The warnings adapters reported since the last call (each shown once, in order)."""
        with self._lock:
            out, self._warnings = self._warnings, []
        return out

    def _add_warning(self, warning: Diagnostic) -> None:
        """Keep ``warning`` for the run, once (the same from a plan and its apply's re-plan); the
        caller holds the lock."""
        seen = (warning.summary, warning.detail, str(warning.range) if warning.range is not None else "")
        if seen not in self._warned:
            self._warned.add(seen)
            self._warnings.append(warning)

    def key_for(self, path: ModPath, name: str, alias: str | None) -> tuple[ModPath, str]:
        key = f"{name}.{alias}" if alias else name
        p = path
        while True:
            if (p, key) in self.configs:
                return (p, key)
            if not p:
                return ((), key)
            p = p[:-1]

    def context(
        self, rt: ResourceType, address: str, path: ModPath = (), resource: Resource | None = None
    ) -> AdapterContext:
        """The context an adapter operation on ``address`` runs with."""
        if resource is not None and resource.provider is not None:
            name, alias = resource.provider
        else:
            name, alias = self.registry.provider_for_type(rt.name), None
        key = self.key_for(path, name, alias)
        config = self.configs.get(key, {})
        client = self._client(key, name, config)
        def warn(summary: str, detail: str, range: SourceRange | None = None) -> None:
            with self._lock:
                self._add_warning(Diagnostic("warning", summary, detail=detail, address=address, range=range))

        return AdapterContext(provider_config=config, client=client, workdir=self.workdir, address=address,
                              cancelled=self.cancelled, reserved_paths=self.reserved_paths, warn=warn,
                              resource=resource)

    def stop(self) -> None:
        """Ask every provider this run started to cancel what it is doing (the first interrupt).

        Each is asked on a thread of its own: the request must not wait on a busy provider, and the
        caller may be a signal handler. A client that cannot be interrupted (a native adapter's) is
        left alone (its operations see ``cancelled`` once the run gives up waiting).
        """
        from engine.running_commands import cancel_running

        cancel_running()  # local-exec commands too, as Terraform stops its provisioners
        with self._lock:
            made = list(self._makers)
        for _, client in made:
            interrupt = getattr(client, "interrupt", None)
            if callable(interrupt):
                threading.Thread(target=interrupt, name="ctl-stop-provider", daemon=True).start()

    def close(self) -> None:
        """Release every client made (a plugin's provider process is stopped and reaped)."""
        with self._lock:
            made, self._makers = self._makers, []
            self._clients = {}
        for provider, client in made:
            provider.release(client)

    def _client(self, key: tuple[ModPath, str], name: str, config: dict[str, Any]) -> Any:
        with self._lock:
            if key in self._clients:
                return self._clients[key]
            failed = self._failed.get(key) or self._failed.get(name)
            if failed is not None:
                raise copy.copy(failed)
            provider: Provider | None = self.registry.provider(name)
            client = None
            if provider is not None:
                plain, _ = deep_unmark(config)
                # The provider sees plain values; what it says back must not show those a sensitive
                # variable gave it (its own sensitive arguments it cuts out itself).
                secrets = secret_texts(config)
                try:
                    client = provider.configure(plain, self.workdir)
                except CtlError as err:
                    redact_error(err, secrets)
                    self._failed[name if isinstance(err, PluginLaunchError) else key] = copy.copy(err)
                    raise
                except Exception as exc:  # an SDK error while building the client
                    failure = CtlError(f'Cannot configure provider "{key[1]}": {redact(str(exc), secrets)}')
                    self._failed[key] = copy.copy(failure)
                    raise failure from None
                self._makers.append((provider, client))
                for warning in getattr(client, "warnings", ()):
                    self._add_warning(Diagnostic("warning", redact(warning.summary, secrets),
                                                 detail=redact(warning.detail, secrets), range=warning.range))
                plugin = getattr(client, "client", None)  # a plugin's session: its calls are traced
                if self.timings is not None and plugin is not None and hasattr(plugin, "observe"):
                    plugin.observe = self.timings.rpc_observer(provider.source)
            self._clients[key] = client
            return client

    def state_provider(self, rt: ResourceType, resource: Resource | None) -> str:
        """The ``provider`` string written into state for a resource."""
        name = resource.provider[0] if resource is not None and resource.provider else \
            self.registry.provider_for_type(rt.name)
        alias = resource.provider[1] if resource is not None and resource.provider else None
        provider = self.registry.provider(name)
        source = provider.source if provider is not None else f"registry.terraform.io/hashicorp/{name}"
        text = f'provider["{source}"]'
        return intern(f"{text}.{alias}" if alias else text)  # kept by every resource's state: one copy
