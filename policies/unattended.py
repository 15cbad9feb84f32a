"""Which planned changes ``ctl reconcile`` may apply with nobody watching: ``unattended`` rules.

A policy set (``policy-set.yaml``) may list rules; a change is applied unattended only when one
rule allows it, and everything else is reported and left for a person. With no rule, nothing is
applied unattended: reconcile then only reports, which is the safe default for a loop that runs
without review.

```yaml
unattended:
  - name: revert-tags           # shown in reports as the reason a change was applied
    attributes: [tags, tags_all] # every attribute the change touches is one of these
    drift: true                 # and the change only puts back what changed outside ctl
  - name: scratch
    addresses: ["module.scratch"] # anything inside module.scratch (a target-style address)
    actions: [create, update, delete, replace]
```

A rule's conditions all hold for a change it allows:

- ``addresses``: address patterns (default: every address). A pattern without ``*`` matches as a
  ``--target`` does (the resource, its instances, everything inside a module); with ``*`` it is a
  glob over the whole address (``aws_s3_bucket.*``, ``module.*.aws_sqs_queue.jobs``).
- ``actions``: of ``create``, ``update``, ``delete``, ``replace`` (default: ``[update]``: a rule
  never allows deleting or replacing an object unless it says so).
- ``attributes``: top-level attribute names; every attribute the change touches must be one of
  them (an update only; a create or delete touches the whole object and never passes).
- ``drift``: when true, only a change that reverts drift passes: every attribute it touches
  changed outside ctl, and the change puts back what ctl had recorded.

The rules are plain data and the decision a pure function of a change's description, so the
engine describes each planned change (``ChangeFacts``) and asks ``decide``; this package never
reads the engine's plan model. The file in ``<configuration>/policies/`` and any ``--policy-dir``
are read in that order, and a later file that has ``unattended`` replaces the rules of an earlier
one (``unattended: []`` turns them off), as a later source wins for every policy-set key.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from policies.model import PolicyError, range_for

ACTIONS = ("create", "update", "delete", "replace")
_KEYS = {"name", "addresses", "actions", "attributes", "drift"}


@dataclass(frozen=True)
class UnattendedRule:
    """One ``unattended`` entry: the changes it lets reconcile apply on its own."""

    name: str
    addresses: tuple[str, ...] = ()  # empty: every address
    actions: tuple[str, ...] = ("update",)
    attributes: tuple[str, ...] | None = None  # None: any attribute
    drift: bool = False


@dataclass(frozen=True)
class ChangeFacts:
    """What the decision reads of one planned change.

    ``action`` is one of ``ACTIONS``; ``touched`` holds the top-level attributes whose values the
    change alters; ``reverts_drift`` is true when the change alters only values that changed outside
    ctl, and puts back what ctl had recorded for them.
    """

    address: str
    action: str
    touched: frozenset[str]
    reverts_drift: bool


@dataclass(frozen=True)
class Decision:
    """Whether a change may be applied unattended; ``rule`` names the rule that allowed it, else
    ``reason`` says why none did (for the report)."""

    allowed: bool
    rule: str | None
    reason: str


def decide(rules: Sequence[UnattendedRule], change: ChangeFacts) -> Decision:
    """The first rule that allows ``change``, or why it is left for a person."""
    if not rules:
        return Decision(False, None, "no unattended rule in policy-set.yaml: reconcile only reports")
    for rule in rules:
        if _allows(rule, change):
            return Decision(True, rule.name, f"allowed by unattended rule {rule.name}")
    return Decision(False, None, "no unattended rule allows it")


def _allows(rule: UnattendedRule, change: ChangeFacts) -> bool:
    if rule.addresses and not any(address_matches(change.address, p) for p in rule.addresses):
        return False
    if change.action not in rule.actions:
        return False
    if rule.attributes is not None and (change.action != "update" or not change.touched <= set(rule.attributes)):
        return False
    return not (rule.drift and not change.reverts_drift)


def address_matches(address: str, pattern: str) -> bool:
    """A glob when ``pattern`` has ``*``; else as ``--target`` matches (itself, its instances, inside)."""
    if "*" in pattern:
        return fnmatch.fnmatchcase(address, pattern)
    if address == pattern:
        return True
    return address.startswith(pattern) and address[len(pattern)] in "[."


def parse_rules(raw: Any, display: str, lines: Sequence[int] = ()) -> list[UnattendedRule]:
    """The ``unattended`` list of a policy set, every entry checked; a mistake names the file and
    the line of the rule (``lines``: where each entry starts, when the reader knows)."""
    where = range_for(display, lines[0] if lines else 1)
    hint = "See docs/drift.md: unattended rules take name, addresses, actions, attributes and drift."
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise PolicyError("'unattended' must be a list of rules", range=where, hint=hint)
    rules: list[UnattendedRule] = []
    for i, entry in enumerate(raw):
        label = f"unattended rule {i + 1}"
        where = range_for(display, lines[i] if i < len(lines) else 1)
        if not isinstance(entry, dict):
            raise PolicyError(f"{label} must be a mapping", range=where, hint=hint)
        unknown = sorted(str(k) for k in set(entry) - _KEYS)
        if unknown:
            raise PolicyError(f"{label} has unknown key(s): {', '.join(unknown)}", range=where, hint=hint)
        name = entry.get("name", f"rule-{i + 1}")
        if not isinstance(name, str) or not name:
            raise PolicyError(f"{label}: 'name' must be a non-empty string", range=where, hint=hint)
        addresses = _strings(entry.get("addresses"), f"{label}: 'addresses'", where, hint)
        actions = _strings(entry.get("actions", ["update"]), f"{label}: 'actions'", where, hint)
        bad = [a for a in actions if a not in ACTIONS]
        if bad or not actions:
            raise PolicyError(f"{label}: unknown action(s) {', '.join(bad) or '(none given)'}", range=where,
                              hint=f"Use some of: {', '.join(ACTIONS)}.")
        attributes = entry.get("attributes")
        attrs = None if attributes is None else _strings(attributes, f"{label}: 'attributes'", where, hint)
        drift = entry.get("drift", False)
        if not isinstance(drift, bool):
            raise PolicyError(f"{label}: 'drift' must be true or false", range=where, hint=hint)
        rules.append(UnattendedRule(name, addresses, actions, attrs, drift))
    return rules


def _strings(value: Any, what: str, where: Any, hint: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"{what} must be a list of strings", range=where, hint=hint)
    return tuple(value)


__all__ = ["ACTIONS", "ChangeFacts", "Decision", "UnattendedRule", "address_matches", "decide", "parse_rules"]
