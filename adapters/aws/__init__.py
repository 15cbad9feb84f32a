"""The ``aws`` provider: S3, SQS, SNS, DynamoDB and IAM objects through boto3 (imported lazily).

Resource types and attribute names are Terraform's (hashicorp/aws), so configurations port. This
module is loaded at discovery time (``ctl --help``, completion, ``validate``): it imports only the
type definitions; boto3 loads when a provider configuration builds its clients.
"""

from __future__ import annotations

from adapters.aws.dynamodb import DynamoDbTable
from adapters.aws.iam import IamRole, IamRolePolicy
from adapters.aws.provider import CONFIG_SCHEMA, AwsProvider
from adapters.aws.s3_bucket import S3Bucket, S3BucketData
from adapters.aws.s3_bucket_config import (
    S3BucketEncryption,
    S3BucketPolicy,
    S3BucketPublicAccessBlock,
    S3BucketVersioning,
)
from adapters.aws.s3_object import S3Object
from adapters.aws.sns import SnsTopic, SnsTopicSubscription
from adapters.aws.sqs import SqsQueue
from adapters.aws.sts import CallerIdentity

_RESOURCES = (
    S3Bucket(), S3BucketVersioning(), S3BucketEncryption(), S3BucketPublicAccessBlock(), S3BucketPolicy(),
    S3Object(), SqsQueue(), SnsTopic(), SnsTopicSubscription(), DynamoDbTable(), IamRole(), IamRolePolicy(),
)
_DATA_SOURCES = (CallerIdentity(), S3BucketData())

PROVIDER = AwsProvider(
    name="aws",
    source="registry.terraform.io/hashicorp/aws",
    resources={rt.name: rt for rt in _RESOURCES},
    data_sources={ds.name: ds for ds in _DATA_SOURCES},
    config_schema=CONFIG_SCHEMA,
)

__all__ = ["PROVIDER"]
