"""Helpers for ``ResourceType.import_id``: reading the naming arguments out of a planned identity.

A journaled identity holds only what was known and not sensitive when the create started, so a
name computed by the cloud (a ``bucket_prefix``) or by another resource still pending is simply
absent. An object is findable only when every argument that names it made it in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def known_strings(identity: Mapping[str, Any], *names: str) -> tuple[str, ...] | None:
    """The values of ``names`` in ``identity`` when every one is a non-empty string, else None."""
    values: list[str] = []
    for name in names:
        value = identity.get(name)
        if not isinstance(value, str) or not value:
            return None
        values.append(value)
    return tuple(values)


def joined(identity: Mapping[str, Any], separator: str, *names: str) -> str | None:
    """``A{separator}B…`` of the named values (an import ID like ``BUCKET/KEY``), or None if one is missing."""
    values = known_strings(identity, *names)
    return None if values is None else separator.join(values)
