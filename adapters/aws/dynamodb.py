"""``aws_dynamodb_table``: a table's keys, billing mode, capacity and tags.

Without secondary indexes the attribute definitions are exactly the key attributes, so changing
``attribute``, ``hash_key`` or ``range_key`` means a new table; billing mode, capacity and tags
change in place. ``attribute`` is a set in Terraform: it is kept sorted by name so the order in
which it was written never shows up as a change. Creating, updating and deleting wait (with
botocore's waiters) until the table is usable again, as Terraform does.
"""

from __future__ import annotations

from typing import Any

from adapters.aws import schema as s
from adapters.aws.base import AwsResource
from adapters.aws.errors import call, sdk_error
from adapters.base import AdapterContext, AdapterError
from engine.lang.values import Unknown

GONE = frozenset({"ResourceNotFoundException"})
_WAIT = {"Delay": 2, "MaxAttempts": 300}


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
        "attribute": s.block("Key attribute definitions.", {
            "name": s.required_string("Attribute name."),
            "type": s.required_string("S, N or B.", enum=["S", "N", "B"]),
        }, required=("name", "type"), min_items=1),
        "read_capacity": s.integer("Read capacity units (PROVISIONED).", minimum=0),
        "write_capacity": s.integer("Write capacity units (PROVISIONED).", minimum=0),
        **s.tags_properties(),
        "id": s.computed("The table name."),
        "arn": s.computed("ARN of the table."),
    }, required=("name", "hash_key", "attribute"))
    computed = frozenset({"id", "arn", "tags_all"})
    replace_on = frozenset({"name", "hash_key", "range_key", "attribute"})

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
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        ddb = self.api(ctx)
        keys = [{"AttributeName": out["hash_key"], "KeyType": "HASH"}]
        if out.get("range_key"):
            keys.append({"AttributeName": out["range_key"], "KeyType": "RANGE"})
        kwargs: dict[str, Any] = {
            "TableName": out["name"],
            "AttributeDefinitions": [{"AttributeName": a["name"], "AttributeType": a["type"]}
                                     for a in out["attribute"]],
            "KeySchema": keys,
            "BillingMode": out["billing_mode"],
        }
        if out["billing_mode"] == "PROVISIONED":
            kwargs["ProvisionedThroughput"] = _throughput(out)
        if out.get("tags_all"):
            kwargs["Tags"] = [{"Key": k, "Value": v} for k, v in sorted(out["tags_all"].items())]
        call(ctx, _what(out["name"]), ddb.create_table, **kwargs)
        self._wait(ctx, "table_exists", out["name"])
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        ddb, name = self.api(ctx), out["name"]
        billing_changed = out["billing_mode"] != prior.get("billing_mode")
        capacity_changed = any(out.get(n) != prior.get(n) for n in ("read_capacity", "write_capacity"))
        if billing_changed or (capacity_changed and out["billing_mode"] == "PROVISIONED"):
            kwargs: dict[str, Any] = {"TableName": name, "BillingMode": out["billing_mode"]}
            if out["billing_mode"] == "PROVISIONED":
                kwargs["ProvisionedThroughput"] = _throughput(out)
            call(ctx, _what(name), ddb.update_table, **kwargs)
            self._wait(ctx, "table_exists", name)
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
        if call(ctx, _what(name), self.api(ctx).delete_table, missing=GONE, TableName=name) is not None:
            self._wait(ctx, "table_not_exists", name)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the table name."""
        return self.complete({"id": resource_id, "name": resource_id})

    def _wait(self, ctx: AdapterContext, waiter: str, name: str) -> None:
        from botocore.exceptions import WaiterError

        try:
            self.api(ctx).get_waiter(waiter).wait(TableName=name, WaiterConfig=_WAIT)
        except WaiterError as exc:
            raise sdk_error(ctx, _what(name), f"waiting for {waiter.replace('_', ' ')}", exc) from None

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        ddb = self.api(ctx)
        name = out.get("name") or out.get("id")
        found = call(ctx, _what(name), ddb.describe_table, missing=GONE, TableName=name)
        if found is None or found["Table"].get("TableStatus") == "DELETING":
            return None
        table = found["Table"]
        keys = {k["KeyType"]: k["AttributeName"] for k in table.get("KeySchema", [])}
        throughput = table.get("ProvisionedThroughput") or {}
        if (table.get("BillingModeSummary") or {}).get("BillingMode") == "PAY_PER_REQUEST":
            throughput = {}  # AWS reports 0 for on-demand tables; moto keeps the old provisioned values
        out.update({
            "id": name, "name": name, "arn": table.get("TableArn"),
            "billing_mode": (table.get("BillingModeSummary") or {}).get("BillingMode") or "PROVISIONED",
            "hash_key": keys.get("HASH"), "range_key": keys.get("RANGE"),
            "attribute": _sorted([{"name": a["AttributeName"], "type": a["AttributeType"]}
                                  for a in table.get("AttributeDefinitions", [])]),
            "read_capacity": int(throughput.get("ReadCapacityUnits") or 0),
            "write_capacity": int(throughput.get("WriteCapacityUnits") or 0),
        })
        tags = call(ctx, _what(name), ddb.list_tags_of_resource, missing=GONE, ResourceArn=out["arn"]) or {}
        actual = {t["Key"]: t["Value"] for t in tags.get("Tags", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        return out


def _sorted(attributes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(attributes, key=lambda a: str(a.get("name")))


def _throughput(attrs: dict[str, Any]) -> dict[str, int]:
    return {"ReadCapacityUnits": int(attrs["read_capacity"]), "WriteCapacityUnits": int(attrs["write_capacity"])}
