"""Plan-time shaping and checks of an ``aws_dynamodb_table``'s configuration.

They run while values may still be unknown (an unknown is left alone and checked again once known),
and they refuse at plan what DynamoDB would refuse at apply, so a mistake costs no half-made table.
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterContext, AdapterError
from vocab.values import Unknown

DEFAULT_RECOVERY_DAYS = 35  # what DynamoDB uses when RecoveryPeriodInDays is not given


def plan_indexes(ctx: AdapterContext, indexes: Any, billing: Any) -> Any:
    """Indexes sorted by name, projections as sets, capacities as the billing mode wants them."""
    if indexes is None:
        return []  # no index: an empty list, as Terraform has it for a block never written
    if not isinstance(indexes, list):
        return indexes
    if any(not isinstance(g, dict) for g in indexes):
        return indexes
    out: list[dict[str, Any]] = []
    for index in indexes:
        g = dict(index)
        nka = g.get("non_key_attributes")
        if isinstance(nka, list) and not any(isinstance(a, Unknown) for a in nka):
            g["non_key_attributes"] = sorted(set(nka)) or None
        if g.get("projection_type") == "INCLUDE" and g.get("non_key_attributes") is None:
            raise AdapterError(f'index "{g.get("name")}": projection_type INCLUDE needs non_key_attributes',
                               address=ctx.address or None)
        if g.get("projection_type") in ("ALL", "KEYS_ONLY") and g.get("non_key_attributes") is not None:
            raise AdapterError(f'index "{g.get("name")}": non_key_attributes needs '
                               'projection_type = "INCLUDE"', address=ctx.address or None)
        for name in ("read_capacity", "write_capacity"):
            if billing == "PAY_PER_REQUEST":
                if g.get(name) not in (None, 0) and not isinstance(g.get(name), Unknown):
                    raise AdapterError(f'index "{g.get("name")}": {name} cannot be set when billing_mode is '
                                       "PAY_PER_REQUEST", address=ctx.address or None)
                g[name] = 0
            elif billing == "PROVISIONED" and g.get(name) is None:
                raise AdapterError(f'index "{g.get("name")}": {name} must be set when billing_mode is '
                                   "PROVISIONED", address=ctx.address or None)
        out.append(g)
    if all(isinstance(g.get("name"), str) for g in out):
        out.sort(key=lambda g: g["name"])
    return out


def check_attributes_are_keys(ctx: AdapterContext, out: dict[str, Any]) -> None:
    """Every key needs an ``attribute``, and every ``attribute`` must be a key (as DynamoDB requires)."""
    attributes, indexes = out.get("attribute"), out.get("global_secondary_index") or []
    if not isinstance(attributes, list) or not isinstance(indexes, list):
        return
    names = [a.get("name") for a in attributes if isinstance(a, dict)]
    keys = [out.get("hash_key"), out.get("range_key")]
    keys += [g.get(k) for g in indexes if isinstance(g, dict) for k in ("hash_key", "range_key")]
    if len(names) != len(attributes) or any(not isinstance(v, str | None) for v in (*names, *keys)):
        return  # still unknown somewhere: checked again when known
    defined = {n for n in names if isinstance(n, str)}
    used = {k for k in keys if isinstance(k, str)}
    undefined = sorted(used - defined)
    if undefined:
        what = f"key attribute {undefined[0]} has" if len(undefined) == 1 else \
            f"key attributes {', '.join(undefined)} have"
        raise AdapterError(f"{what} no attribute block", hint="Add an attribute block (name and type) for every key.",
                           address=ctx.address or None)
    unused = sorted(defined - used)
    if unused:
        what = f"attribute {unused[0]} is not a key" if len(unused) == 1 else \
            f"attributes {', '.join(unused)} are not keys"
        raise AdapterError(f"{what} of the table or of an index", address=ctx.address or None,
                           hint="DynamoDB defines key attributes only: remove it, or index it.")


def plan_ttl(ctx: AdapterContext, ttl: Any) -> Any:
    """``ttl`` as stored: an empty block list is "not configured"; a name only when enabled."""
    if not isinstance(ttl, list):
        return ttl
    if not ttl:
        return None
    item = ttl[0]
    if not isinstance(item, dict):
        return ttl
    name, enabled = item.get("attribute_name"), item.get("enabled")
    if isinstance(name, Unknown) or isinstance(enabled, Unknown):
        return ttl
    name = name or None
    if enabled and name is None:
        raise AdapterError("ttl: attribute_name must be set when enabled is true",
                           address=ctx.address or None)
    if not enabled and name is not None:
        raise AdapterError("ttl: attribute_name must not be set when enabled is false",
                           hint="Remove attribute_name, or set enabled = true.", address=ctx.address or None)
    return [{"attribute_name": name, "enabled": bool(enabled)}]


def plan_pitr(ctx: AdapterContext, prior: dict[str, Any] | None, pitr: Any) -> Any:
    """``point_in_time_recovery`` as stored: the recovery period is AWS's (or the prior one) when unset."""
    if not isinstance(pitr, list):
        return pitr
    if not pitr:
        return None
    item = pitr[0]
    if not isinstance(item, dict) or isinstance(item.get("enabled"), Unknown):
        return pitr
    enabled, days = bool(item.get("enabled")), item.get("recovery_period_in_days")
    if not enabled:
        if days is not None:
            raise AdapterError("point_in_time_recovery: recovery_period_in_days needs enabled = true",
                               address=ctx.address or None)
        return [{"enabled": False, "recovery_period_in_days": None}]
    if days is None:
        before = single((prior or {}).get("point_in_time_recovery"))
        kept = before.get("recovery_period_in_days") if before and before.get("enabled") else None
        days = kept if kept is not None else DEFAULT_RECOVERY_DAYS
    return [{"enabled": True, "recovery_period_in_days": days if isinstance(days, Unknown) else int(days)}]


def single(value: Any) -> dict[str, Any] | None:
    """The one object of a MaxItems-1 block, or None when it is not configured (or not known)."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return value[0]
    return None
