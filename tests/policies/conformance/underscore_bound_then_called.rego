package main

import rego.v1

deny contains msg if {
	t := input.resource_changes[_].type
	startswith(t, "aws_")
	msg := sprintf("%s is an AWS type", [t])
}
