package main

import rego.v1

deny contains msg if {
	input.resource_changes[_].type == "aws_instance"
	msg := "instances are not allowed here"
}
