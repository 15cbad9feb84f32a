"""Enforcement levels: what a failed policy does to a run.

* ``advisory``: reported, never blocks.
* ``soft-mandatory``: blocks unless the run is given ``--policy-override "reason"``; the reason is
  printed and recorded with the plan.
* ``hard-mandatory``: blocks, and no override lifts it.

``deny`` and ``violation`` rules default to soft-mandatory, ``warn`` rules to advisory. A policy
sets its own level in its ``# METADATA`` annotation (``custom: {level: hard-mandatory}``) or in a
result object (``{"msg": …, "level": …}``); ``policies/policy-set.yaml`` has the last word.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class Level(StrEnum):
    ADVISORY = "advisory"
    SOFT_MANDATORY = "soft-mandatory"
    HARD_MANDATORY = "hard-mandatory"

    @property
    def mandatory(self) -> bool:
        return self is not Level.ADVISORY


_ALIASES = {
    "advisory": Level.ADVISORY,
    "soft-mandatory": Level.SOFT_MANDATORY,
    "soft_mandatory": Level.SOFT_MANDATORY,
    "hard-mandatory": Level.HARD_MANDATORY,
    "hard_mandatory": Level.HARD_MANDATORY,
}
LEVEL_NAMES = tuple(lv.value for lv in Level)


def parse_level(value: object) -> Level | None:
    """The level named by ``value``, ``None`` when it names none."""
    if isinstance(value, Level):
        return value
    if isinstance(value, str):
        return _ALIASES.get(value.strip().lower())
    return None


def default_level(kind: str) -> Level:
    """``warn`` rules are advisory; ``deny``/``violation`` rules and simple policies soft-mandatory."""
    return Level.ADVISORY if kind == "warn" else Level.SOFT_MANDATORY


def level_from_metadata(meta: Mapping[str, Any] | None) -> Level | None:
    """A level from an annotation or result object: ``level`` or ``custom.level``."""
    if not meta:
        return None
    found = parse_level(meta.get("level"))
    if found is None and isinstance(meta.get("custom"), Mapping):
        found = parse_level(meta["custom"].get("level"))
    if found is None and isinstance(meta.get("metadata"), Mapping):
        found = level_from_metadata(meta["metadata"])
    return found


def resolve(kind: str, *candidates: Level | None, policy_set: Level | None = None) -> Level:
    """The policy set's level, else the first candidate given, else the default for ``kind``."""
    if policy_set is not None:
        return policy_set
    for c in candidates:
        if c is not None:
            return c
    return default_level(kind)


def blocks(level: Level, override: str | None) -> bool:
    """Whether a failure at ``level`` stops the run, given the override reason (if any)."""
    if level is Level.HARD_MANDATORY:
        return True
    if level is Level.SOFT_MANDATORY:
        return not override
    return False


__all__ = ["LEVEL_NAMES", "Level", "blocks", "default_level", "level_from_metadata", "parse_level",
           "resolve"]
