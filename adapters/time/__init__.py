"""The ``time`` provider: time-based resources (Terraform's hashicorp/time); today ``time_sleep``."""

from __future__ import annotations

from adapters.base import Provider
from adapters.time.sleep import TimeSleep

PROVIDER = Provider(
    name="time",
    source="registry.terraform.io/hashicorp/time",
    resources={rt.name: rt for rt in (TimeSleep(),)},
    config_schema={"type": "object", "properties": {}, "additionalProperties": False},
)

__all__ = ["PROVIDER"]
