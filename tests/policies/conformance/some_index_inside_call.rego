package main

import rego.v1

deny contains msg if {
	some i
	startswith(input.resource_changes[i].type, "aws_s3")
	msg := "no s3"
}
