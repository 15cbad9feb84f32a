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

configs := lib.companion_keys("aws_s3_bucket_server_side_encryption_configuration")

configured(rc) if {
	some k in lib.bucket_keys(rc)
	configs[k]
}

inline(rc) if count(object.get(rc.change.after, "server_side_encryption_configuration", [])) > 0

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("aws_s3_bucket")
	not inline(rc)
	not configured(rc)
	msg := sprintf("%s: the S3 bucket has no server-side encryption configuration", [rc.address])
}
