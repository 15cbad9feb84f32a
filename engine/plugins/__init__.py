"""Terraform provider plugins for a configuration: which are needed, which binary serves each, and
the adapter registry a command runs with.

``ctl init`` reads the provider requirements (``requirements``), finds a binary for each that the
native adapters cannot serve alone (``selection``), reads its schema once (cached by the binary's
SHA-256, ``schema_cache``) and records the choice in ``.ctl/plugins.json`` (``record``). Every later
command builds its registry from the native adapters plus the recorded plugins (``registry``),
without starting a process until an operation needs the provider.
"""

from engine.plugins.registry import registry_for

__all__ = ["registry_for"]
