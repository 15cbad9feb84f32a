"""The built-in ``terraform`` provider: ``terraform_data``, as in Terraform itself."""

from __future__ import annotations

from adapters.base import Provider
from adapters.terraform.data import TerraformData

PROVIDER = Provider(
    name="terraform",
    source="terraform.io/builtin/terraform",
    resources={rt.name: rt for rt in (TerraformData(),)},
    config_schema={"type": "object", "properties": {}, "additionalProperties": False},
)

__all__ = ["PROVIDER"]
