"""The ``local`` provider: files on the machine that runs ctl (Terraform's hashicorp/local)."""

from __future__ import annotations

from adapters.base import Provider
from adapters.local.data_file import LocalFileData, LocalSensitiveFileData
from adapters.local.file import LocalFile, LocalSensitiveFile

PROVIDER = Provider(
    name="local",
    source="registry.terraform.io/hashicorp/local",
    resources={rt.name: rt for rt in (LocalFile(), LocalSensitiveFile())},
    data_sources={ds.name: ds for ds in (LocalFileData(), LocalSensitiveFileData())},
    config_schema={"type": "object", "properties": {}, "additionalProperties": False},
)

__all__ = ["PROVIDER"]
