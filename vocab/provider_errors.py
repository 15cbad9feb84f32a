"""What can go wrong with a provider plugin, as errors a user can act on.

Every failure names the provider (its source address or binary) and says what to do, so the CLI can
print it as one message instead of a traceback from subprocess or gRPC.
"""

from __future__ import annotations

from vocab.errors import CtlError


class PluginError(CtlError):
    """Base of every provider plugin failure."""


class PluginLaunchError(PluginError):
    """The provider could not be started, or did not become ready to serve."""


class PluginStartTimeout(PluginLaunchError):
    """The provider started but did not print its handshake in time."""


class PluginHandshakeError(PluginLaunchError):
    """The provider printed a handshake ctl cannot use (garbage, unknown protocol version)."""


class PluginCallError(PluginError):
    """A call to a running provider failed at the transport level (crash, closed, deadline)."""


class ProviderNotFound(PluginError):
    """No installed provider binary matches a source address and version constraints."""


class VersionConstraintError(PluginError):
    """A version constraint string cannot be parsed."""
