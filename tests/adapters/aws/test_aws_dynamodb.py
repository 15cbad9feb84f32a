"""``aws_dynamodb_table`` through ``ctl`` against moto.

moto creates, updates and deletes tables at once (status ACTIVE immediately), so the waits for
ACTIVE and for deletion return on their first poll here; against AWS they take seconds. moto's
``TagResource`` adds a second tag with the same key instead of replacing the value (the adapter
removes a changed key before setting it again).
"""

from __future__ import annotations

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject


def config(*, name: str = "items", billing: str = "PROVISIONED", capacity: int = 1, team: str = "a",
           range_type: str = "N") -> str:
    capacity_lines = (f"\n  read_capacity  = {capacity}\n  write_capacity = {capacity}"
                      if billing == "PROVISIONED" else "")
    return f"""
resource "aws_dynamodb_table" "t" {{
  name         = "{name}"
  billing_mode = "{billing}"{capacity_lines}
  hash_key     = "pk"
  range_key    = "sk"
  tags         = {{ team = "{team}" }}

  attribute {{
    name = "sk"
    type = "{range_type}"
  }}
  attribute {{
    name = "pk"
    type = "S"
  }}
}}
"""


def table(aws: AwsProject, name: str = "items") -> dict:
    return dict(aws.client("dynamodb").describe_table(TableName=name)["Table"])


def test_table_lifecycle(aws: AwsProject) -> None:
    aws.setup(config())
    assert "1 added" in aws.apply().stdout
    found = table(aws)
    assert {k["AttributeName"]: k["KeyType"] for k in found["KeySchema"]} == {"pk": "HASH", "sk": "RANGE"}
    assert found["ProvisionedThroughput"]["ReadCapacityUnits"] == 1
    state = aws.attrs("aws_dynamodb_table.t")
    assert state["arn"] == found["TableArn"] and state["id"] == "items"
    # attribute is a set: kept sorted by name whatever order the configuration used
    assert state["attribute"] == [{"name": "pk", "type": "S"}, {"name": "sk", "type": "N"}]
    tags = aws.client("dynamodb").list_tags_of_resource(ResourceArn=found["TableArn"])["Tags"]
    assert tags == [{"Key": "team", "Value": "a"}]
    aws.assert_noop()

    # in place: capacity and tags, then the billing mode
    aws.setup(config(capacity=2, team="b"))
    assert "0 added, 1 changed, 0 destroyed" in aws.apply().stdout
    assert table(aws)["ProvisionedThroughput"]["WriteCapacityUnits"] == 2
    tags = aws.client("dynamodb").list_tags_of_resource(ResourceArn=found["TableArn"])["Tags"]
    assert tags == [{"Key": "team", "Value": "b"}]
    aws.setup(config(billing="PAY_PER_REQUEST", team="b"))
    assert "1 changed" in aws.apply().stdout
    assert table(aws)["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert aws.attrs("aws_dynamodb_table.t")["read_capacity"] == 0
    aws.assert_noop()

    # drift: a tag added behind ctl's back is reported and removed
    aws.client("dynamodb").tag_resource(ResourceArn=found["TableArn"], Tags=[{"Key": "rogue", "Value": "x"}])
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "rogue" in out
    aws.apply()
    tags = aws.client("dynamodb").list_tags_of_resource(ResourceArn=found["TableArn"])["Tags"]
    assert tags == [{"Key": "team", "Value": "b"}]

    # drift: deleted behind ctl's back -> created again
    aws.client("dynamodb").delete_table(TableName="items")
    res = aws.apply()
    assert DRIFT in res.stdout and "will be created" in res.stdout
    assert table(aws)["TableStatus"] == "ACTIVE"

    # import by name
    aws.reimport("aws_dynamodb_table.t", "items")
    aws.assert_noop()

    # replace: a key attribute's type cannot change in place
    aws.setup(config(billing="PAY_PER_REQUEST", team="b", range_type="S"))
    res = aws.apply()
    assert "must be replaced" in res.stdout and "1 added, 0 changed, 1 destroyed" in res.stdout
    types = {a["AttributeName"]: a["AttributeType"] for a in table(aws)["AttributeDefinitions"]}
    assert types == {"pk": "S", "sk": "S"}

    aws.ok("destroy", "--auto-approve")
    assert aws.client("dynamodb").list_tables()["TableNames"] == []


def test_provisioned_table_needs_capacity(aws: AwsProject) -> None:
    aws.setup("""
resource "aws_dynamodb_table" "t" {
  name     = "no-capacity"
  hash_key = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
}
""")
    res = aws.ctl("plan")
    assert res.code == 1 and "aws_dynamodb_table.t" in res.output
    assert "read_capacity and write_capacity must be set" in res.output and "Traceback" not in res.output
