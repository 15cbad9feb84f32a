package main

import rego.v1

deny contains msg if {
	startswith(input.resource_changes[_].type, "aws_")
	msg := "no aws"
}
