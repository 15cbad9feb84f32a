"""``aws_dynamodb_table``: keys, global secondary indexes, billing, TTL, backups, protection and tags.

``attribute`` is a set in Terraform, kept sorted by name so the order it was written in never shows
up as a change; so is ``global_secondary_index`` (by index name, ``non_key_attributes`` sorted too).
DynamoDB keeps definitions only of attributes that are keys of the table or of an index, so every
``attribute`` must be one (checked at plan time, as AWS would refuse it at apply).

A change to ``attribute`` still replaces the table: the engine decides replacement per argument,
and with no secondary index the attributes are exactly the table's keys, whose types cannot change
in place. Index changes that leave ``attribute`` alone (projection, capacity, an index over already
defined attributes, removing one whose attributes other keys still use) are made in place, one
index per ``UpdateTable`` as DynamoDB requires; an index whose keys or projection change is deleted
and created again, as Terraform does.

``ttl`` and ``point_in_time_recovery`` are optional *and* computed, as in Terraform: left out of
the configuration they take (and keep) the table's current setting. ``deletion_protection_enabled``
is sent on create and changed in place; a protected table refuses ``destroy`` until it is turned off.
Creating, updating and deleting wait until the table and its indexes are usable again.

The state is the one HashiCorp's provider (5.x) writes: the stream, table class, encryption and
local secondary indexes are read from the table (``""``, ``false`` or none when it has none; ctl
does not set them, so a configuration that does is refused and ``ctl init`` selects the plugin);
``replica``, ``import_table`` and the ``restore_*`` arguments are recorded as the provider records
them for a table made without them. ``recovery_period_in_days`` (newer than provider 5.45) is left
out of ``point_in_time_recovery`` while it is unset.
"""

from __future__ import annotations

from typing import Any

from adapters._recovery import known_strings
from adapters.aws import schema as s
from adapters.aws.base import AwsResource
from adapters.aws.dynamodb.planning import (
    DEFAULT_RECOVERY_DAYS,
    check_attributes_are_keys,
    plan_indexes,
    plan_pitr,
    plan_ttl,
    single,
)
from adapters.aws.errors import call, sdk_error
from adapters.base import AdapterContext, AdapterError
from vocab.values import Unknown

GONE = frozenset({"ResourceNotFoundException"})
_WAIT = {"Delay": 2, "MaxAttempts": 300}
_GSI_KEYS = ("hash_key", "range_key", "projection_type", "non_key_attributes")


def _what(name: Any) -> str:
    return f'DynamoDB table "{name}"'


class DynamoDbTable(AwsResource):
    """A DynamoDB table with a hash (and optional range) key."""

    name = "aws_dynamodb_table"
    service = "dynamodb"
    taggable = True
    schema = s.resource_schema({
        "name": s.required_string("Table name."),
        "billing_mode": s.string("PROVISIONED or PAY_PER_REQUEST.", default="PROVISIONED",
                                 enum=["PROVISIONED", "PAY_PER_REQUEST", None]),
        "hash_key": s.required_string("Attribute of the partition key."),
        "range_key": s.string("Attribute of the sort key."),
        "attribute": s.block("Definitions of the key attributes (of the table and its indexes).", {
            "name": s.required_string("Attribute name."),
            "type": s.required_string("S, N or B.", enum=["S", "N", "B"]),
        }, required=("name", "type"), min_items=1),
        "read_capacity": s.integer("Read capacity units (PROVISIONED).", minimum=0),
        "write_capacity": s.integer("Write capacity units (PROVISIONED).", minimum=0),
        "global_secondary_index": s.block("Global secondary indexes.", {
            "name": s.required_string("Index name."),
            "hash_key": s.required_string("Attribute of the index's partition key."),
            "range_key": s.string("Attribute of the index's sort key."),
            "projection_type": s.required_string("ALL, KEYS_ONLY or INCLUDE.",
                                                 enum=["ALL", "KEYS_ONLY", "INCLUDE"]),
            "non_key_attributes": {"type": ["array", "null"], "items": {"type": "string"},
                                   "description": "Attributes projected into an INCLUDE index."},
            "read_capacity": s.integer("Read capacity units of the index (PROVISIONED).", minimum=0),
            "write_capacity": s.integer("Write capacity units of the index (PROVISIONED).", minimum=0),
        }, required=("name", "hash_key", "projection_type")),
        "ttl": s.block("Time to live; when omitted, the table's current setting is kept.", {
            "attribute_name": s.string("Attribute holding the expiry time (only when enabled)."),
            "enabled": s.boolean("Whether expired items are deleted.", False),
        }, max_items=1),
        "point_in_time_recovery": s.block("Continuous backups; when omitted, the current setting is kept.", {
            "enabled": {"type": "boolean", "description": "Whether point-in-time recovery is on."},
            "recovery_period_in_days": s.integer("Days restorable (1-35; AWS's default 35).",
                                                 minimum=1, maximum=35),
        }, required=("enabled",), max_items=1),
        "deletion_protection_enabled": s.boolean("Refuse DeleteTable while set.", False),
        **s.tags_properties(),
        "id": s.computed("The table name."),
        "arn": s.computed("ARN of the table."),
        "stream_enabled": s.computed("Whether the table has a stream.", "boolean"),
        "stream_view_type": s.computed("What the stream carries; empty without one."),
        "stream_arn": s.computed("ARN of the latest stream; empty without one."),
        "stream_label": s.computed("Label of the latest stream; empty without one."),
        "table_class": s.computed("STANDARD or STANDARD_INFREQUENT_ACCESS."),
        "server_side_encryption": s.computed("Encryption with a KMS key: enabled and kms_key_arn; none "
                                             "with DynamoDB's own key.", "array"),
        "local_secondary_index": s.computed("Local secondary indexes: name, range_key, projection_type, "
                                            "non_key_attributes.", "array"),
        **{name: (s.computed(f"As the provider records it for a table made without it ({value!r}).",
                             "array" if isinstance(value, list) else "string"))
           for name, value in (("replica", []), ("import_table", []), ("restore_date_time", None),
                               ("restore_source_name", None), ("restore_to_latest_time", None))},
        "timeouts": {"type": ["object", "null"], "readOnly": True, "description": "The provider's operation timeouts."},
    }, required=("name", "hash_key", "attribute"))
    computed = frozenset({"id", "arn", "tags_all", "ttl", "point_in_time_recovery", "stream_enabled",
                          "stream_view_type", "stream_arn", "stream_label", "table_class", "server_side_encryption",
                          "local_secondary_index", "replica", "import_table", "restore_date_time",
                          "restore_source_name", "restore_to_latest_time", "timeouts"})
    blank_strings = frozenset({"ttl.attribute_name"})
    replace_on = frozenset({"name", "hash_key", "range_key", "attribute"})
    schema_version = 1  # the provider's (hashicorp/aws 5.x): its state and ours carry the same number

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        if isinstance(out.get("attribute"), list) and not any(isinstance(a, Unknown) for a in out["attribute"]):
            out["attribute"] = _sorted(out["attribute"])
        if out.get("billing_mode") == "PAY_PER_REQUEST":
            for name in ("read_capacity", "write_capacity"):
                if out.get(name) is None:
                    out[name] = 0
                elif out[name] != 0 and not isinstance(out[name], Unknown):
                    raise AdapterError(f"{name} cannot be set when billing_mode is PAY_PER_REQUEST",
                                       hint="Remove it, or use billing_mode = \"PROVISIONED\".",
                                       address=ctx.address or None)
        elif out.get("billing_mode") == "PROVISIONED":
            missing = [n for n in ("read_capacity", "write_capacity") if out.get(n) is None]
            if missing:
                raise AdapterError(f"{' and '.join(missing)} must be set when billing_mode is PROVISIONED",
                                   hint='Set them, or billing_mode = "PAY_PER_REQUEST".', address=ctx.address or None)
        out["global_secondary_index"] = plan_indexes(ctx, out.get("global_secondary_index"),
                                                      out.get("billing_mode"))
        check_attributes_are_keys(ctx, out)
        out["ttl"] = plan_ttl(ctx, out.get("ttl"))
        out["point_in_time_recovery"] = plan_pitr(ctx, prior, out.get("point_in_time_recovery"))
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        ddb = self.api(ctx)
        keys = [{"AttributeName": out["hash_key"], "KeyType": "HASH"}]
        if out.get("range_key"):
            keys.append({"AttributeName": out["range_key"], "KeyType": "RANGE"})
        kwargs: dict[str, Any] = {
            "TableName": out["name"],
            "AttributeDefinitions": _definitions(out),
            "KeySchema": keys,
            "BillingMode": out["billing_mode"],
            "DeletionProtectionEnabled": bool(out.get("deletion_protection_enabled")),
        }
        if out["billing_mode"] == "PROVISIONED":
            kwargs["ProvisionedThroughput"] = _throughput(out)
        if out.get("global_secondary_index"):
            kwargs["GlobalSecondaryIndexes"] = [_index_api(g, out["billing_mode"])
                                                for g in out["global_secondary_index"]]
        if out.get("tags_all"):
            kwargs["Tags"] = [{"Key": k, "Value": v} for k, v in sorted(out["tags_all"].items())]
        call(ctx, _what(out["name"]), ddb.create_table, **kwargs)
        self._wait(ctx, "table_exists", out["name"])
        self._wait_active(ctx, out["name"])
        self._set_ttl(ctx, out["name"], None, single(out.get("ttl")))
        self._set_pitr(ctx, out["name"], None, single(out.get("point_in_time_recovery")))
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        ddb, name = self.api(ctx), out["name"]
        billing = out["billing_mode"]
        old_indexes = {g["name"]: g for g in prior.get("global_secondary_index") or []}
        new_indexes = {g["name"]: g for g in out.get("global_secondary_index") or []}
        rebuilt = {n for n, g in new_indexes.items()
                   if n in old_indexes and any(g.get(k) != old_indexes[n].get(k) for k in _GSI_KEYS)}
        kept = [n for n in new_indexes if n in old_indexes and n not in rebuilt]

        billing_changed = billing != prior.get("billing_mode")
        capacity_changed = any(out.get(n) != prior.get(n) for n in ("read_capacity", "write_capacity"))
        resized: set[str] = set()
        if billing_changed or (capacity_changed and billing == "PROVISIONED"):
            kwargs: dict[str, Any] = {"TableName": name, "BillingMode": billing}
            if billing == "PROVISIONED":
                kwargs["ProvisionedThroughput"] = _throughput(out)
                if billing_changed and kept:
                    # Back to provisioned: DynamoDB wants every index's capacity in the same call.
                    kwargs["GlobalSecondaryIndexUpdates"] = [
                        {"Update": {"IndexName": n, "ProvisionedThroughput": _throughput(new_indexes[n])}}
                        for n in kept]
                    resized.update(kept)
            call(ctx, _what(name), ddb.update_table, **kwargs)
            self._wait_active(ctx, name)
        if out.get("deletion_protection_enabled") != prior.get("deletion_protection_enabled"):
            call(ctx, _what(name), ddb.update_table, TableName=name,
                 DeletionProtectionEnabled=bool(out.get("deletion_protection_enabled")))
            self._wait_active(ctx, name)
        # One index created or deleted per UpdateTable, waiting in between (a DynamoDB rule).
        for index in sorted({*(set(old_indexes) - set(new_indexes)), *rebuilt}):
            call(ctx, _what(name), ddb.update_table, TableName=name,
                 GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index}}])
            self._wait_active(ctx, name)
        for index in sorted({*(set(new_indexes) - set(old_indexes)), *rebuilt}):
            call(ctx, _what(name), ddb.update_table, TableName=name, AttributeDefinitions=_definitions(out),
                 GlobalSecondaryIndexUpdates=[{"Create": _index_api(new_indexes[index], billing)}])
            self._wait_active(ctx, name)
        if billing == "PROVISIONED":
            for index in kept:
                if index in resized or _throughput(new_indexes[index]) == _throughput(old_indexes[index]):
                    continue
                resize = {"IndexName": index, "ProvisionedThroughput": _throughput(new_indexes[index])}
                call(ctx, _what(name), ddb.update_table, TableName=name,
                     GlobalSecondaryIndexUpdates=[{"Update": resize}])
                self._wait_active(ctx, name)
        self._set_ttl(ctx, name, single(prior.get("ttl")), single(out.get("ttl")))
        self._set_pitr(ctx, name, single(prior.get("point_in_time_recovery")),
                       single(out.get("point_in_time_recovery")))
        to_set, to_remove = self.tag_changes(prior, out)
        # A changed value is removed first: moto's TagResource appends a second tag of the same key.
        to_remove = sorted({*to_remove, *(k for k in to_set if k in (prior.get("tags_all") or {}))})
        arn = prior.get("arn")
        if to_remove:
            call(ctx, _what(name), ddb.untag_resource, ResourceArn=arn, TagKeys=to_remove)
        if to_set:
            call(ctx, _what(name), ddb.tag_resource, ResourceArn=arn,
                 Tags=[{"Key": k, "Value": v} for k, v in sorted(to_set.items())])
        return self._refresh(ctx, out) or out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        name = prior.get("name") or prior.get("id")
        if not name:
            return
        try:
            deleted = call(ctx, _what(name), self.api(ctx).delete_table, missing=GONE, TableName=name)
        except AdapterError as err:
            if "DeletionProtectionEnabled" not in str(err):
                raise
            raise AdapterError(f"{_what(name)} is protected from deletion", address=ctx.address or None,
                               hint="Set deletion_protection_enabled = false and apply, then destroy.",
                               ) from None
        if deleted is not None:
            self._wait(ctx, "table_not_exists", name)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the table name."""
        return self.complete({"id": resource_id, "name": resource_id})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The table name."""
        names = known_strings(identity, "name")
        return names[0] if names else None

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        """The table, once usable: an interrupted create may have left it CREATING, as create would wait."""
        name = self.import_id(ctx, identity)
        if name is None:
            return None
        self._wait_active(ctx, name)  # returns at once when there is no such table
        return super().find(ctx, identity)

    # ---- settings with their own API calls ------------------------------------------------

    def _set_ttl(self, ctx: AdapterContext, name: str, old: dict[str, Any] | None,
                 new: dict[str, Any] | None) -> None:
        """Apply ``ttl``; None (omitted, so computed) or unchanged sends nothing."""
        if new is None or (old is not None and _ttl_key(old) == _ttl_key(new)):
            return
        if old is not None and old.get("enabled"):
            # Disabling needs the attribute it was enabled on; another attribute means off, then on.
            call(ctx, _what(name), self.api(ctx).update_time_to_live, TableName=name,
                 TimeToLiveSpecification={"Enabled": False, "AttributeName": old["attribute_name"]})
        if new.get("enabled"):
            call(ctx, _what(name), self.api(ctx).update_time_to_live, TableName=name,
                 TimeToLiveSpecification={"Enabled": True, "AttributeName": new["attribute_name"]})

    def _set_pitr(self, ctx: AdapterContext, name: str, old: dict[str, Any] | None,
                  new: dict[str, Any] | None) -> None:
        """Apply ``point_in_time_recovery``; None (omitted) sends nothing, nor does "off" on create."""
        if new is None or old == new or (old is None and not new.get("enabled")):
            return
        spec: dict[str, Any] = {"PointInTimeRecoveryEnabled": bool(new.get("enabled"))}
        if new.get("enabled") and new.get("recovery_period_in_days") is not None:
            spec["RecoveryPeriodInDays"] = int(new["recovery_period_in_days"])
        call(ctx, _what(name), self.api(ctx).update_continuous_backups, TableName=name,
             PointInTimeRecoverySpecification=spec)

    # ---- waiting and reading --------------------------------------------------------------

    def _wait(self, ctx: AdapterContext, waiter: str, name: str) -> None:
        from botocore.exceptions import WaiterError

        try:
            self.api(ctx).get_waiter(waiter).wait(TableName=name, WaiterConfig=_WAIT)
        except WaiterError as exc:
            raise sdk_error(ctx, _what(name), f"waiting for {waiter.replace('_', ' ')}", exc) from None

    def _wait_active(self, ctx: AdapterContext, name: str) -> None:
        """Until the table and every index are ACTIVE (a deleted index gone): botocore has no waiter."""
        for _ in range(int(_WAIT["MaxAttempts"])):
            found = call(ctx, _what(name), self.api(ctx).describe_table, missing=GONE, TableName=name)
            if found is None:
                return
            table = found["Table"]
            if table.get("TableStatus") == "ACTIVE" and all(
                    g.get("IndexStatus") == "ACTIVE" for g in table.get("GlobalSecondaryIndexes") or []):
                return
            if ctx.cancelled.wait(float(_WAIT["Delay"])):
                break
        raise AdapterError(f"{_what(name)} or one of its indexes did not become ACTIVE in time",
                           hint="Check the table in the console, then apply again.", address=ctx.address or None)

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        ddb = self.api(ctx)
        name = out.get("name") or out.get("id")
        found = call(ctx, _what(name), ddb.describe_table, missing=GONE, TableName=name)
        if found is None or found["Table"].get("TableStatus") == "DELETING":
            return None
        table = found["Table"]
        keys = {k["KeyType"]: k["AttributeName"] for k in table.get("KeySchema", [])}
        on_demand = (table.get("BillingModeSummary") or {}).get("BillingMode") == "PAY_PER_REQUEST"
        throughput = {} if on_demand else table.get("ProvisionedThroughput") or {}
        # AWS reports 0 for on-demand tables; moto keeps the old provisioned values.
        indexes = [_index_state(g, on_demand) for g in table.get("GlobalSecondaryIndexes") or []]
        used = {*keys.values(), *(g[k] for g in indexes for k in ("hash_key", "range_key") if g[k])}
        used.update(k["AttributeName"] for i in table.get("LocalSecondaryIndexes") or []
                    for k in i.get("KeySchema", []))
        out.update({
            "id": name, "name": name, "arn": table.get("TableArn"),
            "billing_mode": (table.get("BillingModeSummary") or {}).get("BillingMode") or "PROVISIONED",
            "hash_key": keys.get("HASH"), "range_key": keys.get("RANGE"),
            # Only key attributes: AWS drops a deleted index's definitions, moto keeps them.
            "attribute": _sorted([{"name": a["AttributeName"], "type": a["AttributeType"]}
                                  for a in table.get("AttributeDefinitions", [])
                                  if a["AttributeName"] in used]),
            "read_capacity": int(throughput.get("ReadCapacityUnits") or 0),
            "write_capacity": int(throughput.get("WriteCapacityUnits") or 0),
            "global_secondary_index": sorted(indexes, key=lambda g: g["name"]),
            "deletion_protection_enabled": bool(table.get("DeletionProtectionEnabled", False)),
        })
        ttl = call(ctx, _what(name), ddb.describe_time_to_live, missing=GONE, TableName=name) or {}
        description = ttl.get("TimeToLiveDescription") or {}
        ttl_on = description.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
        ttl_name = description.get("AttributeName") if ttl_on else None
        out["ttl"] = [{"attribute_name": ttl_name, "enabled": ttl_on}]
        backups = call(ctx, _what(name), ddb.describe_continuous_backups, missing=GONE, TableName=name) or {}
        pitr = (backups.get("ContinuousBackupsDescription") or {}).get("PointInTimeRecoveryDescription") or {}
        pitr_on = pitr.get("PointInTimeRecoveryStatus") == "ENABLED"
        days = pitr.get("RecoveryPeriodInDays")
        period = int(days or DEFAULT_RECOVERY_DAYS) if pitr_on else None
        out["point_in_time_recovery"] = [{"enabled": pitr_on, **({} if period is None else
                                                                 {"recovery_period_in_days": period})}]
        stream = table.get("StreamSpecification") or {}
        sse = table.get("SSEDescription") or {}
        out.update({
            "stream_enabled": bool(stream.get("StreamEnabled")),
            "stream_view_type": str(stream.get("StreamViewType") or "") if stream.get("StreamEnabled") else "",
            "stream_arn": str(table.get("LatestStreamArn") or ""),
            "stream_label": str(table.get("LatestStreamLabel") or ""),
            "table_class": str((table.get("TableClassSummary") or {}).get("TableClass") or "STANDARD"),
            "server_side_encryption": [{"enabled": True, "kms_key_arn": str(sse.get("KMSMasterKeyArn") or "")}]
            if sse.get("Status") in ("ENABLED", "ENABLING") else [],
            "local_secondary_index": sorted(({
                "name": i["IndexName"],
                "range_key": next((k["AttributeName"] for k in i.get("KeySchema", []) if k["KeyType"] == "RANGE"), ""),
                "projection_type": (i.get("Projection") or {}).get("ProjectionType") or "",
                "non_key_attributes": sorted((i.get("Projection") or {}).get("NonKeyAttributes") or []),
            } for i in table.get("LocalSecondaryIndexes") or []), key=lambda i: str(i["name"])),
        })
        for name in ("replica", "import_table"):
            out[name] = out.get(name) or []
        tags = call(ctx, _what(name), ddb.list_tags_of_resource, missing=GONE, ResourceArn=out["arn"]) or {}
        actual = {t["Key"]: t["Value"] for t in tags.get("Tags", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        return out


# ---- API shapes ------------------------------------------------------------------------------------


def _ttl_key(ttl: dict[str, Any]) -> tuple[bool, Any]:
    return bool(ttl.get("enabled")), ttl.get("attribute_name") if ttl.get("enabled") else None


def _definitions(attrs: dict[str, Any]) -> list[dict[str, str]]:
    return [{"AttributeName": a["name"], "AttributeType": a["type"]} for a in attrs["attribute"]]


def _index_api(index: dict[str, Any], billing: str) -> dict[str, Any]:
    """A ``global_secondary_index`` block as CreateTable / UpdateTable take it."""
    keys = [{"AttributeName": index["hash_key"], "KeyType": "HASH"}]
    if index.get("range_key"):
        keys.append({"AttributeName": index["range_key"], "KeyType": "RANGE"})
    projection: dict[str, Any] = {"ProjectionType": index["projection_type"]}
    if index.get("non_key_attributes"):
        projection["NonKeyAttributes"] = list(index["non_key_attributes"])
    out: dict[str, Any] = {"IndexName": index["name"], "KeySchema": keys, "Projection": projection}
    if billing == "PROVISIONED":
        out["ProvisionedThroughput"] = _throughput(index)
    return out


def _index_state(index: dict[str, Any], on_demand: bool) -> dict[str, Any]:
    """An index as DescribeTable reports it, in the shape of a ``global_secondary_index`` block."""
    keys = {k["KeyType"]: k["AttributeName"] for k in index.get("KeySchema", [])}
    projection = index.get("Projection") or {}
    throughput = {} if on_demand else index.get("ProvisionedThroughput") or {}
    return {
        "name": index["IndexName"], "hash_key": keys.get("HASH"), "range_key": keys.get("RANGE"),
        "projection_type": projection.get("ProjectionType"),
        "non_key_attributes": sorted(projection.get("NonKeyAttributes") or []) or None,
        "read_capacity": int(throughput.get("ReadCapacityUnits") or 0),
        "write_capacity": int(throughput.get("WriteCapacityUnits") or 0),
    }


def _sorted(attributes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(attributes, key=lambda a: str(a.get("name")))


def _throughput(attrs: dict[str, Any]) -> dict[str, int]:
    return {"ReadCapacityUnits": int(attrs["read_capacity"]), "WriteCapacityUnits": int(attrs["write_capacity"])}
