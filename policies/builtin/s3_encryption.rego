# METADATA
# title: S3 buckets have server-side encryption
# description: >-
#   Every S3 bucket configures server-side encryption, inline
#   (server_side_encryption_configuration) or with an
#   aws_s3_bucket_server_side_encryption_configuration resource.
# custom:
#   id: CTL-AWS-S3-002
package ctl.aws.s3_encryption

import data.ctl.lib
import rego.v1

configured(rc) if count(lib.companions(rc, "aws_s3_bucket_server_side_encryption_configuration")) > 0

inline(rc) if count(object.get(rc.change.after, "server_side_encryption_configuration", [])) > 0

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("aws_s3_bucket")
	rc := input.resource_changes[i]
	not configured(rc)
	not inline(rc)
	msg := sprintf("%s: the S3 bucket has no server-side encryption configuration", [rc.address])
]
