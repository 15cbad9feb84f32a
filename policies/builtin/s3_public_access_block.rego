# METADATA
# title: S3 buckets block public access
# description: >-
#   Every S3 bucket has an aws_s3_bucket_public_access_block with block_public_acls,
#   block_public_policy, ignore_public_acls and restrict_public_buckets all set to true.
# custom:
#   id: CTL-AWS-S3-001
package ctl.aws.s3_public_access_block

import data.ctl.lib
import rego.v1

blocked(rc) if count(lib.companions(rc, "aws_s3_bucket_public_access_block")) > 0

settings := ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := array.concat(unblocked, partly_blocked)

unblocked := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("aws_s3_bucket")
	rc := input.resource_changes[i]
	not blocked(rc)
	msg := sprintf("%s: the S3 bucket has no aws_s3_bucket_public_access_block", [rc.address])
]

partly_blocked := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("aws_s3_bucket_public_access_block")
	rc := input.resource_changes[i]
	off := [s | some s in settings; not rc.change.after[s] == true]
	count(off) > 0
	msg := concat("", [rc.address, ": public access is not fully blocked (", concat(", ", off), " not true)"])
]
