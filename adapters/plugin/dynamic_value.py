"""A protocol ``DynamicValue`` (msgpack or JSON bytes) to and from a ctl value.

Terraform sends and expects msgpack; a provider may answer in either encoding (older ones used
JSON), and a ``DynamicValue`` with neither set stands for null — Terraform's own reading, which this
follows so a provider sees the same behaviour from ctl.
"""

from __future__ import annotations

from typing import Any

from adapters.plugin.cty_json import decode_json
from adapters.plugin.dynamic_types import DynamicTypes
from adapters.plugin.msgpack_codec import decode, encode
from vocab.types import CtyType
from vocab.values import Path, apply_paths


def decode_dynamic_value(
    msgpack_data: bytes,
    json_data: bytes,
    ty: CtyType,
    *,
    sensitive: list[Path] | None = None,
    dynamic_types: DynamicTypes | None = None,
) -> Any:
    """The value a ``DynamicValue``'s ``msgpack`` or ``json`` field holds; null when both are empty."""
    if msgpack_data:
        return decode(msgpack_data, ty, sensitive=sensitive, dynamic_types=dynamic_types)
    if json_data:
        value = decode_json(json_data, ty, dynamic_types=dynamic_types)
        return apply_paths(value, list(sensitive)) if sensitive else value
    return None


def encode_dynamic_value(
    value: Any, ty: CtyType, *, dynamic_types: DynamicTypes | None = None
) -> tuple[bytes, list[Path]]:
    """The ``msgpack`` bytes for a ``DynamicValue`` and the sensitive paths stripped from ``value``."""
    return encode(value, ty, dynamic_types=dynamic_types)
