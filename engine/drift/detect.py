"""What changed outside ctl, attribute by attribute, from the drift a plan's refresh found.

The refresh itself is the plan's (``engine.plan.refresh``): this module only turns its
``resource_drift`` entries into the leaves that differ, each with its path, the value in state
before and the value read now. A value the state marks sensitive is never carried: its entry
says only that it changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.plan.diff import equal
from engine.plan.model import ACTIONS_DELETE, ResourceChange
from engine.plan.targets import matches
from vocab.values import SENSITIVE, Marked, Unknown

PathPart = str | int
MASK = "(sensitive value)"


@dataclass(frozen=True)
class AttributeDrift:
    """One leaf that differs: its path from the resource's top level, and both values (masked)."""

    path: tuple[PathPart, ...]
    before: Any
    after: Any
    sensitive: bool = False

    @property
    def name(self) -> str:
        """The path as Terraform writes a reference: ``tags["team"]``, ``rule[0].days``."""
        return path_text(self.path)


@dataclass
class ObjectDrift:
    """A resource instance that changed outside ctl: ``update`` (attributes listed) or ``delete``."""

    address: str
    action: str
    attributes: list[AttributeDrift] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "type": "drift", "address": self.address, "action": self.action,
            "attributes": [{"path": list(a.path), "name": a.name, "before": a.before, "after": a.after,
                            "sensitive": a.sensitive} for a in self.attributes],
        }


def path_text(path: Iterable[PathPart]) -> str:
    """``tags["team"]``, ``versioning[0].enabled``: a key of a list element is a nested block's (or an
    object's) attribute, written with a dot as in the configuration; other keys are map keys."""
    out = ""
    previous: PathPart | None = None
    for i, part in enumerate(path):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i == 0:
            out += part
        elif isinstance(previous, int) and _IDENTIFIER.fullmatch(part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
        previous = part
    return out


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def drifted_objects(drift: list[ResourceChange], targets: list[str] | None = None) -> list[ObjectDrift]:
    """Each drifted instance under ``targets`` (all when none), with the attributes that differ.

    An update whose differences are all below what can be told apart (a set read back in another
    order) is still listed, with no attribute: the refresh saw a change, and says so.
    """
    found: list[ObjectDrift] = []
    for c in drift:
        if targets and not any(matches(c.address, t) for t in targets):
            continue
        if tuple(c.actions) == ACTIONS_DELETE or c.after is None:
            found.append(ObjectDrift(c.address, "delete"))
            continue
        leaves: list[AttributeDrift] = []
        _diff((), c.before or {}, c.after, leaves)
        found.append(ObjectDrift(c.address, "update", leaves))
    return found


def _diff(path: tuple[PathPart, ...], a: Any, b: Any, out: list[AttributeDrift]) -> None:
    secret = _secret(a) or _secret(b)
    if secret:
        if not equal(_plain(a), _plain(b)):
            out.append(AttributeDrift(path, MASK, MASK, sensitive=True))
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            _diff((*path, key), a.get(key), b.get(key), out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and path:
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff((*path, i), x, y, out)
        return
    if not equal(a, b):
        out.append(AttributeDrift(path, _shown(a), _shown(b)))


def _secret(v: Any) -> bool:
    return isinstance(v, Marked) and SENSITIVE in v.marks


def _plain(v: Any) -> Any:
    return v.value if isinstance(v, Marked) else v


def _shown(v: Any) -> Any:
    """A JSON-safe copy, secrets inside a list or map masked."""
    if isinstance(v, Marked):
        return MASK if SENSITIVE in v.marks else _shown(v.value)
    if isinstance(v, Unknown):
        return "(known after apply)"
    if isinstance(v, list):
        return [_shown(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _shown(x) for k, x in v.items()}
    return v


def literal(v: Any) -> str:
    """A value as a short one-line literal for a terminal or an annotation."""
    if v is None:
        return "null"
    if v == MASK:
        return MASK
    return json.dumps(v, sort_keys=True, ensure_ascii=False)
