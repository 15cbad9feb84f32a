"""Instance keys and addresses as the configuration walk spells them (``module.a[0].x.y["k"]``).

A key not known yet (``validate`` with an unknown count or for_each) is ``UNKNOWN_KEY``, shown ``[*]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.config.model import Resource
from engine.state.address import format_key as _state_format_key

Key = int | str | None
ModKey = tuple[tuple[str, Key], ...]


def _relative(directory: Path, base: Path) -> str:
    """``path.module``: the module's directory relative to the configuration directory."""
    try:
        rel = os.path.relpath(directory, base)
    except ValueError:
        return str(directory)
    return rel


class UnknownKey(str):
    """The instance key of a resource whose count/for_each is not known yet (``validate`` only)."""

    __slots__ = ()


UNKNOWN_KEY = UnknownKey("*")


def format_key(key: Key) -> str:
    """``[0]``, ``["a"]`` (spelled exactly as state addresses are), or ``[*]`` when not known yet."""
    if isinstance(key, UnknownKey):
        return "[*]"
    return _state_format_key(key)


def module_address(mod: ModKey) -> str:
    return ".".join(f"module.{name}{format_key(k)}" for name, k in mod)


def instance_address(mod: ModKey, res: Resource, key: Key) -> str:
    if not mod:  # the root module's, most of a large configuration's: no generator to join
        return res.address + format_key(key)
    return f"{module_address(mod)}.{res.address}{format_key(key)}"
