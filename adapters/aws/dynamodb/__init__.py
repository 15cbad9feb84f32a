"""``aws_dynamodb_table``: the resource (``table``) and the checks its plan makes (``planning``)."""

from adapters.aws.dynamodb.table import DynamoDbTable

__all__ = ["DynamoDbTable"]
