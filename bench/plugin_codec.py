"""Time the provider-plugin value layer on a typical resource: µs per object for each step.

A plan sends each resource's configuration, prior state and proposed new state to the provider
and reads the planned state back, so the per-resource protocol overhead is a few encodes and
decodes of one object. The object here is a typical cloud resource: 30 attributes (strings,
numbers, bools, tags, lists), a list block of three rules, a set block of two, a single timeouts
block, a dynamic attribute, a secret and some unknown computed values. Target: well under 2 ms
for the whole set of steps per resource.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.plugin.config_shape import proposed_new
from adapters.plugin.msgpack_codec import decode, encode
from vocab.schema.decode import normalize_config
from vocab.schema.form import (
    LIST,
    SET,
    SINGLE,
    Attribute,
    Block,
    NestedBlock,
    implied_type,
    sensitive_paths,
)
from vocab.types import BOOL, DYNAMIC, NUMBER, STRING, list_of, map_of
from vocab.values import UNKNOWN, Marked

RULE = Block(
    attributes=(
        Attribute("from_port", NUMBER, required=True),
        Attribute("to_port", NUMBER, required=True),
        Attribute("protocol", STRING, required=True),
        Attribute("cidr_blocks", list_of(STRING), optional=True),
        Attribute("description", STRING, optional=True),
        Attribute("self", BOOL, optional=True),
    )
)
SCALARS = [Attribute(f"s{i}", STRING, optional=True) for i in range(14)]
NUMBERS = [Attribute(f"n{i}", NUMBER, optional=True) for i in range(5)]
FLAGS = [Attribute(f"b{i}", BOOL, optional=True) for i in range(4)]
BLOCK = Block(
    attributes=(
        Attribute("id", STRING, computed=True),
        Attribute("arn", STRING, computed=True),
        Attribute("name", STRING, required=True),
        Attribute("tags", map_of(STRING), optional=True),
        Attribute("zones", list_of(STRING), optional=True),
        Attribute("password", STRING, optional=True, sensitive=True),
        Attribute("extra", DYNAMIC, optional=True),
        *SCALARS,
        *NUMBERS,
        *FLAGS,
    ),
    block_types=(
        NestedBlock("ingress", RULE, LIST),
        NestedBlock("egress", RULE, SET),
        NestedBlock("timeouts", Block(attributes=(Attribute("create", STRING, optional=True),)), SINGLE),
    ),
)


def rule(i: int) -> dict:
    return {"from_port": 1000 + i, "to_port": 2000 + i, "protocol": "tcp", "cidr_blocks": ["10.0.0.0/8"]}


CONFIG = {
    "name": "web-server",
    "tags": {"Name": "web", "Environment": "production", "Team": "platform"},
    "zones": ["eu-west-1a", "eu-west-1b"],
    "password": Marked("hunter2"),
    "extra": {"owner": "ops", "weights": [1, 2.5]},
    **{a.name: f"value-{a.name}" for a in SCALARS},
    **{a.name: 42 + i for i, a in enumerate(NUMBERS)},
    **{a.name: i % 2 == 0 for i, a in enumerate(FLAGS)},
    "ingress": [rule(i) for i in range(3)],
    "egress": [rule(i) for i in range(2)],
    "timeouts": {"create": "10m"},
}


def per_object(fn, rounds: int) -> float:
    # CPU time, not wall time: the machine is often shared, and this is single-threaded work.
    fn()
    start = time.process_time()
    for _ in range(rounds):
        fn()
    return (time.process_time() - start) / rounds * 1e6


def main() -> None:
    rounds = 2000
    ty = implied_type(BLOCK)
    config = normalize_config(BLOCK, CONFIG)
    planned = dict(proposed_new(BLOCK, None, config), id=UNKNOWN, arn=UNKNOWN)
    data, _ = encode(planned, ty)
    steps = {
        "normalize_config": lambda: normalize_config(BLOCK, CONFIG),
        "proposed_new": lambda: proposed_new(BLOCK, None, config),
        "encode": lambda: encode(planned, ty),
        "decode": lambda: decode(data, ty),
        "sensitive_paths": lambda: sensitive_paths(BLOCK, planned),
    }
    print(f"object: {len(ty.attributes)} attributes, {len(data)} msgpack bytes; {rounds} rounds each")
    print(f"CPU µs per object (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    total = 0.0
    for name, fn in steps.items():
        us = per_object(fn, rounds)
        total += us
        print(f"  {name:<18} {us:8.1f} µs")
    both = per_object(lambda: decode(encode(planned, ty)[0], ty), rounds)
    print(f"  {'encode+decode':<18} {both:8.1f} µs")
    # A plan request carries config, prior and proposed state and reads one object back: three
    # encodes and a decode on top of shaping the configuration.
    request = total + 2 * per_object(lambda: encode(planned, ty), rounds)
    print(f"per PlanResourceChange (3 encodes, 1 decode, shaping): {request:.1f} µs; target < 2000 µs")


if __name__ == "__main__":
    main()
