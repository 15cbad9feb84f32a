package main

import rego.v1

deny contains msg if {
	some rc in input.resource_changes
	rc.type == "aws_s3_bucket"
	rc.change.after.acl == "public-read"
	msg := sprintf("%s is public", [rc.address])
}
