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

enabled_versioning := {k |
	some c in lib.planned_type("aws_s3_bucket_versioning")
	some conf in c.change.after.versioning_configuration
	conf.status == "Enabled"
	k := lib.companion_key(c)
}

versioned(rc) if {
	some k in lib.bucket_keys(rc)
	enabled_versioning[k]
}

state_like(rc) if lib.tags(rc.change.after)["ctl:state"] == "true"

state_like(rc) if lib.tags(rc.change.after).purpose in {"terraform-state", "tfstate", "ctl-state"}

state_like(rc) if {
	some pattern in name_patterns
	contains(lower(rc.change.after.bucket), pattern)
}

inline_versioning(rc) if {
	some v in rc.change.after.versioning
	v.enabled == true
}

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("aws_s3_bucket")
	state_like(rc)
	not inline_versioning(rc)
	not versioned(rc)
	msg := sprintf("%s: the bucket holds state but versioning is not enabled", [rc.address])
}
