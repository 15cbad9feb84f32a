"""Resolving ``provider::NAME::FUNC`` to the function of the provider configured under local name NAME.

``provider::terraform::…`` is the built-in provider's (``engine.plugins.terraform_functions``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.registry import Registry
from engine.plugins import terraform_functions

ProviderFunction = Callable[[list[Any]], Any]


def resolver(registry: Registry) -> Callable[[str], ProviderFunction | None]:
    """A lookup for the expression evaluator; None for a name no provider defines."""

    def find(name: str) -> ProviderFunction | None:
        parts = name.split("::")
        if len(parts) != 3 or parts[0] != "provider":
            return None
        if parts[1] == "terraform":
            return terraform_functions.builtin(parts[2])
        provider = registry.provider(parts[1])
        functions = getattr(provider, "functions", None) if provider is not None else None
        if functions is None or parts[2] not in functions.signatures:
            return None
        return lambda args: functions.call(parts[2], args)

    return find
