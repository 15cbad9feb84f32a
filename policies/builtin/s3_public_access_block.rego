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

blocks := lib.companion_keys("aws_s3_bucket_public_access_block")

blocked(rc) if {
	some k in lib.bucket_keys(rc)
	blocks[k]
}

settings := ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]


deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("aws_s3_bucket")
	not blocked(rc)
	msg := sprintf("%s: the S3 bucket has no aws_s3_bucket_public_access_block", [rc.address])
}

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("aws_s3_bucket_public_access_block")
	off := [s | some s in settings; not rc.change.after[s] == true]
	count(off) > 0
	msg := concat("", [rc.address, ": public access is not fully blocked (", concat(", ", off), " not true)"])
}
