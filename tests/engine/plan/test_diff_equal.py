"""``equal``: its shortcuts for plain scalars answer exactly as the general rules do."""

from __future__ import annotations

import itertools
import random
from typing import Any

from engine.plan.diff import equal
from vocab.values import UNKNOWN, Marked, Unknown


def reference(a: Any, b: Any) -> bool:
    """The rules, spelled out without shortcuts."""
    if isinstance(a, Marked):
        a = a.value
    if isinstance(b, Marked):
        b = b.value
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(reference(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(reference(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


LEAVES: list[Any] = [None, 0, 1, 1.0, 1.5, float("nan"), True, False, "", "a", "1", UNKNOWN, Marked("a"), Marked(1)]


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth == 0 or kind < 0.5:
        return rng.choice(LEAVES)
    if kind < 0.75:
        return [_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    if kind < 0.9:
        return {k: _value(rng, depth - 1) for k in rng.sample("abc", rng.randint(0, 3))}
    return Marked(_value(rng, depth - 1))


def test_every_pair_of_leaves_and_their_containers() -> None:
    for x, y in itertools.product(LEAVES, repeat=2):
        for a, b in ((x, y), ([x], [y]), ({"k": x}, {"k": y}), ({"k": [x, 1]}, {"k": [y, 1]})):
            assert equal(a, b) == reference(a, b), (a, b)


def test_random_values_and_their_near_copies() -> None:
    rng = random.Random(14)
    for _ in range(20000):
        a = _value(rng, 3)
        b = a if rng.random() < 0.3 else _value(rng, 3)
        assert equal(a, b) == reference(a, b), (a, b)
