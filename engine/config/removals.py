"""``removed`` blocks: which objects left in the state are forgotten rather than destroyed.

A resource taken out of the configuration is destroyed; a ``removed`` block naming it (or a module
holding it) with ``lifecycle { destroy = false }`` asks ctl to drop it from the state and leave the
object itself alone, as Terraform 1.7 does. Addresses in a block are relative to its module.
"""

from __future__ import annotations

from engine.config.model import Module, Removed
from vocab.errors import Diagnostics

ModPath = tuple[str, ...]


class Removals:
    """Every ``removed`` block of a configuration, by the resource or module path it names."""

    def __init__(self, root: Module) -> None:
        self.resources: dict[tuple[ModPath, str], Removed] = {}
        self.modules: dict[ModPath, Removed] = {}
        for path, module in root.walk():
            for rule in module.removed:
                if rule.from_addr.startswith("module."):
                    self.modules[path + tuple(rule.from_addr.split(".")[1::2])] = rule
                else:
                    self.resources[(path, rule.from_addr)] = rule

    def rule_for(self, module_path: ModPath, address: str) -> Removed | None:
        """The block covering a resource (``type.name`` inside ``module_path``), if one does."""
        found = self.resources.get((module_path, address))
        if found is not None:
            return found
        for depth in range(len(module_path), 0, -1):
            found = self.modules.get(module_path[:depth])
            if found is not None:
                return found
        return None


def check_removed_blocks(root: Module, diags: Diagnostics) -> None:
    """A ``removed`` block may not name what the configuration still declares."""
    for _, module in root.walk():
        for rule in module.removed:
            name = rule.from_addr
            declared = (name.split(".")[1] in module.module_calls if name.startswith("module.")
                        else name in module.resources)
            if declared:
                diags.error(
                    "Removed resource still declared",
                    detail=f"This block says {name} was removed, but the configuration still declares it.",
                    hint=f"Delete the declaration of {name}, or this removed block.",
                    range=rule.rng,
                )


__all__ = ["Removals", "check_removed_blocks"]
