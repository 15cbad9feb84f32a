package main

import rego.v1

deny contains msg if {
	some i
	t := input.resource_changes[i].type
	startswith(t, "aws_s3")
	msg := sprintf("change %d is a bucket", [i])
}
