"""A started, configured provider process: what the adapter context's ``client`` is for a plugin.

One session per provider configuration, shared by all of its resources and used from the walker's
worker threads at once (gRPC channels are thread safe). The plan of each resource instance is kept
until its apply, keyed by address: the provider's apply needs the configuration and the private
data its plan produced, which the engine's adapter interface does not carry.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from adapters.plugin.client import PluginClient
from vocab.errors import Diagnostic
from vocab.provider_errors import PluginError

_log = logging.getLogger("adapters.plugin")


@dataclass(frozen=True)
class PlannedInstance:
    """What PlanResourceChange answered for one instance, until ApplyResourceChange uses it."""

    config: bytes
    planned: bytes
    private: bytes
    requires_replace: list[list[str | int]]


@dataclass
class PluginSession:
    client: PluginClient
    description: str  # 'provider "fwtest" (registry.terraform.io/ctltest/fwtest v1.0.0)'
    # What the provider warned about while it was checked and configured, its sensitive arguments'
    # values cut out: the engine adds them to the run's warnings.
    warnings: list[Diagnostic] = field(default_factory=list)
    _plans: dict[str, PlannedInstance] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def remember(self, address: str, planned: PlannedInstance) -> None:
        with self._lock:
            self._plans[address] = planned

    def recall(self, address: str) -> PlannedInstance | None:
        with self._lock:
            return self._plans.get(address)

    def interrupt(self) -> None:
        """Ask the provider to cancel the calls it is running (StopProvider, Terraform's first Ctrl-C):
        a call that honours cancellation returns early, with whatever it reports."""
        try:
            self.client.stop_provider()
        except PluginError as err:  # it stopped already, or does not answer: closing deals with it
            _log.debug("%s: StopProvider: %s", self.description, err.summary)

    def close(self) -> Any:
        self.client.close()
