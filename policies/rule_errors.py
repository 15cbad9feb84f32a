"""Advisory rules that cannot evaluate a resource: a warning naming the rule and the resource.

A rule that fails while evaluating (a built-in function's error, such as ``json.unmarshal`` of an
empty policy) makes the whole rule undefined for the plan. For a mandatory rule that is an error
of the check: passing it quietly would let through what the rule exists to stop. An advisory rule
only gives advice, and Terraform would apply the plan, so its failure must not stop the plan:
the resources it cannot evaluate are found by evaluating the rule on parts of the plan, each
becomes a warning, and the rule's findings for the rest of the plan are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from policies.model import PolicyError

Rule = tuple[str, str]
# Evaluates some rules on a plan document; failures go into the dict given, values are returned.
Evaluate = Callable[[dict[str, Any], list[Rule], dict[Rule, PolicyError]], dict[Rule, Any]]


@dataclass(frozen=True)
class RuleFailure:
    """An advisory rule that could not evaluate part of the plan."""

    reason: str  # the evaluation error's summary
    addresses: tuple[str, ...]  # the resources it could not evaluate; empty: not one alone

    def to_json(self) -> list[Any]:
        return [self.reason, list(self.addresses)]

    @staticmethod
    def from_json(value: list[Any]) -> RuleFailure:
        return RuleFailure(str(value[0]), tuple(str(a) for a in value[1]))


def evaluate_tolerating(evaluate: Evaluate, doc: dict[str, Any], rules: list[Rule],
                        tolerated: set[Rule]) -> tuple[dict[Rule, Any], dict[Rule, RuleFailure]]:
    """Every rule's value on ``doc``, with the failures of ``tolerated`` rules located instead of raised.

    A rule outside ``tolerated`` that fails raises its error, as before. A tolerated rule that
    fails is evaluated again without the resources it fails on, so its findings for the others
    still count; its value is ``None`` when even that fails.
    """
    errors: dict[Rule, PolicyError] = {}
    values = evaluate(doc, rules, errors)
    for rule, exc in errors.items():
        if rule not in tolerated:
            raise exc
    failures: dict[Rule, RuleFailure] = {}
    changes = doc.get("resource_changes") or []
    for rule, exc in errors.items():
        positions = list(range(len(changes)))
        culprits: set[int] = set()
        for start in range(0, len(positions), _CHUNK):
            culprits |= _culprits(evaluate, doc, changes, rule, positions[start:start + _CHUNK])
        rest = [c for i, c in enumerate(changes) if i not in culprits]
        again: dict[Rule, PolicyError] = {}
        value = evaluate({**doc, "resource_changes": rest}, [rule], again).get(rule) if culprits else None
        if again or not culprits:
            value, culprits = None, set()
        values[rule] = value
        addresses = tuple(str(changes[i].get("address", "")) for i in sorted(culprits))
        failures[rule] = RuleFailure(exc.summary, addresses)
    return values, failures


# Resources per part the plan is first cut into: each part is one evaluation, and only a part that
# fails is halved further. Cutting the whole plan in halves instead would evaluate every resource
# about twice more (the halves of each level add up to the plan), and most of the cost of an
# evaluation is building its input, which grows with the resources in it.
_CHUNK = 64


def _culprits(evaluate: Evaluate, doc: dict[str, Any], changes: list[Any], rule: Rule,
              positions: list[int]) -> set[int]:
    """The positions among ``positions`` of the resources ``rule`` fails on, each on its own.

    Halves are tried in turn, so a few failing resources cost a few evaluations per halving rather
    than one per resource.
    """
    if not positions or not _fails(evaluate, doc, changes, rule, positions):
        return set()
    if len(positions) == 1:
        return set(positions)
    middle = len(positions) // 2
    return (_culprits(evaluate, doc, changes, rule, positions[:middle])
            | _culprits(evaluate, doc, changes, rule, positions[middle:]))


def _fails(evaluate: Evaluate, doc: dict[str, Any], changes: list[Any], rule: Rule, positions: list[int]) -> bool:
    errors: dict[Rule, PolicyError] = {}
    evaluate({**doc, "resource_changes": [changes[i] for i in positions]}, [rule], errors)
    return bool(errors)


__all__ = ["RuleFailure", "evaluate_tolerating"]
