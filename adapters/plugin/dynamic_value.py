"""A protocol ``DynamicValue`` (msgpack or JSON bytes) to and from a ctl value.

Terraform sends and expects msgpack; a provider may answer in either encoding (older ones used
JSON), and a ``DynamicValue`` with neither set stands for null — Terraform's own reading, which this
follows so a provider sees the same behaviour from ctl. Every value a provider answers with is read
here, whichever call it came from, so a JSON answer is never mistaken for no value at all. JSON is
read with the schema's type guiding it, as cty's JSON decoding does: it has no unknowns, and its
numbers, sets and dynamic values only become what they are through the type.
"""

from __future__ import annotations

from typing import Any

from adapters.plugin.cty_json import decode_json
from adapters.plugin.dynamic_types import DynamicTypes
from adapters.plugin.msgpack_codec import decode, encode
from adapters.plugin.results import DynamicValue
from vocab.types import CtyType
from vocab.values import Path, apply_paths


def decode_dynamic_value(
    value: DynamicValue | None,
    ty: CtyType,
    *,
    sensitive: list[Path] | None = None,
    dynamic_types: DynamicTypes | None = None,
) -> Any:
    """The value ``value``'s ``msgpack`` or ``json`` bytes hold; null when both are empty."""
    if value is None:
        return None
    if value.msgpack:
        return decode(value.msgpack, ty, sensitive=sensitive, dynamic_types=dynamic_types)
    if value.json:
        decoded = decode_json(value.json, ty, dynamic_types=dynamic_types)
        return apply_paths(decoded, list(sensitive)) if sensitive else decoded
    return None


def msgpack_of(value: DynamicValue, ty: CtyType) -> bytes:
    """``value`` as msgpack bytes, to hand back to the provider in a later call (an upgraded state
    to ReadResource, a plan to ApplyResourceChange): as sent when it was msgpack; a JSON answer is
    decoded and encoded again, because Terraform sends msgpack and providers built on the SDK read
    nothing else."""
    if value.msgpack:
        return value.msgpack
    types: DynamicTypes = {}
    data, _ = encode(decode_dynamic_value(value, ty, dynamic_types=types), ty, dynamic_types=types)
    return data


def encode_dynamic_value(
    value: Any, ty: CtyType, *, dynamic_types: DynamicTypes | None = None
) -> tuple[bytes, list[Path]]:
    """The ``msgpack`` bytes for a ``DynamicValue`` and the sensitive paths stripped from ``value``."""
    return encode(value, ty, dynamic_types=dynamic_types)
