"""The ``random`` provider: random values kept in state (Terraform's hashicorp/random)."""

from __future__ import annotations

from adapters.base import Provider
from adapters.random.ids import RandomId, RandomInteger
from adapters.random.strings import RandomPassword, RandomString

PROVIDER = Provider(
    name="random",
    source="registry.terraform.io/hashicorp/random",
    resources={rt.name: rt for rt in (RandomId(), RandomInteger(), RandomPassword(), RandomString())},
    config_schema={"type": "object", "properties": {}, "additionalProperties": False},
)

__all__ = ["PROVIDER"]
