"""Terraform provider plugins for a configuration: which are needed, which binary serves each, and
the adapter registry a command runs with.

``ctl init`` reads the provider requirements (``requirements``), decides for each provider whether
its native adapter or its plugin serves it, never both (``selection``), installs a binary for each
plugin, reads its schema once (cached by the binary's SHA-256, ``schema_cache``) and records the
choice in ``.ctl/plugins.json`` (``record``). Every later command builds its registry from the native
adapters with each recorded plugin in place of its provider's native adapter (``registry``),
without starting a process until an operation needs the provider.
"""

from engine.plugins.registry import registry_for

__all__ = ["registry_for"]
