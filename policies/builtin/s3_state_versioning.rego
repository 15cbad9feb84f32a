# METADATA
# title: State buckets keep versions
# description: >-
#   S3 buckets that hold state (tagged ctl:state = "true" or purpose = "terraform-state", or
#   named like *tfstate*, *terraform-state*, *tf-state* or *ctl-state*) have versioning enabled,
#   inline or with an aws_s3_bucket_versioning resource.
# custom:
#   id: CTL-AWS-S3-003
package ctl.aws.s3_state_versioning

import data.ctl.lib
import rego.v1

name_patterns := ["tfstate", "terraform-state", "tf-state", "ctl-state"]

# Any of the patterns (plain text, no regular-expression syntax): one regex.match per bucket costs
# rego-cpp less than a contains per pattern.
name_pattern := concat("|", name_patterns)

versioned(rc) if {
	some j in lib.companions(rc, "aws_s3_bucket_versioning")
	some conf in input.resource_changes[j].change.after.versioning_configuration
	conf.status == "Enabled"
}

state_like(after) if state_tagged(lib.tags(after))

state_like(after) if regex.match(name_pattern, lower(after.bucket))

state_tagged(tags) if tags["ctl:state"] == "true"

state_tagged(tags) if tags.purpose in {"terraform-state", "tfstate", "ctl-state"}

inline_versioning(rc) if {
	some v in rc.change.after.versioning
	v.enabled == true
}

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("aws_s3_bucket")
	rc := input.resource_changes[i]
	state_like(rc.change.after)
	not inline_versioning(rc)
	not versioned(rc)
	msg := sprintf("%s: the bucket holds state but versioning is not enabled", [rc.address])
]
