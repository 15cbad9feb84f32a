"""Data source ``aws_caller_identity``: whose credentials the provider configuration uses.

The identity is asked of STS once per provider configuration (credential validation already did
so unless ``skip_credentials_validation`` is set) and shared by every reader.
"""

from __future__ import annotations

from typing import Any

from adapters.aws import schema as s
from adapters.aws.base import AwsResource
from adapters.aws.errors import sdk_error
from adapters.base import AdapterContext


class CallerIdentity(AwsResource):
    """``account_id``, ``arn`` and ``user_id`` of the calling credentials."""

    name = "aws_caller_identity"
    mode = "data"
    service = "sts"
    schema = s.resource_schema({
        "id": s.computed("The account ID."),
        "account_id": s.computed("The account ID."),
        "arn": s.computed("ARN of the calling user or role."),
        "user_id": s.computed("Unique ID of the calling entity."),
    })
    computed = frozenset({"id", "account_id", "arn", "user_id"})

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            identity = self.clients(ctx).identity()
        except (BotoCoreError, ClientError) as exc:
            raise sdk_error(ctx, "the caller identity", "GetCallerIdentity", exc) from None
        return {"id": identity["account_id"], **identity}
